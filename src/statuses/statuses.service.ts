/**
 * Workflow statuses: the team's list (GET /v1/task-statuses) and their changes, made by the
 * team's owners and admins (POST, PATCH, DELETE /v1/task-statuses) and by the operator
 * (`tasklane admin status …`), through the same functions: the operator's take a team id and a
 * status id, the API's (`…As`) a caller, and both throw http/errors kinds.
 *
 * Rules: a team has exactly one default status at all times (a new default takes it from the
 * others in the same transaction; the default can neither be unset nor deleted, only replaced).
 * An order another status holds is made free by moving that status and every later one down by
 * one. A deleted status's tasks move to another status of the team in the same transaction, and
 * every task's list items keep the completion of its status; each moved task gets an activity
 * entry and a `task.updated` event, by whoever deleted the status (no actor: the operator).
 * Every change sends `taskStatus.created|updated|deleted` `{"statusId"}` to every member of the
 * team (a new default also for the status that stopped being it).
 */
import type { Caller } from '../caller.js';
import { NO_AUDIENCE, recordEvent, usersAudience, type EventType } from '../changes/outbox.js';
import type { CreateStatusBody, StatusDeleted, UpdateStatusBody } from '../contract/statuses.js';
import { MAX_STATUS_NAME_LENGTH, MAX_STATUS_ORDER } from '../contract/statuses.js';
import { conflict, invalidInput, notFound } from '../http/errors.js';
import { toId } from '../ids.js';
import type { Db } from '../storage/schema.js';
import type { Store } from '../storage/database.js';
import { audiencesOfTasks } from '../tasks/access.js';
import { asManager, requireManager } from '../team/roles.js';
import { memberIdsOf } from '../team/teams.repository.js';
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

/** Throws 400 for the first field given that breaks its rule. */
function checkFields(fields: StatusChanges): void {
  if (fields.name !== undefined && !fields.name.trim()) throw invalidInput('name must not be empty.');
  if (fields.name !== undefined && [...fields.name].length > MAX_STATUS_NAME_LENGTH) {
    throw invalidInput(`name must be at most ${MAX_STATUS_NAME_LENGTH} characters long.`);
  }
  if (fields.color !== undefined && fields.color !== null && !HEX_COLOR.test(fields.color)) {
    throw invalidInput('color must be a hex colour such as #22C55E.');
  }
  if (fields.order !== undefined && !(Number.isInteger(fields.order) && Math.abs(fields.order) <= MAX_STATUS_ORDER)) {
    throw invalidInput(`order must be a whole number from -${MAX_STATUS_ORDER} to ${MAX_STATUS_ORDER}.`);
  }
}

/**
 * Sends each `taskStatus.*` event to every member of the team: the change's last statements
 * (changes/outbox.ts holds the team row from the first to the commit).
 */
async function announce(trx: Db, teamId: string, events: [EventType, number][]): Promise<void> {
  const audience = usersAudience(await memberIdsOf(trx, teamId));
  for (const [type, statusId] of events) await recordEvent(trx, { teamId, type, data: { statusId }, audience });
}

/** A new status in the team: after the last one, or at `order` (making room there). */
export function createStatus(store: Store, teamId: string, input: NewStatus): Promise<TaskStatus> {
  checkFields(input);
  return store.transaction(async (trx) => {
    // The default it takes over, read under the statuses' lock (insertStatus takes it again, at no cost).
    const previousDefault = input.isDefault
      ? (await statuses.lockTeamStatuses(trx, teamId)).find((s) => s.isDefault)
      : undefined;
    const status = await statuses.insertStatus(trx, teamId, input);
    await announce(trx, teamId, [
      ['taskStatus.created', status.id],
      ...(previousDefault ? [['taskStatus.updated', previousDefault.id] as [EventType, number]] : []),
    ]);
    return status;
  });
}

const statusNotFound = (statusId: number) => notFound(`Task status ${statusId} not found.`);

/** Whether `changes` would change anything of `status`. */
const changesAnything = (status: TaskStatus, changes: StatusChanges): boolean =>
  (Object.keys(changes) as (keyof StatusChanges)[]).some(
    (field) => changes[field] !== undefined && changes[field] !== status[field],
  );

/**
 * Changes the fields given; returns the status as it now is. A new isCompleted rewrites its
 * tasks' completion copies in the same transaction; isDefault true takes the default from the
 * status that had it, and false on the default is refused (400).
 */
