/**
 * The planner of GET /v1/tasks: where the walk through the team's tasks starts, and the filters
 * on it. A page of tasks is one statement, and the database writes its JSON: each row is the
 * task's summary as the API shows it (contract TaskSummary), assignees and visible lists nested,
 * so the server only joins the rows' text. Per row, that was what cost: making each column a
 * JavaScript value, then objects, then JSON again took more CPU than SQLite's index reads
 * (BENCHMARKS.md, issue 15).
 */
import { sql, type ExpressionBuilder, type SelectQueryBuilder } from 'kysely';
import type { Caller } from '../caller.js';
import { PRIORITIES, type Priority } from '../contract/enums.js';
import type { LabelledTaskSummary, TaskSortKey } from '../contract/index.js';
import { labelsOf, labelsOfRow, tasksWithAnyLabel } from '../labels/task-labels.repository.js';
import { jsonBoolean, jsonObject, jsonRows, jsonText, writesJsonInProcess } from '../storage/dialect.js';
import type { Db, Tables } from '../storage/schema.js';
import { sortExpression } from '../storage/task-order.js';
import { titleSearchWalk } from '../storage/title-search.js';
import { canAccess, listLimitOf, mayAccessAllOf, onLimitLists } from './access.js';
import { assigneesOf, assigneesOfRow, visibleListsOf, visibleListsOfRow } from './task-links.repository.js';
import { presentSummaries, type SummaryRows } from './tasks.presenter.js';

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
  /** Tasks carrying any of these labels. */
  labelIds?: number[];
  /** Each row also carries its labels (`include=labels`). */
  withLabels?: boolean;
  limit: number;
  sort?: TaskSort;
}

/** A `sort=` order, and where its page starts (the cursor: after this task, at this sort value). */
export interface TaskSort {
  key: TaskSortKey;
  descending: boolean;
  after?: SortPosition;
}

/** A task's place in a sorted order: its sort value (null: it has none) and its id, the tie-breaker. */
export interface SortPosition {
  value: string | number | null;
  id: number;
}

/** The sorts whose values may be empty: those tasks come last, whichever the direction. */
export const NULLABLE_SORTS: ReadonlySet<TaskSortKey> = new Set(['dueDate', 'priority']);

/** A search as title_search holds titles: folded to lower case. */
const searchText = (query: string): string => query.toLowerCase();

