/**
 * task_statuses, and the two things a status change does to its tasks: moving them to another
 * status, and keeping the completion copies on their list items (task_list_items.is_completed,
 * migration 0005) in step with their status's isCompleted.
 */
import { withinTransaction } from '../storage/database.js';
import { keeping, lockRows } from '../storage/dialect.js';
import { prepared } from '../storage/prepared.js';
import type { TaskStatus } from '../contract/statuses.js';
import type { Db, StatusRow } from '../storage/schema.js';

export type { TaskStatus };

/** snake_case and 0/1 stop here: a status as the rest of the code (and the API) sees it. */
function rowToStatus(row: StatusRow): TaskStatus {
  return {
    id: row.id,
    name: row.name,
    color: row.color,
    isDefault: Boolean(row.is_default),
    isCompleted: Boolean(row.is_completed),
    order: row.sort_order,
  };
}

/** The workflow every new team starts with. */
export const DEFAULT_STATUSES = [
  { name: 'To do', color: '#6B7280', isDefault: true, isCompleted: false },
  { name: 'In progress', color: '#3B82F6', isDefault: false, isCompleted: false },
  { name: 'Done', color: '#22C55E', isDefault: false, isCompleted: true },
] as const;

export async function listStatuses(db: Db, teamId: string): Promise<TaskStatus[]> {
  const rows = await db
    .selectFrom('task_statuses')
    .selectAll()
    .where('team_id', '=', teamId)
    .orderBy('sort_order')
    .orderBy('id')
    .execute();
  return rows.map(rowToStatus);
}

// A task writer reads the status it points a task at with the `keep` lock (dialect.ts): a status
// being deleted, or changing isCompleted, waits for that writer, or the writer waits and then
// sees it gone or changed, so no task points at a deleted status or copies a stale completion.
const statusById = prepared((db, p: { teamId: string; statusId: number }) =>
  keeping(db, db.selectFrom('task_statuses').selectAll().where('team_id', '=', p.teamId).where('id', '=', p.statusId)),
);

/** The team's status, kept (see above) until the transaction ends. */
export async function findStatus(db: Db, teamId: string, statusId: number): Promise<TaskStatus | undefined> {
  const [row] = await statusById(db, { teamId, statusId });
  return row && rowToStatus(row);
}

const defaultStatus = prepared((db, p: { teamId: string }) =>
  keeping(
    db,
    db
      .selectFrom('task_statuses')
      .selectAll()
      .where('team_id', '=', p.teamId)
      .where('is_default', '=', 1)
      .orderBy('sort_order')
      .limit(1),
  ),
);

/** The team's default status, kept (see above) until the transaction ends. */
export async function findDefaultStatus(db: Db, teamId: string): Promise<TaskStatus | undefined> {
  const [row] = await defaultStatus(db, { teamId });
  return row && rowToStatus(row);
}

export async function findTeamOfStatus(db: Db, statusId: number): Promise<string | undefined> {
  const row = await db.selectFrom('task_statuses').select('team_id').where('id', '=', statusId).executeTakeFirst();
  return row?.team_id;
}

/**
 * Locks every status of the team until the transaction ends, then reads them in order. Every
 * status writer starts here, so writers of one team's statuses run one at a time and each sees
 * what the one before committed: exactly one default stays, and order ties are resolved once.
 * Task writers' `keep` locks do not wait for it (dialect.ts, lock order).
 */
export async function lockTeamStatuses(trx: Db, teamId: string): Promise<TaskStatus[]> {
  const all = trx.selectFrom('task_statuses').select('id').where('team_id', '=', teamId).orderBy('id');
  await lockRows(trx, all, 'change');
  return listStatuses(trx, teamId);
}

/**
 * Fixes the set of tasks in the status until the transaction ends: the status is locked against
 * task writers' `keep` (no task moves in), and its tasks against every other writer (none moves
 * out). Then its tasks can be moved, or their completion copies rewritten, without a race.
 * Returns their ids, in order.
 */
export async function holdTasksOf(trx: Db, statusId: number): Promise<number[]> {
  await lockRows(trx, trx.selectFrom('task_statuses').select('id').where('id', '=', statusId), 'delete');
  const tasks = trx.selectFrom('tasks').select('id').where('status_id', '=', statusId).orderBy('id');
  await lockRows(trx, tasks, 'change');
  return (await tasks.execute()).map((row) => row.id);
}

/**
 * Makes `order` free for a status (`statusId`, or a new one when undefined): when another status
 * of the team holds it, that status and every one after it move down by one, so the status sorts
 * right before the one that held its place. Run after `lockTeamStatuses`.
 */
