/**
 * The one task-access rule of the spec: a user may read and change a task if they created it,
 * are assigned to it, or are a member of a non-archived list it is attached to.
 * Used as the guard of single-task operations and, per row, in GET /v1/tasks.
 *
 * A key limited to lists (issue 33) adds one condition, never a way in: the task must also be on
 * one of the key's lists (`canAccessWithin`), wherever its caller reads or changes tasks.
 */
import type { Caller } from '../caller.js';
import type { FollowChoice } from '../changes/notifications.js';
import { NO_AUDIENCE, type Audience } from '../changes/outbox.js';
import { sql, type ExpressionBuilder, type ExpressionWrapper, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { inList, isPostgres, LIST_MEMBERSHIP_LOCK, listParam, listValues, type ListParam } from '../storage/dialect.js';
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

/** A caller's list limit (issue 33) as one SQL parameter (`inList`), or undefined: no limit. */
export function listLimitOf(db: Db, caller: Pick<Caller, 'limits'>): ListParam | undefined {
  const listIds = caller.limits?.listIds;
  return listIds ? listParam(db, listIds) : undefined;
}

/** WHERE clause: task `t` is on one of the lists of `limit` (a key's list limit, `listLimitOf`). */
export function onLimitLists(
  db: Db,
  eb: TaskScope,
  limit: ListParam,
  subquery: <Q extends SelectQueryBuilder<any, any, any>>(query: Q) => Q = (query) => query,
): ExpressionWrapper<TaskTables, 't', SqlBool> {
  return eb.exists(
    subquery(
      eb
        .selectFrom('task_list_items as li')
        .select(sql.lit(1).as('one'))
        .whereRef('li.task_id', '=', 't.id')
        .where(inList(db, 'li.list_id', limit)),
    ),
  );
}

/** `canAccess`, and for a caller limited to lists (`limit` given), on one of them: the rule as a key's caller has it. */
export function canAccessWithin(
  db: Db,
  eb: TaskScope,
  userId: string,
  limit: ListParam | undefined,
  subquery?: <Q extends SelectQueryBuilder<any, any, any>>(query: Q) => Q,
): ExpressionWrapper<TaskTables, 't', SqlBool> {
  const rule = canAccess(eb, userId, subquery);
  return limit === undefined ? rule : eb.and([rule, onLimitLists(db, eb, limit, subquery)]);
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

/**
 * A task's audience (its `users` are exactly its creator and assignees), with the choices of
 * those who chose to follow it or to stop (`follows`), read in the same statement: a change that
 * notifies the task's followers knows them without a statement of its own.
 */
export type TaskAudience = Audience & { follows: FollowChoice[] };

/**
 * Each task's direct readers (its creator and assignees), those who chose to follow it or stop,
 * and its non-archived lists with the
 * snapshot of their members that is still current, if any (migration 0020).
 */
const audienceRows = prepared((db, p: { taskIds: ListParam }) =>
  db
    .selectFrom('tasks')
    .select([
      'id as task_id',
      sql<string | null>`created_by`.as('user_id'),
      sql<number | null>`cast(null as integer)`.as('list_id'),
      sql<number | null>`cast(null as integer)`.as('audience_id'),
    ])
    .where(inList(db, 'id', p.taskIds))
    .unionAll(
      db
        .selectFrom('task_assignees')
        .select([
          'task_id',
          sql<string | null>`user_id`.as('user_id'),
          sql<number | null>`cast(null as integer)`.as('list_id'),
          sql<number | null>`cast(null as integer)`.as('audience_id'),
        ])
        .where(inList(db, 'task_id', p.taskIds)),
    )
    // Who chose to follow the task or to stop (changes/notifications.ts): list_id -1 or -2.
    .unionAll(
      db
        .selectFrom('task_followers')
        .select([
          'task_id',
          sql<string | null>`user_id`.as('user_id'),
          sql<number | null>`cast(following - 2 as integer)`.as('list_id'),
          sql<number | null>`cast(null as integer)`.as('audience_id'),
        ])
        .where(inList(db, 'task_id', p.taskIds)),
    )
    .unionAll(
      db
        .selectFrom('task_list_items as i')
        .innerJoin('task_lists as l', 'l.id', 'i.list_id')
        .leftJoin('list_current_audiences as c', 'c.list_id', 'i.list_id')
        .select(['i.task_id', sql<string | null>`cast(null as text)`.as('user_id'), 'i.list_id', 'c.audience_id'])
        .where(inList(db, 'i.task_id', p.taskIds))
        .where('l.is_archived', '=', 0),
    ),
);

const insertSnapshot = prepared((db, p: { listId: number; createdAt: string }) =>
  db
    .insertInto('list_audiences')
    .columns(['team_id', 'list_id', 'created_at'])
    .expression(
      db
        .selectFrom('task_lists')
        .select((eb) => ['team_id', 'id', eb.cast(eb.val(p.createdAt), 'text').as('created_at')])
        .where('id', '=', p.listId),
    )
    .returning('id'),
);

const insertSnapshotMembers = prepared((db, p: { audienceId: number; listId: number }) =>
  db
    .insertInto('list_audience_members')
    .columns(['audience_id', 'user_id'])
    .expression(
      db
        .selectFrom('list_members')
        .select((eb) => [eb.cast(eb.val(p.audienceId), 'integer').as('audience_id'), 'user_id'])
        .where('list_id', '=', p.listId),
    ),
);

const makeCurrent = prepared((db, p: { listId: number; audienceId: number }) =>
  db
    .insertInto('list_current_audiences')
    .values({ list_id: p.listId, audience_id: p.audienceId })
    .onConflict((oc) => oc.column('list_id').doNothing()),
);

/**
 * PostgreSQL: a shared lock on the membership of each list the tasks are in, in list id order,
 * held to commit. A change of a list's members or archiving takes it exclusively (migration
 * 0020's triggers), so it either waits for this transaction, or this one waits for it to commit
 * and then reads what it did: an event committed after a member left never names them, and the
 * members a snapshot is made of cannot change before it becomes the list's current one. SQLite
 * needs nothing: `begin immediate` runs one writer at a time.
 */
const lockListMemberships = prepared((db, p: { taskIds: ListParam }) =>
  db
    .selectFrom(
      db
        .selectFrom('task_list_items')
        .select('list_id')
        .distinct()
        .where(inList(db, 'task_id', p.taskIds))
        .orderBy('list_id')
        // A fence: the locks are taken as the sorted rows come, in list id order.
        .offset(0)
        .as('s'),
    )
    .select(sql<unknown>`pg_advisory_xact_lock_shared(${sql.lit(LIST_MEMBERSHIP_LOCK)}, s.list_id)`.as('locked')),
);

/**
 * The snapshot of each list's members that is current, written where a membership change (or
 * a new list) left none: three statements per list the first time, nothing after.
 */
async function snapshotsOf(db: Db, listIds: readonly number[]): Promise<Map<number, number>> {
  const snapshots = new Map<number, number>();
  const sorted = [...new Set(listIds)].sort((a, b) => a - b);
  const createdAt = new Date().toISOString();
  for (const listId of sorted) {
    // Another transaction may make one meanwhile (PostgreSQL): both are the same members, and
    // `makeCurrent` keeps the first.
    const [made] = await insertSnapshot(db, { listId, createdAt });
    await insertSnapshotMembers(db, { audienceId: made!.id, listId });
    await makeCurrent(db, { listId, audienceId: made!.id });
    snapshots.set(listId, made!.id);
  }
  return snapshots;
}

/**
 * Who may read each task now (the spec's rule above): the audience of its events, by task id.
 * Its creator and assignees by name, and each of its lists' members as the list's snapshot
 * (changes/outbox.ts), so that what an event stores does not grow with its lists' size.
 */
export async function audiencesOfTasks(db: Db, taskIds: readonly number[]): Promise<Map<number, TaskAudience>> {
  const audiences = new Map<number, { users: string[]; listAudiences: number[]; follows: FollowChoice[] }>();
  const stale: { taskId: number; listId: number }[] = [];
  // All the lists at once, so that their locks are taken in one order.
  if (isPostgres(db) && taskIds.length > 0) await lockListMemberships(db, { taskIds: listParam(db, taskIds) });
  for (let i = 0; i < taskIds.length; i += 500) {
    const rows = await audienceRows(db, { taskIds: listParam(db, taskIds.slice(i, i + 500)) });
    for (const row of rows) {
      let audience = audiences.get(row.task_id);
      if (!audience) audiences.set(row.task_id, (audience = { users: [], listAudiences: [], follows: [] }));
      if (row.list_id !== null && row.list_id < 0)
        audience.follows.push({ userId: row.user_id!, following: row.list_id === -1 });
      else if (row.user_id !== null) audience.users.push(row.user_id);
      else if (row.audience_id !== null) audience.listAudiences.push(row.audience_id);
      else stale.push({ taskId: row.task_id, listId: row.list_id! });
    }
  }
  if (stale.length > 0) {
    const snapshots = await snapshotsOf(
      db,
      stale.map((s) => s.listId),
    );
    for (const { taskId, listId } of stale) audiences.get(taskId)!.listAudiences.push(snapshots.get(listId)!);
  }
  return audiences;
}

/** `audiencesOfTasks` for one task. */
export async function audienceOf(db: Db, taskId: number): Promise<TaskAudience> {
  return (await audiencesOfTasks(db, [taskId])).get(taskId) ?? { ...NO_AUDIENCE, follows: [] };
}

/** Of `userIds`, those who may read the task now (the rule above), in one statement. */
const readersAmongRows = prepared((db, p: { taskId: number; userIds: ListParam }) =>
  db
    .selectFrom(listValues(db, p.userIds))
    .select('v.value as user_id')
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('tasks as t')
          .select(sql.lit(1).as('one'))
          .where('t.id', '=', p.taskId)
          .where((eb) =>
            eb.or([
              eb('t.created_by', '=', eb.ref('v.value')),
              eb.exists(
                eb
                  .selectFrom('task_assignees as a')
                  .select(sql.lit(1).as('one'))
                  .whereRef('a.task_id', '=', 't.id')
                  .whereRef('a.user_id', '=', 'v.value'),
              ),
              eb.exists(
                eb
                  .selectFrom('task_list_items as i')
                  .innerJoin('task_lists as l', 'l.id', 'i.list_id')
                  .innerJoin('list_members as m', 'm.list_id', 'i.list_id')
                  .select(sql.lit(1).as('one'))
                  .whereRef('i.task_id', '=', 't.id')
                  .where('l.is_archived', '=', 0)
                  .whereRef('m.user_id', '=', 'v.value'),
              ),
            ]),
          ),
      ),
    ),
);

/** Of `userIds`, those who may read the task now: whom a mention of them may notify. */
export async function readersAmong(db: Db, taskId: number, userIds: readonly string[]): Promise<string[]> {
  if (userIds.length === 0) return [];
  const rows = await readersAmongRows(db, { taskId, userIds: listParam(db, [...new Set(userIds)]) });
  return rows.map((row) => row.user_id);
}
