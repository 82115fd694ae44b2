/**
 * Task rows: reads within the caller's team (with whether the caller may access the task), and
 * writes from camelCase values, mapped to columns here (`title_search` included). The service
 * takes from a row its id, access flag and version (If-Match), and for a change's activity its
 * fields as they were (task-activity.ts); the presenter
 * (tasks.presenter.ts) shapes it into the API's answers.
 *
 * Missing and forbidden: a read returns undefined for a task that is missing or in another
 * team, and a row with `accessible: false` for one the caller may not access.
 */
import { sql, type SqlBool } from 'kysely';
import type { Caller } from '../caller.js';
import type { Priority } from '../contract/enums.js';
import type { Person } from '../contract/index.js';
import {
  fromJson,
  inList,
  jsonRow,
  jsonRows,
  listParam,
  numberAtInsert,
  readLocked,
  type Locked,
  type RowLock,
} from '../storage/dialect.js';
import { prepared, preparedVariants } from '../storage/prepared.js';
import type { ListParam } from '../storage/dialect.js';
import type { Db, TaskRow } from '../storage/schema.js';
import { canAccessWithin, listLimitOf } from './access.js';
import { byNameThenId } from '../ids.js';
import {
  assigneesOf,
  assigneesOfTask,
  visibleListsOf,
  visibleListsOfTask,
  type ListRef,
} from './task-links.repository.js';
import { byLabelName, type Label } from '../labels/labels.repository.js';
import { labelsOf, labelsOfTask } from '../labels/task-labels.repository.js';

/**
 * A task row with its status's name (for the activity of a status change) and completion (a
 * change copies a new one to the list items), and whether the caller may read and change it.
 */
export type TaskRecord = TaskRow & { status_name: string; status_is_completed: number; accessible: boolean };

type WithAccess<T> = Omit<T, 'accessible'> & { accessible: boolean };

/** The row, if any, with its access check (0/1 on SQLite) as a boolean: set in place, so nothing is copied. */
function withAccess<T extends { accessible: SqlBool }>(row: T | undefined): WithAccess<T> | undefined {
  if (row) (row as { accessible: SqlBool }).accessible = Boolean(row.accessible);
  return row as WithAccess<T> | undefined;
}

/** Who reads, and within which lists: `limit` (a key's list limit, issue 33) is used where `limited`. */
type ReaderParams = { taskId: number; teamId: string; userId: string; limit: ListParam | null };

const readerOf = (db: Db, caller: Caller, taskId: number): [ReaderParams, boolean] => {
  const limit = listLimitOf(db, caller);
  return [{ taskId, teamId: caller.teamId, userId: caller.userId, limit: limit ?? null }, limit !== undefined];
};

/** The limit of `p` where the query's shape is the limited one (a placeholder while it compiles). */
const limitOf = (p: ReaderParams, limited: boolean): ListParam | undefined => (limited ? p.limit! : undefined);

const taskWithAccess = preparedVariants((db, p: ReaderParams, limited) =>
  db
    .selectFrom('tasks as t')
    .innerJoin('task_statuses as s', 's.id', 't.status_id')
    .selectAll('t')
    .select((eb) => [
      's.name as status_name',
      's.is_completed as status_is_completed',
      canAccessWithin(db, eb, p.userId, limitOf(p, limited)).as('accessible'),
    ])
    .where('t.id', '=', p.taskId)
    .where('t.team_id', '=', p.teamId),
);

/** A task of this team, or undefined: another team's task is indistinguishable from a missing one. */
export async function findTask(db: Db, caller: Caller, taskId: number): Promise<TaskRecord | undefined> {
  const [row] = await taskWithAccess(db, ...readerOf(db, caller, taskId));
  return withAccess(row);
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
): Promise<Locked<TaskRecord> | undefined> {
  const row = trx.selectFrom('tasks').select('id').where('id', '=', taskId).where('team_id', '=', caller.teamId);
  return readLocked(trx, row, lock, () => findTask(trx, caller, taskId));
}