export async function makeRoomAt(trx: Db, teamId: string, order: number, statusId?: number): Promise<void> {
  let others = trx.selectFrom('task_statuses').select('id').where('team_id', '=', teamId);
  if (statusId !== undefined) others = others.where('id', '!=', statusId);
  if (!(await others.where('sort_order', '=', order).executeTakeFirst())) return;
  await trx
    .updateTable('task_statuses')
    .set((eb) => ({ sort_order: eb('sort_order', '+', 1) }))
    .where('id', 'in', others.where('sort_order', '>=', order))
    .execute();
}

/** Takes the default from every status of the team (a new default is set next, in the same transaction). */
export async function clearDefault(trx: Db, teamId: string): Promise<void> {
  await trx
    .updateTable('task_statuses')
    .set({ is_default: 0 })
    .where('team_id', '=', teamId)
    .where('is_default', '=', 1)
    .execute();
}

export interface NewStatus {
  name: string;
  color: string | null;
  isDefault: boolean;
  isCompleted: boolean;
  /** Omitted: after the last status. Taken: see makeRoomAt. */
  order?: number;
}

/**
 * Creates a status; a new default status takes the default from every other status. Statuses
 * created at the same moment queue (lockTeamStatuses): each sees the others, exactly one
 * default remains, and each without an order goes after the last.
 */
export async function insertStatus(db: Db, teamId: string, input: NewStatus): Promise<TaskStatus> {
  return withinTransaction(db, async (trx) => {
    const statuses = await lockTeamStatuses(trx, teamId);
    let order = input.order;
    if (order === undefined) order = statuses.length === 0 ? 0 : Math.max(...statuses.map((s) => s.order)) + 1;
    else await makeRoomAt(trx, teamId, order);
    if (input.isDefault) await clearDefault(trx, teamId);
    const row = await trx
      .insertInto('task_statuses')
      .values({
        team_id: teamId,
        name: input.name,
        color: input.color,
        is_default: input.isDefault ? 1 : 0,
        is_completed: input.isCompleted ? 1 : 0,
        sort_order: order,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return rowToStatus(row);
  });
}

/** The fields of a status that change; omitted ones stay. */
export interface StatusChanges {
  name?: string;
  color?: string | null;
  isDefault?: boolean;
  isCompleted?: boolean;
  order?: number;
}

/** Writes the changes to the status row as given (the service has checked them); returns it as it now is. */
export async function updateStatusRow(trx: Db, statusId: number, changes: StatusChanges): Promise<TaskStatus> {
  const set = {
    ...(changes.name !== undefined && { name: changes.name }),
    ...(changes.color !== undefined && { color: changes.color }),
    ...(changes.isDefault !== undefined && { is_default: changes.isDefault ? 1 : 0 }),
    ...(changes.isCompleted !== undefined && { is_completed: changes.isCompleted ? 1 : 0 }),
    ...(changes.order !== undefined && { sort_order: changes.order }),
  };
  const query =
    Object.keys(set).length === 0
      ? trx.selectFrom('task_statuses').selectAll().where('id', '=', statusId)
      : trx.updateTable('task_statuses').set(set).where('id', '=', statusId).returningAll();
  return rowToStatus(await query.executeTakeFirstOrThrow());
}

/** Sets the completion copies on the list items of the status's tasks (after holdTasksOf). */
export async function setCompletionCopies(trx: Db, statusId: number, isCompleted: boolean): Promise<void> {
  await trx
    .updateTable('task_list_items')
    .set({ is_completed: isCompleted ? 1 : 0 })
    .where('task_id', 'in', trx.selectFrom('tasks').select('id').where('status_id', '=', statusId))
    .execute();
}

/**
 * A new version for every task of the status: its name, colour and isCompleted are part of each
 * task's answer, so once either changes an ETag read before must no longer match (updated_at stays: no
 * one changed the task itself).
 */
export async function bumpTaskVersions(trx: Db, statusId: number): Promise<void> {
  await trx
    .updateTable('tasks')
    .set((eb) => ({ version: eb('version', '+', 1) }))
    .where('status_id', '=', statusId)
    .execute();
}

/**
 * Moves every task of one status to another (after holdTasksOf): each task's version and
 * updated_at change as with any change to it, so an ETag read before no longer matches.
 * Returns how many tasks moved.
 */
export async function moveTasks(trx: Db, fromStatusId: number, toStatusId: number): Promise<number> {
  const result = await trx
    .updateTable('tasks')
    .set((eb) => ({ status_id: toStatusId, updated_at: new Date().toISOString(), version: eb('version', '+', 1) }))
    .where('status_id', '=', fromStatusId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function deleteStatusRow(trx: Db, statusId: number): Promise<void> {
  await trx.deleteFrom('task_statuses').where('id', '=', statusId).execute();
}
