/**
 * What the timeline's unit tests share: people, and activity entries and comments as the API
 * gives them.
 */
import type { ActivityChanges, ActivityEntry, ActivityKind, Comment, Person } from '@contract';

export const ada: Person = { id: 'u-ada', name: 'Ada Lovelace', email: 'ada@example.test' };
export const bo: Person = { id: 'u-bo', name: 'Bo Chen', email: 'bo@example.test' };
export const ben: Person = { id: 'u-ben', name: 'Ben Okafor', email: 'ben@example.test' };
export const cy: Person = { id: 'u-cy', name: 'Cy Park', email: 'cy@example.test' };

let nextId = 1;

/** An entry of task 7, with an id of its own. */
export function entry(
  actor: Person | null,
  kind: ActivityKind,
  changes: ActivityChanges = {},
  createdAt = '2026-11-20T10:00:00.000Z',
): ActivityEntry {
  return { id: nextId++, taskId: 7, actor, kind, changes, createdAt, shortened: false };
}

export function comment(id: number, author: Person, createdAt: string, body = 'Hello'): Comment {
  return { id, taskId: 7, author, body, createdAt, updatedAt: createdAt };
}
