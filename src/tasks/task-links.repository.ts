/**
 * A task's links: its assignees and the lists it is attached to (with the copies of its priority
 * and completion on each list item, which the list filters of GET /v1/tasks read).
 */
import { sql } from 'kysely';
import type { Caller } from '../caller.js';
import type { Priority } from '../contract/enums.js';
import type { Person, TaskSummary } from '../contract/index.js';
import { byNameThenId } from '../ids.js';
import { codePointOrder, inList, listParam, listValues, type ListParam } from '../storage/dialect.js';
import { prepared, preparedVariants } from '../storage/prepared.js';
import type { Db } from '../storage/schema.js';

/** A list as a task shows it: id and name. */
export type ListRef = TaskSummary['taskLists'][number];

function groupBy<T extends { task_id: number }, V>(rows: T[], toValue: (row: T) => V): Map<number, V[]> {
  const groups = new Map<number, V[]>();
  for (const row of rows) {
    const group = groups.get(row.task_id);
    if (group) group.push(toValue(row));
    else groups.set(row.task_id, [toValue(row)]);
  }
  return groups;
}

const assignees = (db: Db) => db.selectFrom('task_assignees as a').innerJoin('users as u', 'u.id', 'a.user_id');

const assigneesOfMany = prepared((db, p: { taskIds: ListParam }) =>
  assignees(db)
    .select(['a.task_id', 'u.id', 'u.name', 'u.email'])
    .where(inList(db, 'a.task_id', p.taskIds)),
);

/** One task's assignees (unordered), for a query that nests them (tasks.repository.ts, the detail). */
export const assigneesOfTask = (db: Db, taskId: number) =>
  assignees(db).select(['u.id', 'u.name', 'u.email']).where('a.task_id', '=', taskId);

/** The assignees of the outer query's task `t`, by name then id (`byNameThenId`): a page's rows nest them. */
export const assigneesOfRow = (db: Db) =>
  assignees(db)
    .select(['u.id', 'u.name', 'u.email'])
    .where('a.task_id', '=', sql.ref<number>('t.id'))
    .orderBy(codePointOrder(db, 'u.name'))
    .orderBy(codePointOrder(db, 'u.id'));

/** Assignees of each task, by name. */
export async function assigneesOf(db: Db, taskIds: number[]): Promise<Map<number, Person[]>> {
  if (taskIds.length === 0) return new Map();
  const rows = await assigneesOfMany(db, { taskIds: listParam(db, taskIds) });
  const groups = groupBy(rows, (r) => ({ id: r.id, name: r.name, email: r.email }));
  for (const people of groups.values()) people.sort(byNameThenId);
  return groups;
}

/**
 * From the tasks' list items (by task id), checking membership per row: never from the
 * caller's memberships, which can be many. The name of a list is never shown to someone
 * outside it.
 */
const visibleLists = (db: Db, userId: string, limit?: ListParam) => {
  const query = db
    .selectFrom('task_list_items as i')
    .innerJoin('task_lists as l', 'l.id', 'i.list_id')
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('list_members as m')
          .select('m.list_id')
          .whereRef('m.list_id', '=', 'i.list_id')
          .where('m.user_id', '=', userId),
      ),
    );
  // A key limited to lists (issue 33) sees only those of its lists.
  return limit === undefined ? query : query.where(inList(db, 'i.list_id', limit));
};

const visibleListsOfMany = preparedVariants(
  (db, p: { taskIds: ListParam; userId: string; limit: ListParam | null }, limited) =>
    visibleLists(db, p.userId, limited ? p.limit! : undefined)
      .select(['i.task_id', 'l.id', 'l.name'])
      .where(inList(db, 'i.task_id', p.taskIds))
      .orderBy('l.id'),
);

/** One task's lists that the user is a member of (unordered), for a query that nests them (the detail). */
export const visibleListsOfTask = (db: Db, taskId: number, userId: string, limit?: ListParam) =>
  visibleLists(db, userId, limit).select(['l.id', 'l.name']).where('i.task_id', '=', taskId);

/** Lists each task is attached to, limited to lists the caller is a member of. */
export async function visibleListsOf(db: Db, caller: Caller, taskIds: number[]): Promise<Map<number, ListRef[]>> {
  if (taskIds.length === 0) return new Map();
  const limit = caller.limits?.listIds ? listParam(db, caller.limits.listIds) : null;
  const rows = await visibleListsOfMany(
    db,
    { taskIds: listParam(db, taskIds), userId: caller.userId, limit },
    limit !== null,
  );
  return groupBy(rows, (r) => ({ id: r.id, name: r.name }));
}

/** The lists of the outer query's task `t` that the user is a member of, by id: a page's rows nest them. */
export const visibleListsOfRow = (db: Db, userId: string, limit?: ListParam) =>
  visibleLists(db, userId, limit)
    .select(['l.id', 'l.name'])
    .where('i.task_id', '=', sql.ref<number>('t.id'))
    .orderBy('l.id');