const accessibleParent = (db: Db, p: ReaderParams, limit: ListParam | undefined) =>
  db
    .selectFrom('tasks as t')
    .select(['t.id', 't.number', 't.title'])
    .where('t.id', '=', db.selectFrom('tasks as c').select('c.parent_id').where('c.id', '=', p.taskId))
    .where((eb) => canAccessWithin(db, eb, p.userId, limit));

const accessibleSubtaskCount = (db: Db, p: ReaderParams, limit: ListParam | undefined) =>
  db
    .selectFrom('tasks as t')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('t.parent_id', '=', p.taskId)
    .where((eb) => canAccessWithin(db, eb, p.userId, limit));

/** The task's attachments (issue 31), from the (task_id, id) index. */
const attachmentCount = (db: Db, p: { taskId: number }) =>
  db
    .selectFrom('attachments as a')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('a.task_id', '=', p.taskId);

/** Task rows with their status and creator, as a detail shows them. */
const withStatusAndCreator = (db: Db) =>
  db
    .selectFrom('tasks as t')
    .innerJoin('task_statuses as s', 's.id', 't.status_id')
    .innerJoin('users as c', 'c.id', 't.created_by')
    .selectAll('t')
    .select([
      's.name as status_name',
      's.color as status_color',
      's.is_completed',
      'c.name as creator_name',
      'c.email as creator_email',
    ]);

/**
 * A task's detail in one statement: the row with its status and creator, the access check, and
 * its parts (assignees, visible lists, accessible parent, accessible subtasks) as JSON columns.
 * Each part is read by the task id, never through the row, so its rules are the same as when
 * it was a statement of its own. The parts of a task the caller may not access are read too,
 * and dropped by the service before anything is shown (it answers 403).
 */
const detailRow = preparedVariants((db, p: ReaderParams, limited) => {
  const limit = limitOf(p, limited);
  return withStatusAndCreator(db)
    .select((eb) => [
      canAccessWithin(db, eb, p.userId, limit).as('accessible'),
      jsonRows(db, assigneesOfTask(db, p.taskId)).as('assignees'),
      jsonRows(db, visibleListsOfTask(db, p.taskId, p.userId, limit)).as('task_lists'),
      jsonRows(db, labelsOfTask(db, p.taskId)).as('labels'),
      jsonRow(db, accessibleParent(db, p, limit)).as('parent'),
      accessibleSubtaskCount(db, p, limit).as('subtask_count'),
      attachmentCount(db, p).as('attachment_count'),
    ])
    .where('t.id', '=', p.taskId)
    .where('t.team_id', '=', p.teamId);
});

type DetailQueryRow = Awaited<ReturnType<typeof detailRow>>[number];

/** A task row with its status and creator, for a detail. */
export type DetailRow = WithAccess<
  Omit<DetailQueryRow, 'assignees' | 'task_lists' | 'labels' | 'parent' | 'subtask_count' | 'attachment_count'>
>;

export type ParentRow = Pick<TaskRow, 'id' | 'number' | 'title'>;

/** What a detail shows beside the task's row, as the caller may see it. */
export interface DetailParts {
  assignees: Person[];
  taskLists: ListRef[];
  labels: Label[];
  /** Null when there is none or the caller cannot access it. */
  parent: ParentRow | null;
  subtaskCount: number;
  attachmentCount: number;
}

/**
 * The task with its status, creator and parts (`DetailParts`), as `findTask`: undefined when
 * missing or another team's, `accessible: false` when the caller may not access it.
 */
export async function findDetail(
  db: Db,
  caller: Caller,
  taskId: number,
): Promise<(DetailRow & { parts: DetailParts }) | undefined> {
  const [found] = await detailRow(db, ...readerOf(db, caller, taskId));
  if (!found) return undefined;
  const { assignees, task_lists, labels, parent, subtask_count, attachment_count, ...row } = found;
  const parts: DetailParts = {
    assignees: fromJson(assignees).sort(byNameThenId),
    taskLists: fromJson(task_lists).sort((a, b) => a.id - b.id),
    labels: fromJson(labels).sort(byLabelName),
    parent: fromJson(parent) ?? null,
    subtaskCount: Number(subtask_count),
    attachmentCount: Number(attachment_count),
  };
  return Object.assign(withAccess(row)!, { parts });
}

