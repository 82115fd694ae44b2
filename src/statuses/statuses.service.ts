/** Workflow statuses: the team's list (GET /v1/task-statuses) and the operator's new statuses. */
import type { Caller } from '../caller.js';
import { invalidInput } from '../http/errors.js';
import type { Db } from '../storage/schema.js';
import type { Store } from '../storage/database.js';
import {
  DEFAULT_STATUSES,
  insertStatus,
  listStatuses,
  type NewStatus,
  type TaskStatus,
} from './statuses.repository.js';

export function statusesOf(store: Store, caller: Caller): Promise<TaskStatus[]> {
  return listStatuses(store.db, caller.teamId);
}

/** The workflow every new team starts with, in order. */
export async function createDefaultStatuses(db: Db, teamId: string): Promise<void> {
  for (const [order, status] of DEFAULT_STATUSES.entries()) await insertStatus(db, teamId, { ...status, order });
}

const HEX_COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

/** A new status in the team; a new default takes the default from the others (statuses.repository.ts). */
export function createStatus(store: Store, teamId: string, input: NewStatus): Promise<TaskStatus> {
  if (!input.name.trim()) throw invalidInput('name must not be empty');
  if (input.color !== null && !HEX_COLOR.test(input.color)) {
    throw invalidInput('color must be a hex colour such as #22C55E');
  }
  return store.transaction((trx) => insertStatus(trx, teamId, input));
}