const insertAssignees = prepared((db, p: { taskId: number; userIds: ListParam }) =>
  db
    .insertInto('task_assignees')
    .columns(['task_id', 'user_id'])
    .expression(
      db
        .selectFrom(listValues(db, p.userIds))
        .select((eb) => [eb.cast(eb.val(p.taskId), 'integer').as('task_id'), 'v.value as user_id']),
    ),
);

const deleteAssignees = prepared((db, p: { taskId: number }) =>
  db.deleteFrom('task_assignees').where('task_id', '=', p.taskId).returning('user_id'),
);

export async function addAssignees(db: Db, taskId: number, userIds: readonly string[]): Promise<void> {
  if (userIds.length > 0) await insertAssignees(db, { taskId, userIds: listParam(db, userIds) });
}

/** Replaces the task's assignees; returns the ones it had (for its activity), read by the same DELETE. */
export async function replaceAssignees(db: Db, taskId: number, userIds: readonly string[]): Promise<string[]> {
  const previous = await deleteAssignees(db, { taskId });
  await addAssignees(db, taskId, userIds);
  return previous.map((r) => r.user_id);
}

const listIdsOfTask = prepared((db, p: { taskId: number }) =>
  db.selectFrom('task_list_items').select('list_id').where('task_id', '=', p.taskId),
);

/** Every list the task is attached to, visible to the caller or not (for its activity, which filters per reader). */
export async function listIdsOf(db: Db, taskId: number): Promise<number[]> {
  return (await listIdsOfTask(db, { taskId })).map((r) => r.list_id);
}

/**
 * Replaces the task's lists among those the caller may use (member of, not archived).
 * Attachments to lists the caller cannot see (or, for a key limited to lists, outside them) are
 * kept, since the caller never saw them;
 * so are attachments to archived lists, which come back with the list when it is unarchived.
 * Returns the lists it was detached from (those given included, re-attached since), read by the DELETE.
 */
export async function replaceUsableLists(
  db: Db,
  caller: Caller,
  taskId: number,
  listIds: readonly number[],
): Promise<number[]> {
  let usable = db
    .selectFrom('list_members as m')
    .innerJoin('task_lists as l', 'l.id', 'm.list_id')
    .select('m.list_id')
    .where('m.user_id', '=', caller.userId)
    .where('l.is_archived', '=', 0);
  // A key limited to lists (issue 33) never saw the task's other lists: they are kept too.
  const limit = caller.limits?.listIds;
  if (limit) usable = usable.where('m.list_id', 'in', limit);
  const detached = await db
    .deleteFrom('task_list_items')
    .where('task_id', '=', taskId)
    .where('list_id', 'in', usable)
    .returning('list_id')
    .execute();
  await attachLists(db, taskId, listIds);
  return detached.map((r) => r.list_id);
}

const insertListItems = prepared((db, p: { taskId: number; listIds: ListParam }) =>
  db
    .insertInto('task_list_items')
    .columns(['task_id', 'list_id', 'priority', 'is_completed'])
    .expression(
      db
        .selectFrom('tasks as t')
        .innerJoin('task_statuses as s', 's.id', 't.status_id')
        .innerJoin('task_lists as l', (join) => join.on(inList(db, 'l.id', p.listIds)))
        .select(['t.id', 'l.id as list_id', 't.priority', 's.is_completed'])
        .where('t.id', '=', p.taskId),
    )
    .onConflict((oc) => oc.columns(['task_id', 'list_id']).doNothing()),
);

/** Attaches the task to the lists, copying its current priority and completion onto each item. */
export async function attachLists(db: Db, taskId: number, listIds: readonly number[]): Promise<void> {
  if (listIds.length > 0) await insertListItems(db, { taskId, listIds: listParam(db, listIds) });
}

/** Keeps the copies on the task's list items in step with a new priority or completion. */
export async function copyToListItems(
  db: Db,
  taskId: number,
  values: { priority?: Priority | null; isCompleted?: boolean },
): Promise<void> {
  const set = {
    ...(values.priority !== undefined && { priority: values.priority }),
    ...(values.isCompleted !== undefined && { is_completed: values.isCompleted ? 1 : 0 }),
  };
  if (Object.keys(set).length > 0)
    await db.updateTable('task_list_items').set(set).where('task_id', '=', taskId).execute();
}

const assigneeIdsOfTask = prepared((db, p: { taskId: number }) =>
  db.selectFrom('task_assignees').select('user_id').where('task_id', '=', p.taskId),
);

/** The task's assignees' ids (its reminders go to them). */
export async function assigneeIdsOf(db: Db, taskId: number): Promise<string[]> {
  return (await assigneeIdsOfTask(db, { taskId })).map((r) => r.user_id);
}