export function updateStatus(
  store: Store,
  teamId: string,
  statusId: number,
  changes: StatusChanges,
): Promise<TaskStatus> {
  checkFields(changes);
  return store.transaction(async (trx) => {
    const all = await statuses.lockTeamStatuses(trx, teamId);
    const status = all.find((s) => s.id === statusId);
    if (!status) throw statusNotFound(statusId);
    if (changes.isDefault === false && status.isDefault) {
      throw invalidInput(
        `Task status ${statusId} is the default, and a team always has one. Make another status the default instead.`,
      );
    }
    if (!changesAnything(status, changes)) return status;
    const completionChanges = changes.isCompleted !== undefined && changes.isCompleted !== status.isCompleted;
    if (completionChanges) {
      await statuses.holdTasksOf(trx, status.id);
      await statuses.setCompletionCopies(trx, status.id, changes.isCompleted!);
    }
    // Each task's answer shows its status's name, colour and isCompleted.
    const shownChanges = (['name', 'color'] as const).some((f) => changes[f] !== undefined && changes[f] !== status[f]);
    if (completionChanges || shownChanges) {
      await statuses.bumpTaskVersions(trx, status.id);
    }
    if (changes.order !== undefined && changes.order !== status.order) {
      await statuses.makeRoomAt(trx, teamId, changes.order, status.id);
    }
    const previousDefault = changes.isDefault && !status.isDefault ? all.find((s) => s.isDefault) : undefined;
    if (previousDefault) await statuses.clearDefault(trx, teamId);
    const updated = await statuses.updateStatusRow(trx, status.id, changes);
    const changed = previousDefault ? [status.id, previousDefault.id] : [status.id];
    await announce(
      trx,
      teamId,
      changed.map((id) => ['taskStatus.updated', id]),
    );
    return updated;
  });
}

export interface StatusDeletion {
  deleted: TaskStatus;
  movedTo: TaskStatus;
  /** How many tasks moved from the deleted status to `movedTo`. */
  movedTasks: number;
}

/**
 * Deletes a status after moving its tasks to `moveToId`, in one transaction; their list items
 * take the new status's completion, and each moved task gets its activity entry and its
 * `task.updated` event, by `actorId` (null: the operator). The default status cannot be
 * deleted (409): make another the default first.
 */
export function deleteStatus(
  store: Store,
  teamId: string,
  statusId: number,
  moveToId: number,
  actorId: string | null = null,
): Promise<StatusDeletion> {
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

    const taskIds = await statuses.holdTasksOf(trx, status.id);
    if (target.isCompleted !== status.isCompleted) {
      await statuses.setCompletionCopies(trx, status.id, target.isCompleted);
    }
    const movedTasks = await statuses.moveTasks(trx, status.id, target.id);
    await statuses.deleteStatusRow(trx, status.id);
    // Who may read each task, read before the first event takes the team row: from there to the
    // commit only the events are written.
    const readers = await audiencesOfTasks(trx, taskIds);
    const move = { from: { id: status.id, name: status.name }, to: { id: target.id, name: target.name } };
    for (const taskId of taskIds) {
      await recordEvent(trx, {
        teamId,
        type: 'task.updated',
        data: { taskId },
        audience: readers.get(taskId) ?? NO_AUDIENCE,
        activity: { taskId, actorId, kind: 'task.updated', changes: { status: move } },
      });
    }
    await announce(trx, teamId, [['taskStatus.deleted', status.id]]);
    return { deleted: status, movedTo: target, movedTasks };
  });
}

// ---------------------------------------------------------------------------------------------
// The API's: the team's owners and admins
// ---------------------------------------------------------------------------------------------

const WHAT = 'workflow statuses';

/** The status id in a path, or 404 for one that cannot exist. */
function pathStatusId(raw: string): number {
  const id = toId(raw);
  if (id === null) throw statusNotFound(Number(raw));
  return id;
}

/** POST /v1/task-statuses. */
export function createStatusAs(store: Store, caller: Caller, body: CreateStatusBody): Promise<TaskStatus> {
  requireManager(caller, WHAT);
  return createStatus(asManager(store, caller, WHAT), caller.teamId, {
    name: body.name,
    color: body.color ?? null,
    isDefault: body.isDefault ?? false,
    isCompleted: body.isCompleted ?? false,
    order: body.order,
  });
}

/** PATCH /v1/task-statuses/{statusId}. */
export function updateStatusAs(
  store: Store,
  caller: Caller,
  rawId: string,
  body: UpdateStatusBody,
): Promise<TaskStatus> {
  requireManager(caller, WHAT);
  return updateStatus(asManager(store, caller, WHAT), caller.teamId, pathStatusId(rawId), body);
}

/** DELETE /v1/task-statuses/{statusId}?moveTo=. */
export async function deleteStatusAs(
  store: Store,
  caller: Caller,
  rawId: string,
  rawMoveTo: string,
): Promise<StatusDeleted> {
  requireManager(caller, WHAT);
  const moveTo = toId(rawMoveTo);
  const statusId = pathStatusId(rawId);
  if (moveTo === null)
    throw invalidInput(`Task status ${rawMoveTo}, to move the tasks to, is not a status of this team.`);
  const result = await deleteStatus(asManager(store, caller, WHAT), caller.teamId, statusId, moveTo, caller.userId);
  return { id: result.deleted.id, deleted: true, movedTo: result.movedTo.id, movedTasks: result.movedTasks };
}
