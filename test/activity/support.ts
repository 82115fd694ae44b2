/** What the activity and comment suites share: reading a task's timeline, people as the API shows them. */
import type { Actor } from '../factories.js';
import { expectStatus } from '../harness.js';

export interface Entry {
  id: number;
  taskId: number;
  actor: { id: string; name: string; email: string } | null;
  kind: string;
  changes: Record<string, { from: any; to: any }>;
  createdAt: string;
  shortened: boolean;
}

export const ENTRY_KEYS = ['actor', 'changes', 'createdAt', 'id', 'kind', 'shortened', 'taskId'];

/** A person as the API shows one. */
export const person = (a: Actor) => ({ id: a.userId, name: a.name, email: a.email });

/** The task's activity as `reader` sees it, newest first (`query`: limit, before). */
export async function activityOf(reader: Actor, taskId: number, query = ''): Promise<Entry[]> {
  return expectStatus(await reader.api.get(`/v1/tasks/${taskId}/activity${query}`), 200);
}

/** The newest entry the reader sees. */
export async function newestEntry(reader: Actor, taskId: number): Promise<Entry> {
  const [entry] = await activityOf(reader, taskId, '?limit=1');
  if (!entry) throw new Error(`task ${taskId} has no activity`);
  return entry;
}

export async function newTask(
  actor: Actor,
  body: Record<string, unknown> = {},
): Promise<{ id: number; title: string }> {
  return expectStatus(await actor.api.post('/v1/tasks', { title: 'A task', ...body }), 201);
}

export async function newList(
  actor: Actor,
  name: string,
  members: Actor[] = [],
): Promise<{ id: number; name: string }> {
  const list = expectStatus(await actor.api.post('/v1/lists', { name }), 201);
  for (const m of members)
    expectStatus(await actor.api.post(`/v1/lists/${list.id}/members`, { userId: m.userId }), 201);
  return { id: list.id, name: list.name };
}

/** The team's statuses by name: "To do" (default), "In progress", "Done". */
export async function statusesOf(actor: Actor): Promise<Record<string, { id: number; name: string }>> {
  const all: { id: number; name: string }[] = expectStatus(await actor.api.get('/v1/task-statuses'), 200);
  return Object.fromEntries(all.map((s) => [s.name, s]));
}
