/**
 * The one task-access rule of the spec: a user may read and change a task if they created it,
 * are assigned to it, or are a member of a non-archived list it is attached to.
 * Used as the guard of single-task operations and, per row, in GET /v1/tasks.
 */
import { sql, type ExpressionBuilder, type ExpressionWrapper, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { prepared } from '../storage/prepared.js';
import type { Db, Tables } from '../storage/schema.js';

type TaskTables = Tables & { t: Tables['tasks'] };
type TaskScope = ExpressionBuilder<TaskTables, 't'>;

/**
 * WHERE clause: task `t` is accessible to the user (a few index probes per task). `subquery`
 * may wrap each EXISTS's query: search passes storage's `probedPerRow`, so that its walks, which
 * stop at a page, are never planned as a read of every list item.
 */
export function canAccess(
  eb: TaskScope,
  userId: string,
  subquery: <Q extends SelectQueryBuilder<any, any, any>>(query: Q) => Q = (query) => query,
): ExpressionWrapper<TaskTables, 't', SqlBool> {
  return eb.or([
    eb('t.created_by', '=', userId),
    eb.exists(
      subquery(
        eb
          .selectFrom('task_assignees as a')
          .select(sql.lit(1).as('one'))
          .whereRef('a.task_id', '=', 't.id')
          .where('a.user_id', '=', userId),
      ),
    ),
    // From the task's one or two list items to their lists and the user's membership of each:
    // CROSS JOIN pins that order on SQLite, which could otherwise start from the user's
    // memberships (hundreds) for every task checked. PostgreSQL plans it as an inner join.
    eb.exists(
      subquery(
        eb
          .selectFrom('task_list_items as i')
          .crossJoin('task_lists as l')
          .crossJoin('list_members as m')
          .select(sql.lit(1).as('one'))
          .whereRef('i.task_id', '=', 't.id')
          .whereRef('l.id', '=', 'i.list_id')
          .where('l.is_archived', '=', 0)
          .whereRef('m.list_id', '=', 'i.list_id')
          .where('m.user_id', '=', userId),
      ),
    ),
  ]);
}

/**
 * WHERE clause: the user is a member of this non-archived list, so may access every task
 * attached to it. Not correlated with the row: evaluated once per query (SQLite memoizes it,
 * PostgreSQL makes it an InitPlan), it lets a walk through one list skip the per-row check.
 */
export function mayAccessAllOf(
  eb: TaskScope,
  listId: number,
  userId: string,
): ExpressionWrapper<TaskTables, 't', SqlBool> {
  return eb.exists(
    eb
      .selectFrom('list_members as wm')
      .innerJoin('task_lists as wl', 'wl.id', 'wm.list_id')
      .select(sql.lit(1).as('one'))
      .where('wm.list_id', '=', listId)
      .where('wm.user_id', '=', userId)
      .where('wl.is_archived', '=', 0),
  );
}

const readerRows = prepared((db, p: { taskId: number }) =>
  db
    .selectFrom('tasks')
    .select('created_by as user_id')
    .where('id', '=', p.taskId)
    .union(db.selectFrom('task_assignees').select('user_id').where('task_id', '=', p.taskId))
    .union(
      db
        .selectFrom('task_list_items as i')
        .innerJoin('task_lists as l', 'l.id', 'i.list_id')
        .innerJoin('list_members as m', 'm.list_id', 'i.list_id')
        .select('m.user_id')
        .where('i.task_id', '=', p.taskId)
        .where('l.is_archived', '=', 0),
    ),
);

/** Every user who may access the task now: the audience of its realtime events. */
export async function readersOf(db: Db, taskId: number): Promise<string[]> {
  return (await readerRows(db, { taskId })).map((r) => r.user_id);
}

/** `readersOf` for many tasks in few statements: each task's readers, by task id. */
export async function readersOfTasks(db: Db, taskIds: readonly number[]): Promise<Map<number, string[]>> {
  const readers = new Map<number, string[]>();
  for (let i = 0; i < taskIds.length; i += 500) {
    const ids = taskIds.slice(i, i + 500);
    const rows = await db
      .selectFrom('tasks')
      .select(['id as task_id', 'created_by as user_id'])
      .where('id', 'in', ids)
      .union(db.selectFrom('task_assignees').select(['task_id', 'user_id']).where('task_id', 'in', ids))
      .union(
        db
          .selectFrom('task_list_items as i')
          .innerJoin('task_lists as l', 'l.id', 'i.list_id')
          .innerJoin('list_members as m', 'm.list_id', 'i.list_id')
          .select(['i.task_id', 'm.user_id'])
          .where('i.task_id', 'in', ids)
          .where('l.is_archived', '=', 0),
      )
      .execute();
    for (const { task_id, user_id } of rows) {
      const users = readers.get(task_id);
      if (users) users.push(user_id);
      else readers.set(task_id, [user_id]);
    }
  }
  return readers;
}
