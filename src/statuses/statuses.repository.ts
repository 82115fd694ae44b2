import { withinTransaction } from '../storage/database.js';
import { lockRows } from '../storage/dialect.js';
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

const statusById = prepared((db, p: { teamId: string; statusId: number }) =>
  db.selectFrom('task_statuses').selectAll().where('team_id', '=', p.teamId).where('id', '=', p.statusId),
);

export async function findStatus(db: Db, teamId: string, statusId: number): Promise<TaskStatus | undefined> {
  const [row] = await statusById(db, { teamId, statusId });
  return row && rowToStatus(row);
}

const defaultStatus = prepared((db, p: { teamId: string }) =>
  db
    .selectFrom('task_statuses')
    .selectAll()
    .where('team_id', '=', p.teamId)
    .where('is_default', '=', 1)
    .orderBy('sort_order')
    .limit(1),
);

export async function findDefaultStatus(db: Db, teamId: string): Promise<TaskStatus | undefined> {
  const [row] = await defaultStatus(db, { teamId });
  return row && rowToStatus(row);
}

export interface NewStatus {
  name: string;
  color: string | null;
  isDefault: boolean;
  isCompleted: boolean;
  /** Omitted: after the last status. */
  order?: number;
}

/**
 * Creates a status; a new default status takes the default from every other status. The team row
 * is locked first, so statuses created at the same moment queue: each sees the others, exactly
 * one default remains, and each goes after the last.
 */
export async function insertStatus(db: Db, teamId: string, input: NewStatus): Promise<TaskStatus> {
  return withinTransaction(db, async (trx) => {
    await lockRows(trx, trx.selectFrom('teams').select('id').where('id', '=', teamId), 'change');
    let order = input.order;
    if (order === undefined) {
      const last = await trx
        .selectFrom('task_statuses')
        .select((eb) => eb.fn.max('sort_order').as('max'))
        .where('team_id', '=', teamId)
        .executeTakeFirst();
      order = last?.max === null || last?.max === undefined ? 0 : Number(last.max) + 1;
    }
    if (input.isDefault) {
      await trx.updateTable('task_statuses').set({ is_default: 0 }).where('team_id', '=', teamId).execute();
    }
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
