/**
 * Workflow statuses: the team's list (GET /v1/task-statuses) and their changes, today made by the
 * operator (`tasklane admin status …`). The changes take a team id and a status id and throw
 * http/errors kinds, so an HTTP route can call them as they are.
 *
 * Rules: a team has exactly one default status at all times (a new default takes it from the
 * others; the default can neither be unset nor deleted, only replaced). An order another status
 * holds is made free by moving that status and every later one down by one. A deleted status's
 * tasks move to another status of the team in the same transaction, and every task's list items
 * keep the completion of its status; each moved task's activity records the move, with no actor
 * (the operator made it). No realtime event announces a status change yet.
 */
import type { Caller } from '../caller.js';
import { conflict, invalidInput, notFound } from '../http/errors.js';
import { toId } from '../ids.js';
import type { Db } from '../storage/schema.js';
import type { Store } from '../storage/database.js';
import { recordStatusMove } from '../activity/activity.repository.js';
import * as statuses from './statuses.repository.js';
import type { NewStatus, StatusChanges, TaskStatus } from './statuses.repository.js';

export type { NewStatus, StatusChanges, TaskStatus };

export function statusesOf(store: Store, caller: Caller): Promise<TaskStatus[]> {
  return statuses.listStatuses(store.db, caller.teamId);
}

/** The team's statuses, by order (the operator's view of GET /v1/task-statuses). */
export function statusesOfTeam(store: Store, teamId: string): Promise<TaskStatus[]> {
  return statuses.listStatuses(store.db, teamId);
}

/** The team a status belongs to, or undefined: for the operator, who names a status by its id alone. */
export function teamOfStatus(store: Store, statusId: number): Promise<string | undefined> {
  return toId(statusId) === null ? Promise.resolve(undefined) : statuses.findTeamOfStatus(store.db, statusId);
}

/** The workflow every new team starts with, in order. */
export async function createDefaultStatuses(db: Db, teamId: string): Promise<void> {
  for (const [order, status] of statuses.DEFAULT_STATUSES.entries()) {
    await statuses.insertStatus(db, teamId, { ...status, order });
  }
}

const HEX_COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
/** Orders stay far inside PostgreSQL's integer range, also after many shifts by one. */
const MAX_ORDER = 1_000_000;

/** Throws 400 for the first field given that breaks its rule. */
function checkFields(fields: StatusChanges): void {
  if (fields.name !== undefined && !fields.name.trim()) throw invalidInput('name must not be empty.');
  if (fields.color !== undefined && fields.color !== null && !HEX_COLOR.test(fields.color)) {
    throw invalidInput('color must be a hex colour such as #22C55E.');
  }
  if (fields.order !== undefined && !(Number.isInteger(fields.order) && Math.abs(fields.order) <= MAX_ORDER)) {
    throw invalidInput(`order must be a whole number from -${MAX_ORDER} to ${MAX_ORDER}.`);
  }
}

/** A new status in the team: after the last one, or at `order` (making room there). */
export function createStatus(store: Store, teamId: string, input: NewStatus): Promise<TaskStatus> {
  checkFields(input);
  return store.transaction((trx) => statuses.insertStatus(trx, teamId, input));
}

const statusNotFound = (statusId: number) => notFound(`Task status ${statusId} not found.`);

/** Changes the fields given; returns the status as it now is. */
export function updateStatus(
  store: Store,
  teamId: string,
  statusId: number,
  changes: StatusChanges,
): Promise<TaskStatus> {
  checkFields(changes);
  return store.transaction(async (trx) => {
    const status = (await statuses.lockTeamStatuses(trx, teamId)).find((s) => s.id === statusId);
    if (!status) throw statusNotFound(statusId);
    if (changes.isDefault === false && status.isDefault) {
      throw conflict(
        `Task status ${statusId} is the default, and a team always has one. Make another status the default instead.`,
      );
    }
    if (changes.isCompleted !== undefined && changes.isCompleted !== status.isCompleted) {
      await statuses.holdTasksOf(trx, status.id);
      await statuses.setCompletionCopies(trx, status.id, changes.isCompleted);
    }
    if (changes.order !== undefined && changes.order !== status.order) {
      await statuses.makeRoomAt(trx, teamId, changes.order, status.id);
    }
    if (changes.isDefault && !status.isDefault) await statuses.clearDefault(trx, teamId);
    return statuses.updateStatusRow(trx, status.id, changes);
  });
}

export interface StatusDeleted {
  deleted: TaskStatus;
  movedTo: TaskStatus;
  /** How many tasks moved from the deleted status to `movedTo`. */
  movedTasks: number;
}

/**
 * Deletes a status after moving its tasks to `moveToId`, in one transaction; their list items
 * take the new status's completion. The default status cannot be deleted: make another the default first.
 */
export function deleteStatus(store: Store, teamId: string, statusId: number, moveToId: number): Promise<StatusDeleted> {
  return store.transaction(async (trx) => {
    const all = await statuses.lockTeamStatuses(trx, teamId);
    const status = all.find((s) => s.id === statusId);
    if (!status) throw statusNotFound(statusId);
    if (status.isDefault) {
      throw conflict(
        `Task status ${statusId} is the default and cannot be deleted. Make another status the default first.`,
      );
    }
    if (moveToId === statusId) throw invalidInput('Its tasks cannot move to the status being deleted; pick another.');
    const target = all.find((s) => s.id === moveToId);
    if (!target) throw invalidInput(`Task status ${moveToId}, to move the tasks to, is not a status of this team.`);

    await statuses.holdTasksOf(trx, status.id);
    if (target.isCompleted !== status.isCompleted) {
      await statuses.setCompletionCopies(trx, status.id, target.isCompleted);
    }
    // Each task's activity tells of the move, made by the operator (no user: actor null).
    await recordStatusMove(trx, status, target);
    const movedTasks = await statuses.moveTasks(trx, status.id, target.id);
    await statuses.deleteStatusRow(trx, status.id);
    return { deleted: status, movedTo: target, movedTasks };
  });
}
