/**
 * Task queries. A page of tasks costs a constant number of queries: one for the rows,
 * one for their assignees, one for their lists.
 */
import { sql, type SelectQueryBuilder } from 'kysely';
import type { Caller } from '../caller.js';
import { byNameThenId } from '../ids.js';
import type { Db, NewTask, TaskRow, Tables } from '../storage/schema.js';
import { inList, listParam, readLocked, type ListParam, type Locked, type RowLock } from '../storage/dialect.js';
import { prepared } from '../storage/prepared.js';
import { canAccess, mayAccessAllOf } from './access.js';
import type { Person, TaskDetail as ContractTaskDetail, TaskSummary } from '../contract/index.js';
import type { Priority } from '../contract/enums.js';

export type { Person, TaskSummary };

/** A task's detail, with its version: the basis of the ETag, which response schemas leave out. */
export type TaskDetail = ContractTaskDetail & { version: number };

export interface TaskFilter {
  taskListIds?: number[];
  assigneeIds?: string[];
  statusIds?: number[];
  priorities?: Priority[];
  isCompleted?: boolean;
  query?: string;
  dueDateFrom?: string;
  dueDateTo?: string;
  parentId?: number;
  limit: number;
}

const taskWithAccess = prepared((db, p: { taskId: number; teamId: string; userId: string }) =>
  db
    .selectFrom('tasks as t')
    .selectAll('t')
    .select((eb) => canAccess(eb, p.userId).as('accessible'))
    .where('t.id', '=', p.taskId)
    .where('t.team_id', '=', p.teamId),
);

/**
 * A task of this team, or undefined: another team's task is indistinguishable from a missing one.
 * `accessible` says whether the caller may read and change it.
 */
export async function findTask(
  db: Db,
  caller: Caller,
  taskId: number,
): Promise<(TaskRow & { accessible: boolean }) | undefined> {
  const [row] = await taskWithAccess(db, { taskId, teamId: caller.teamId, userId: caller.userId });
  return row && { ...row, accessible: Boolean(row.accessible) };
}

/**
 * `findTask` under the task's row lock, held until the transaction ends: how every change to a
 * task begins (`delete` when it will be deleted, `keep` for a parent a new task will point at).
 * A concurrent change of the same task waits here, then reads what the one before it committed.
 */
export async function findTaskLocked(
  trx: Db,
  caller: Caller,
  taskId: number,
  lock: RowLock,
): Promise<Locked<TaskRow & { accessible: boolean }> | undefined> {
  const row = trx.selectFrom('tasks').select('id').where('id', '=', taskId).where('team_id', '=', caller.teamId);
  return readLocked(trx, row, lock, () => findTask(trx, caller, taskId));
}

