/** Helpers of the notification suites (issue 30). */
import { expectStatus } from '../harness.js';
import type { Actor } from '../factories.js';

export interface Item {
  id: number;
  kind: string;
  task: { id: number; number: number; title: string };
  actor: { id: string; name: string } | null;
  createdAt: string;
  readAt: string | null;
}

export const ITEM_KEYS = ['actor', 'createdAt', 'id', 'kind', 'late', 'readAt', 'task'];

/** A page of the inbox. */
export async function inbox(reader: Actor, query = ''): Promise<{ items: Item[]; nextCursor: string | null }> {
  return expectStatus(await reader.api.get(`/v1/notifications${query}`), 200);
}

/** The kinds of the reader's notifications about the task, newest first. */
export async function kindsAbout(reader: Actor, taskId: number): Promise<string[]> {
  return (await inbox(reader, '?limit=200')).items.filter((i) => i.task.id === taskId).map((i) => i.kind);
}

export async function newTask(
  actor: Actor,
  body: Record<string, unknown> = {},
): Promise<{ id: number; number: number }> {
  return expectStatus(await actor.api.post('/v1/tasks', { title: 'A task', ...body }), 201);
}

export async function comment(actor: Actor, taskId: number, body: string): Promise<{ id: number }> {
  return expectStatus(await actor.api.post(`/v1/tasks/${taskId}/comments`, { body }), 201);
}

export async function following(actor: Actor, taskId: number): Promise<boolean> {
  return expectStatus(await actor.api.get(`/v1/tasks/${taskId}/follow`), 200).following;
}