/** Who reads a page of tasks, and within which lists (as `ReaderParams`, for many tasks). */
type PageReaderParams = { taskIds: ListParam; teamId: string; userId: string; limit: ListParam | null };

/** The rows of `detailRow` without its parts, for many tasks. */
const detailRowsOfMany = preparedVariants((db, p: PageReaderParams, limited) =>
  withStatusAndCreator(db)
    .select((eb) => canAccessWithin(db, eb, p.userId, limited ? p.limit! : undefined).as('accessible'))
    .where(inList(db, 't.id', p.taskIds))
    .where('t.team_id', '=', p.teamId),
);

/** Each task's parent (`task_id`'s), where the reader may access it: `accessibleParent` for many tasks. */
const accessibleParentsOfMany = preparedVariants((db, p: PageReaderParams, limited) =>
  db
    .selectFrom('tasks as t')
    .innerJoin('tasks as ch', 'ch.parent_id', 't.id')
    .select(['ch.id as task_id', 't.id', 't.number', 't.title'])
    .where(inList(db, 'ch.id', p.taskIds))
    .where((eb) => canAccessWithin(db, eb, p.userId, limited ? p.limit! : undefined)),
);

/** Each task's subtasks the reader may access, counted: `accessibleSubtaskCount` for many tasks. */
const accessibleSubtaskCountsOfMany = preparedVariants((db, p: PageReaderParams, limited) =>
  db
    .selectFrom('tasks as t')
    .select((eb) => ['t.parent_id', eb.fn.countAll().as('n')])
    .where(inList(db, 't.parent_id', p.taskIds))
    .where((eb) => canAccessWithin(db, eb, p.userId, limited ? p.limit! : undefined))
    .groupBy('t.parent_id'),
);

/** Each task's attachments, counted: `attachmentCount` for many tasks. */
const attachmentCountsOfMany = prepared((db, p: { taskIds: ListParam }) =>
  db
    .selectFrom('attachments as a')
    .select((eb) => ['a.task_id', eb.fn.countAll().as('n')])
    .where(inList(db, 'a.task_id', p.taskIds))
    .groupBy('a.task_id'),
);

/**
 * `findDetail` for many tasks at once, by task id: the same rows and parts (same order, same
 * access rules, the caller's list limit too), in seven statements whatever the number of tasks.
 * It exists for exports (exports/export-writer.ts), which showed each task's detail with a
 * statement per task, nearly all of an export's time on PostgreSQL. GET /v1/tasks/{id} keeps
 * `findDetail`'s one statement. A missing task, or another team's, is absent from the map.
 */
export async function findDetails(
  db: Db,
  caller: Caller,
  taskIds: readonly number[],
): Promise<Map<number, DetailRow & { parts: DetailParts }>> {
  const details = new Map<number, DetailRow & { parts: DetailParts }>();
  if (taskIds.length === 0) return details;
  const limit = listLimitOf(db, caller);
  const ids = [...taskIds];
  const p: PageReaderParams = {
    taskIds: listParam(db, ids),
    teamId: caller.teamId,
    userId: caller.userId,
    limit: limit ?? null,
  };
  const limited = limit !== undefined;
  const rows = await detailRowsOfMany(db, p, limited);
  if (rows.length === 0) return details;
  const assignees = await assigneesOf(db, ids);
  const taskLists = await visibleListsOf(db, caller, ids);
  const labels = await labelsOf(db, ids);
  const parents = new Map<number, ParentRow>();
  for (const { task_id, ...parent } of await accessibleParentsOfMany(db, p, limited)) parents.set(task_id, parent);
  const subtaskCounts = new Map<number, number>();
  for (const { parent_id, n } of await accessibleSubtaskCountsOfMany(db, p, limited)) {
    if (parent_id !== null) subtaskCounts.set(parent_id, Number(n));
  }
  const attachmentCounts = new Map<number, number>();
  for (const { task_id, n } of await attachmentCountsOfMany(db, { taskIds: p.taskIds })) {
    attachmentCounts.set(task_id, Number(n));
  }
  for (const row of rows) {
    const parts: DetailParts = {
      // Sorted as findDetail sorts them, whatever order the page loaders read them in.
      assignees: (assignees.get(row.id) ?? []).sort(byNameThenId),
      taskLists: (taskLists.get(row.id) ?? []).sort((a, b) => a.id - b.id),
      labels: (labels.get(row.id) ?? []).sort(byLabelName),
      parent: parents.get(row.id) ?? null,
      subtaskCount: subtaskCounts.get(row.id) ?? 0,
      attachmentCount: attachmentCounts.get(row.id) ?? 0,
    };
    details.set(row.id, Object.assign(withAccess(row)!, { parts }));
  }
  return details;
}