/** `%`, `_` and `\` in a search match themselves. */
export function likePattern(query: string): string {
  return `%${query.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

type TaskQuery = SelectQueryBuilder<Tables & { t: Tables['tasks'] }, 't', object>;

/**
 * Where the walk through the team's tasks starts. A single named list or assignee drives it
 * through its (list_id | user_id, task_id) index, newest first, so it stops at the limit and
 * its cost follows the rows returned, not the size of the team or of the assignee's history.
 * CROSS JOIN pins that join order on SQLite (which has no statistics to choose by);
 * PostgreSQL treats it as an inner join and plans by its statistics. Says which list or
 * assignee drives the walk, if one does: its rows are then `d`, ordered by `d.task_id`.
 */
function walk(db: Db, filter: TaskFilter): { query: TaskQuery; listId?: number; assigneeId?: string } {
  const [listId, ...moreLists] = filter.taskListIds ?? [];
  const [assigneeId, ...moreAssignees] = filter.assigneeIds ?? [];
  if (listId !== undefined && moreLists.length === 0) {
    const query = db
      .selectFrom('task_list_items as d')
      .crossJoin('tasks as t')
      .whereRef('t.id', '=', 'd.task_id')
      .where('d.list_id', '=', listId);
    return { query: query as unknown as TaskQuery, listId };
  }
  if (assigneeId !== undefined && moreAssignees.length === 0) {
    const query = db
      .selectFrom('task_assignees as d')
      .crossJoin('tasks as t')
      .whereRef('t.id', '=', 'd.task_id')
      .where('d.user_id', '=', assigneeId);
    return { query: query as unknown as TaskQuery, assigneeId };
  }
  // Otherwise the team's tasks newest first (tasks(team_id, id)), or the planner's better index.
  return { query: db.selectFrom('tasks as t') };
}

/** The caller's accessible tasks matching every filter, newest first (by id, descending). */
export async function findSummaries(db: Db, caller: Caller, filter: TaskFilter): Promise<TaskSummary[]> {
  const start = walk(db, filter);
  let query = start.query
    .innerJoin('task_statuses as s', 's.id', 't.status_id')
    .select([
      't.id',
      't.title',
      't.number',
      't.priority',
      't.due_date',
      't.parent_id',
      't.created_at',
      't.updated_at',
      's.id as status_id',
      's.name as status_name',
      's.is_completed',
    ])
    .where('t.team_id', '=', caller.teamId)
    // Checked per row with index probes, while the walk goes newest first and stops at the limit;
    // walking a list the caller is a member of, once for all of its rows.
    .where((eb) =>
      start.listId === undefined
        ? canAccess(eb, caller.userId)
        : eb.or([mayAccessAllOf(eb, start.listId, caller.userId), canAccess(eb, caller.userId)]),
    );

  if (filter.taskListIds?.length && start.listId === undefined) {
    query = query.where(
      't.id',
      'in',
      db.selectFrom('task_list_items').select('task_id').where('list_id', 'in', filter.taskListIds),
    );
  }
  if (filter.assigneeIds?.length && start.assigneeId === undefined) {
    query = query.where(
      't.id',
      'in',
      db.selectFrom('task_assignees').select('task_id').where('user_id', 'in', filter.assigneeIds),
    );
  }
  if (filter.statusIds?.length) query = query.where('t.status_id', 'in', filter.statusIds);
  // Walking one list, priority and completion are read from its index entries (their copies on
  // task_list_items), so only matching tasks are ever read.
  const copies = start.listId !== undefined;
  if (filter.priorities?.length) {
    query = query.where(sql.ref(copies ? 'd.priority' : 't.priority'), 'in', filter.priorities);
  }
  if (filter.isCompleted !== undefined) {
    query = query.where(sql.ref(copies ? 'd.is_completed' : 's.is_completed'), '=', filter.isCompleted ? 1 : 0);
  }
  if (filter.dueDateFrom !== undefined) query = query.where('t.due_date', '>=', filter.dueDateFrom);
  if (filter.dueDateTo !== undefined) query = query.where('t.due_date', '<=', filter.dueDateTo);
  if (filter.parentId !== undefined) query = query.where('t.parent_id', '=', filter.parentId);
  if (filter.query) {
    query = query.where(sql<boolean>`t.title_search like ${likePattern(filter.query)} escape '\\'`);
  }

  const driven = start.listId !== undefined || start.assigneeId !== undefined;
  const rows = await query
    .orderBy(sql.ref(driven ? 'd.task_id' : 't.id'), 'desc')
    .limit(filter.limit)
    .execute();
  const taskIds = rows.map((r) => r.id);
  const [assignees, taskLists] = await Promise.all([assigneesOf(db, taskIds), visibleListsOf(db, caller, taskIds)]);
  return rows.map((r) => ({
    id: r.id,
    title: r.title,
    number: r.number,
    priority: r.priority,
    dueDate: r.due_date,
    parentId: r.parent_id,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    isCompleted: Boolean(r.is_completed),
    status: { id: r.status_id, name: r.status_name },
    assignees: assignees.get(r.id) ?? [],
    taskLists: taskLists.get(r.id) ?? [],
  }));
}

function groupBy<T extends { task_id: number }, V>(rows: T[], toValue: (row: T) => V): Map<number, V[]> {
  const groups = new Map<number, V[]>();
  for (const row of rows) {
    const group = groups.get(row.task_id);
    if (group) group.push(toValue(row));
    else groups.set(row.task_id, [toValue(row)]);
  }
  return groups;
}

const assigneeRows = (db: Db) =>
  db
    .selectFrom('task_assignees as a')
    .innerJoin('users as u', 'u.id', 'a.user_id')
    .select(['a.task_id', 'u.id', 'u.name', 'u.email']);
// One task (a detail) by equality: about 10% cheaper than reading a one-element list.
const assigneesOfOne = prepared((db, p: { taskId: number }) => assigneeRows(db).where('a.task_id', '=', p.taskId));
const assigneesOfMany = prepared((db, p: { taskIds: ListParam }) =>
  assigneeRows(db).where(inList(db, 'a.task_id', p.taskIds)),
);

/** Assignees of each task, by name. */
async function assigneesOf(db: Db, taskIds: number[]): Promise<Map<number, Person[]>> {
  if (taskIds.length === 0) return new Map();
  const rows =
    taskIds.length === 1
      ? await assigneesOfOne(db, { taskId: taskIds[0]! })
      : await assigneesOfMany(db, { taskIds: listParam(db, taskIds) });
  const groups = groupBy(rows, (r) => ({ id: r.id, name: r.name, email: r.email }));
  for (const people of groups.values()) people.sort(byNameThenId);
  return groups;
}

/**
 * From the tasks' list items (by task id), checking membership per row: never from the
 * caller's memberships, which can be many. The name of a list is never shown to someone
 * outside it.
 */
const visibleListRows = (db: Db, userId: string) =>
  db
    .selectFrom('task_list_items as i')
    .innerJoin('task_lists as l', 'l.id', 'i.list_id')
    .select(['i.task_id', 'l.id', 'l.name'])
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('list_members as m')
          .select('m.list_id')
          .whereRef('m.list_id', '=', 'i.list_id')
          .where('m.user_id', '=', userId),
      ),
    )
    .orderBy('l.id');
const visibleListsOfOne = prepared((db, p: { taskId: number; userId: string }) =>
  visibleListRows(db, p.userId).where('i.task_id', '=', p.taskId),
);
const visibleListsOfMany = prepared((db, p: { taskIds: ListParam; userId: string }) =>
  visibleListRows(db, p.userId).where(inList(db, 'i.task_id', p.taskIds)),
);

/** Lists each task is attached to, limited to lists the caller is a member of. */
async function visibleListsOf(
  db: Db,
  caller: Caller,
  taskIds: number[],
): Promise<Map<number, { id: number; name: string }[]>> {
  if (taskIds.length === 0) return new Map();
  const rows =
    taskIds.length === 1
      ? await visibleListsOfOne(db, { taskId: taskIds[0]!, userId: caller.userId })
      : await visibleListsOfMany(db, { taskIds: listParam(db, taskIds), userId: caller.userId });
  return groupBy(rows, (r) => ({ id: r.id, name: r.name }));
}

const detailRow = prepared((db, p: { taskId: number; teamId: string; userId: string }) =>
  db
    .selectFrom('tasks as t')
    .innerJoin('task_statuses as s', 's.id', 't.status_id')
    .innerJoin('users as c', 'c.id', 't.created_by')
    .selectAll('t')
    .select((eb) => [
      's.name as status_name',
      's.color as status_color',
      's.is_completed',
      'c.name as creator_name',
      'c.email as creator_email',
      canAccess(eb, p.userId).as('accessible'),
    ])
    .where('t.id', '=', p.taskId)
    .where('t.team_id', '=', p.teamId),
);

const accessibleParent = prepared((db, p: { parentId: number; userId: string }) =>
  db
    .selectFrom('tasks as t')
    .select(['t.id', 't.number', 't.title'])
    .where('t.id', '=', p.parentId)
    .where((eb) => canAccess(eb, p.userId)),
);

const accessibleSubtaskCount = prepared((db, p: { taskId: number; userId: string }) =>
  db
    .selectFrom('tasks as t')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('t.parent_id', '=', p.taskId)
    .where((eb) => canAccess(eb, p.userId)),
);

/**
 * The full detail of one task of the caller's team; 'forbidden' when the caller may not access
 * it, undefined when the team has no such task. The access check rides on the row's query.
 */
export async function findDetail(
  db: Db,
  caller: Caller,
  taskId: number,
): Promise<TaskDetail | 'forbidden' | undefined> {
  const [row] = await detailRow(db, { taskId, teamId: caller.teamId, userId: caller.userId });
  if (!row) return undefined;
  if (!row.accessible) return 'forbidden';

  const [assignees, taskLists, [parent], [subtasks]] = await Promise.all([
    assigneesOf(db, [taskId]),
    visibleListsOf(db, caller, [taskId]),
    row.parent_id === null ? [] : accessibleParent(db, { parentId: row.parent_id, userId: caller.userId }),
    accessibleSubtaskCount(db, { taskId, userId: caller.userId }),
  ]);

  return toDetail(row, {
    status: {
      id: row.status_id,
      name: row.status_name,
      color: row.status_color,
      isCompleted: Boolean(row.is_completed),
    },
    createdBy: { id: row.created_by, name: row.creator_name, email: row.creator_email },
    assignees: assignees.get(taskId) ?? [],
    taskLists: taskLists.get(taskId) ?? [],
    parent: parent ?? null,
    subtaskCount: Number(subtasks!.n),
  });
}

/** A task's detail from its row and the parts read (or, for a new task, already known) beside it. */
export function toDetail(
  row: TaskRow,
  parts: Pick<TaskDetail, 'status' | 'createdBy' | 'assignees' | 'taskLists' | 'parent' | 'subtaskCount'>,
): TaskDetail {
  return {
    id: row.id,
    number: row.number,
    title: row.title,
    description: row.description,
    priority: row.priority,
    dueDate: row.due_date,
    parentId: row.parent_id,
    parent: parts.parent,
    subtaskCount: parts.subtaskCount,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    isCompleted: parts.status.isCompleted,
    taskStatusId: row.status_id,
    status: parts.status,
    assignees: parts.assignees,
    taskLists: parts.taskLists,
    createdBy: parts.createdBy,
    version: row.version,
  };
}

/** Every column of a new task but those with defaults (id, version). */
export type NewTaskValues = Required<Omit<NewTask, 'id' | 'version'>>;

const insertTaskRow = prepared((db, p: NewTaskValues) =>
  db
    .insertInto('tasks')
    .values({
      team_id: p.team_id,
      number: p.number,
      title: p.title,
      title_search: p.title_search,
      description: p.description,
      priority: p.priority,
      due_date: p.due_date,
      status_id: p.status_id,
      parent_id: p.parent_id,
      created_by: p.created_by,
      created_at: p.created_at,
      updated_at: p.updated_at,
    })
    .returningAll(),
);

export async function insertTask(db: Db, task: NewTaskValues): Promise<TaskRow> {
  const [row] = await insertTaskRow(db, task);
  return row!;
}

export type TaskChanges = Partial<
  Pick<TaskRow, 'title' | 'title_search' | 'description' | 'priority' | 'due_date' | 'status_id'>
>;

/** Applies the changes, stamps updated_at and bumps the version; returns the row as it now is. */
export async function updateTask(db: Db, taskId: number, changes: TaskChanges): Promise<TaskRow> {
  return db
    .updateTable('tasks')
    .set((eb) => ({ ...changes, updated_at: new Date().toISOString(), version: eb('version', '+', 1) }))
    .where('id', '=', taskId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function addAssignees(db: Db, taskId: number, userIds: readonly string[]): Promise<void> {
  if (userIds.length > 0) {
    await db
      .insertInto('task_assignees')
      .values(userIds.map((user_id) => ({ task_id: taskId, user_id })))
      .execute();
  }
}

export async function replaceAssignees(db: Db, taskId: number, userIds: readonly string[]): Promise<void> {
  await db.deleteFrom('task_assignees').where('task_id', '=', taskId).execute();
  await addAssignees(db, taskId, userIds);
}

/**
 * Replaces the task's lists among those the caller may use (member of, not archived).
 * Attachments to lists the caller cannot see are kept, since the caller never saw them;
 * so are attachments to archived lists, which come back with the list when it is unarchived.
 */
export async function replaceUsableLists(
  db: Db,
  caller: Caller,
  taskId: number,
  listIds: readonly number[],
): Promise<void> {
  const usable = db
    .selectFrom('list_members as m')
    .innerJoin('task_lists as l', 'l.id', 'm.list_id')
    .select('m.list_id')
    .where('m.user_id', '=', caller.userId)
    .where('l.is_archived', '=', 0);
  await db.deleteFrom('task_list_items').where('task_id', '=', taskId).where('list_id', 'in', usable).execute();
  await attachLists(db, taskId, listIds);
}

/** Attaches the task to the lists, copying its current priority and completion onto each item. */
export async function attachLists(db: Db, taskId: number, listIds: readonly number[]): Promise<void> {
  if (listIds.length > 0) {
    await db
      .insertInto('task_list_items')
      .columns(['task_id', 'list_id', 'priority', 'is_completed'])
      .expression(
        db
          .selectFrom('tasks as t')
          .innerJoin('task_statuses as s', 's.id', 't.status_id')
          .innerJoin('task_lists as l', (join) => join.on('l.id', 'in', listIds))
          .select(['t.id', 'l.id as list_id', 't.priority', 's.is_completed'])
          .where('t.id', '=', taskId),
      )
      .onConflict((oc) => oc.columns(['task_id', 'list_id']).doNothing())
      .execute();
  }
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

/** Deletes a task; its subtasks stay and become top-level tasks. */
export async function deleteTask(db: Db, taskId: number): Promise<void> {
  await db
    .updateTable('tasks')
    .set((eb) => ({ parent_id: null, updated_at: new Date().toISOString(), version: eb('version', '+', 1) }))
    .where('parent_id', '=', taskId)
    .execute();
  await db.deleteFrom('tasks').where('id', '=', taskId).execute();
}

export async function subtaskIdsOf(db: Db, taskId: number): Promise<number[]> {
  const rows = await db.selectFrom('tasks').select('id').where('parent_id', '=', taskId).orderBy('id').execute();
  return rows.map((r) => r.id);
}