/** `%`, `_` and `\` in a search match themselves. */
function likePattern(query: string): string {
  return `%${searchText(query).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

type TaskQuery = SelectQueryBuilder<Tables & { t: Tables['tasks'] }, 't', object>;
type SummaryScope = ExpressionBuilder<Tables & { t: Tables['tasks']; s: Tables['task_statuses'] }, 't' | 's'>;

/**
 * Task `t` (status `s`) as the API's TaskSummary, in JSON text: its keys in the schema's order,
 * assignees by name then id, and only the lists `userId` is a member of, by id (the same parts,
 * by the same rules, as a task's detail); its labels after them only when asked (`withLabels`).
 */
function summaryJson(db: Db, eb: SummaryScope, caller: Caller, withLabels: boolean) {
  return jsonText(
    db,
    jsonObject(db, {
      id: eb.ref('t.id'),
      title: eb.ref('t.title'),
      number: eb.ref('t.number'),
      priority: eb.ref('t.priority'),
      dueDate: eb.ref('t.due_date'),
      parentId: eb.ref('t.parent_id'),
      createdAt: eb.ref('t.created_at'),
      updatedAt: eb.ref('t.updated_at'),
      isCompleted: jsonBoolean(db, 's.is_completed'),
      assignees: jsonRows(db, assigneesOfRow(db)),
      taskLists: jsonRows(db, visibleListsOfRow(db, caller.userId, listLimitOf(db, caller))),
      status: jsonObject(db, { id: eb.ref('s.id'), name: eb.ref('s.name') }),
      ...(withLabels && { labels: jsonRows(db, labelsOfRow(db)) }),
    }),
  );
}

/**
 * Where the walk through the team's tasks starts. A single named list or assignee drives it
 * through its (list_id | user_id, task_id) index, newest first, so it stops at the limit and
 * its cost follows the rows returned, not the size of the team or of the assignee's history.
 * Otherwise a search of 3 or more characters drives it through the titles' trigram index
 * (storage/title-search.ts) where the engine needs telling (SQLite), so a rare word costs the
 * same in a team of 10k tasks or 1M; a common one stops at the limit as the plain walk does
 * (BENCHMARKS.md, issue 15). A list or assignee still comes first: it bounds the walk already,
 * and the index would read the word's matches in every team.
 * CROSS JOIN pins that join order on SQLite (which has no statistics to choose by);
 * PostgreSQL treats it as an inner join and plans by its statistics. Says which list or
 * assignee drives the walk, if one does, and the column that orders it newest first.
 */
function walk(db: Db, filter: TaskFilter): { query: TaskQuery; order: string; listId?: number; assigneeId?: string } {
  const [listId, ...moreLists] = filter.taskListIds ?? [];
  const [assigneeId, ...moreAssignees] = filter.assigneeIds ?? [];
  if (listId !== undefined && moreLists.length === 0) {
    const query = db
      .selectFrom('task_list_items as d')
      .crossJoin('tasks as t')
      .whereRef('t.id', '=', 'd.task_id')
      .where('d.list_id', '=', listId);
    return { query: query as unknown as TaskQuery, order: 'd.task_id', listId };
  }
  if (assigneeId !== undefined && moreAssignees.length === 0) {
    const query = db
      .selectFrom('task_assignees as d')
      .crossJoin('tasks as t')
      .whereRef('t.id', '=', 'd.task_id')
      .where('d.user_id', '=', assigneeId);
    return { query: query as unknown as TaskQuery, order: 'd.task_id', assigneeId };
  }
  const searched = filter.query ? titleSearchWalk(db, searchText(filter.query)) : undefined;
  if (searched) return { query: searched as unknown as TaskQuery, order: 'd.rowid' };
  // Otherwise the team's tasks newest first (tasks(team_id, id)), or the planner's better index.
  return { query: db.selectFrom('tasks as t'), order: 't.id' };
}

/** The caller's accessible tasks matching every filter: `t`, and its status `s`; and the column of the walk's order. */
function matchingTasks(db: Db, caller: Caller, filter: TaskFilter) {
  const start = walk(db, filter);
  const limit = listLimitOf(db, caller);
  let query = start.query
    .innerJoin('task_statuses as s', 's.id', 't.status_id')
    .where('t.team_id', '=', caller.teamId)
    // Checked per row with index probes, while the walk goes newest first and stops at the limit;
    // walking a list the caller is a member of, once for all of its rows.
    .where((eb) =>
      start.listId === undefined
        ? canAccess(eb, caller.userId)
        : eb.or([mayAccessAllOf(eb, start.listId, caller.userId), canAccess(eb, caller.userId)]),
    );
  // A key limited to lists (issue 33): only tasks on one of them, whatever else would let it in.
  if (limit !== undefined) query = query.where((eb) => onLimitLists(db, eb, limit));

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
  if (filter.labelIds?.length) query = query.where('t.id', 'in', tasksWithAnyLabel(db, filter.labelIds));
  if (filter.query) {
    query = query.where(sql<boolean>`t.title_search like ${likePattern(filter.query)} escape '\\'`);
  }

  return { query, order: start.order };
}

type Matching = ReturnType<typeof matchingTasks>['query'];

/**
 * A page's statements, run one after another while the page has room: each takes the rows it
 * may still add. Without `sort`, one: newest first, as published. With one, its order by value
 * then id, from the cursor on, one row past the limit (so the page knows whether more remain).
 * Each statement is a range of one index (migration 0019), read in order from the cursor:
 * - a sort's tasks that have a value, by (value, id); those without one after them, by id;
 * - priority, which has four values, one value at a time by id (a row-value range over an
 *   expression of the priority would not seek on SQLite, so a deep page would read every task
 *   before it), then the tasks without one.
 */
function pageParts(db: Db, caller: Caller, filter: TaskFilter): ((rows: number) => Matching)[] {
  const { query, order } = matchingTasks(db, caller, filter);
  const sort = filter.sort;
  if (!sort) return [(rows) => query.orderBy(sql.ref(order), 'desc').limit(rows)];
  const value = sortExpression(db, sort.key);
  const direction = sort.descending ? 'desc' : 'asc';
  const past = sort.descending ? '<' : '>';
  const after = sort.after;
  /** The tasks of `part` by id, after `afterId` if given. */
  const byId = (part: Matching, afterId?: number) => (rows: number) =>
    (afterId === undefined ? part : part.where('t.id', past, afterId)).orderBy('t.id', direction).limit(rows);
  const withoutValue = query.where(sql<boolean>`${value} is null`);
  if (sort.key === 'priority') {
    const values = [...(sort.descending ? [...PRIORITIES].reverse() : PRIORITIES), null];
    const from = after ? values.indexOf(after.value as Priority | null) : 0;
    return values
      .slice(from)
      .map((priority, i) =>
        byId(
          priority === null ? withoutValue : query.where('t.priority', '=', priority),
          i === 0 ? after?.id : undefined,
        ),
      );
  }
  if (after?.value === null) return [byId(withoutValue, after.id)];
  const withValue = (rows: number) => {
    let part = NULLABLE_SORTS.has(sort.key) ? query.where(sql<boolean>`${value} is not null`) : query;
    // number never ties (unique in a team), so its value alone is a position.
    if (after && sort.key === 'number') part = part.where(sql<boolean>`${value} ${sql.raw(past)} ${after.value}`);
    else if (after) part = part.where(sql<boolean>`(${value}, t.id) ${sql.raw(past)} (${after.value}, ${after.id})`);
    part = part.orderBy(value, direction);
    return (sort.key === 'number' ? part : part.orderBy('t.id', direction)).limit(rows);
  };
  return NULLABLE_SORTS.has(sort.key) ? [withValue, byId(withoutValue)] : [withValue];
}

/** The rows of a page's parts, in order, up to `limit`. */
async function readParts<R>(
  parts: ((rows: number) => Matching)[],
  limit: number,
  read: (part: Matching) => Promise<R[]>,
) {
  const rows: R[] = [];
  for (const part of parts) {
    if (rows.length >= limit) break;
    rows.push(...(await read(part(limit - rows.length))));
  }
  return rows;
}

/** A sorted page reads one row more than it returns: whether it exists says whether more remain. */
const rowsToRead = (filter: TaskFilter) => (filter.sort ? filter.limit + 1 : filter.limit);

/** The sort value selected with each row of a sorted page, to make the next page's cursor of the last. */
function sortValueOf(db: Db, filter: TaskFilter) {
  return (filter.sort ? sortExpression(db, filter.sort.key) : sql.lit(null)).as('sort_value');
}

/**
 * A page of GET /v1/tasks: its tasks' ids, and its body: the page as JSON text where the
 * database wrote it (`summaryJson`), otherwise the summaries to serialize.
 */
export interface TaskPage {
  rows: { id: number }[];
  body: string | LabelledTaskSummary[];
  /** A sorted page that has more after it: where the next starts. */
  next?: SortPosition;
}

/** The page's rows and where the next page starts, given the rows read (`rowsToRead`). */
function cut<R extends { id: number; sort_value: unknown }>(filter: TaskFilter, read: R[]) {
  if (read.length <= filter.limit) return { rows: read };
  const rows = read.slice(0, filter.limit);
  const last = rows[rows.length - 1]!;
  return { rows, next: { value: last.sort_value as SortPosition['value'], id: last.id } };
}

/**
 * Where the database writes JSON in the server's process (SQLite), it writes the page: per row,
 * that costs less than making each column a JavaScript value, then an object, then JSON again.
 * PostgreSQL reads the rows, and each part for the whole page at once (`findSummaryRows`): it
 * is shared by every server process, and per-row subqueries there cost it more than they save
 * the server (BENCHMARKS.md, issue 15).
 */
export async function findPage(db: Db, caller: Caller, filter: TaskFilter): Promise<TaskPage> {
  if (!writesJsonInProcess(db)) {
    const page = await findSummaryRows(db, caller, filter);
    return { rows: page.rows, body: presentSummaries(page), next: page.next };
  }
  const read = await readParts(pageParts(db, caller, filter), rowsToRead(filter), (part) =>
    part
      .select((eb) => [
        't.id',
        summaryJson(db, eb, caller, filter.withLabels ?? false).as('summary'),
        sortValueOf(db, filter),
      ])
      .execute(),
  );
  const { rows, next } = cut(filter, read);
  return { rows, body: `[${rows.map((row) => row.summary).join(',')}]`, next };
}

async function findSummaryRows(
  db: Db,
  caller: Caller,
  filter: TaskFilter,
): Promise<SummaryRows & { next?: SortPosition }> {
  const read = await readParts(pageParts(db, caller, filter), rowsToRead(filter), (part) =>
    part
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
        sortValueOf(db, filter),
      ])
      .execute(),
  );
  const { rows, next } = cut(filter, read);
  const taskIds = rows.map((r) => r.id);
  const [assignees, taskLists, labels] = await Promise.all([
    assigneesOf(db, taskIds),
    visibleListsOf(db, caller, taskIds),
    filter.withLabels ? labelsOf(db, taskIds) : undefined,
  ]);
  return { rows, assignees, taskLists, labels, next };
}