/** A new task; it is last updated when it is created. Its number comes later (`recordEvent`). */
export interface NewTaskValues {
  teamId: string;
  title: string;
  description: string | null;
  priority: Priority | null;
  dueDate: string | null;
  statusId: number;
  parentId: number | null;
  createdBy: string;
  createdAt: string;
}

const insertTaskRow = prepared((db, p: Omit<TaskRow, 'id' | 'version' | 'number'>) =>
  db
    .insertInto('tasks')
    .values({
      team_id: p.team_id,
      number: numberAtInsert(db, p.team_id),
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

/** The title folded to lower case, which search matches against (storage/schema.ts). */
const titleSearch = (title: string): string => title.toLowerCase();

/** Inserts the task, numbered as the engine does it (dialect.ts, `numberAtInsert`). */
export async function insertTask(db: Db, task: NewTaskValues): Promise<TaskRow> {
  const [row] = await insertTaskRow(db, {
    team_id: task.teamId,
    title: task.title,
    title_search: titleSearch(task.title),
    description: task.description,
    priority: task.priority,
    due_date: task.dueDate,
    status_id: task.statusId,
    parent_id: task.parentId,
    created_by: task.createdBy,
    created_at: task.createdAt,
    updated_at: task.createdAt,
  });
  return row!;
}

/** The fields a change may set; a field left undefined is left as it is. */
export interface TaskChanges {
  title?: string;
  description?: string | null;
  priority?: Priority | null;
  dueDate?: string | null;
  statusId?: number;
}

/** Applies the changes, stamps updated_at and bumps the version; returns the row as it now is. */
export async function updateTask(db: Db, taskId: number, changes: TaskChanges): Promise<TaskRow> {
  // Columns in this order, as the statement has always named them.
  const columns = {
    ...(changes.title !== undefined && { title: changes.title, title_search: titleSearch(changes.title) }),
    ...(changes.description !== undefined && { description: changes.description }),
    ...(changes.priority !== undefined && { priority: changes.priority }),
    ...(changes.dueDate !== undefined && { due_date: changes.dueDate }),
    ...(changes.statusId !== undefined && { status_id: changes.statusId }),
  };
  return db
    .updateTable('tasks')
    .set((eb) => ({ ...columns, updated_at: new Date().toISOString(), version: eb('version', '+', 1) }))
    .where('id', '=', taskId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Deletes a task; its subtasks stay and become top-level tasks. */
export async function deleteTask(db: Db, taskId: number): Promise<void> {
  // Its attachments' rows go with it (ON DELETE CASCADE): their bytes leave the team's quota now,
  // and their files become orphans that the reconciliation deletes (attachments/reconcile.ts).
  await db
    .updateTable('teams')
    .set({
      attachment_bytes: sql`attachment_bytes - (select coalesce(sum(a.size), 0) from attachments a where a.task_id = ${taskId})`,
    })
    .where('id', '=', db.selectFrom('tasks').select('team_id').where('id', '=', taskId))
    .where(sql<boolean>`exists (select 1 from attachments a where a.task_id = ${taskId})`)
    .execute();
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
