/**
 * GET /v1/tasks.csv (issue 32): the tasks GET /v1/tasks would list with the same filters and sort,
 * all of them, as a CSV a spreadsheet opens: RFC 4180 (quoted where needed, CRLF lines), UTF-8
 * with a byte-order mark (so Excel reads the accents), one row a task. Read a sorted page at a
 * time through GET /v1/tasks's own query (access rules included) and written as it goes, so
 * memory is one page whatever the count. A cell that a spreadsheet would run as a formula
 * (`=`, `+`, `-`, `@`, a tab or a carriage return first) is written with a `'` before it.
 */
import type { Caller } from '../caller.js';
import type { LabelledTaskSummary } from '../contract/index.js';
import type { Store } from '../storage/database.js';
import type { TaskFilter, TaskPage, TaskSort } from './task-query.js';
import { listTasks } from './tasks.service.js';

/** Tasks a page: memory stays at one page, and each page is one indexed range. */
const PAGE = 500;
/** Without `sort`: newest first, as GET /v1/tasks lists them. */
const NEWEST_FIRST: TaskSort = { key: 'createdAt', descending: true };

const COLUMNS: [string, (task: LabelledTaskSummary) => string][] = [
  ['Number', (t) => String(t.number)],
  ['Title', (t) => t.title],
  ['Status', (t) => t.status.name],
  ['Completed', (t) => (t.isCompleted ? 'yes' : 'no')],
  ['Priority', (t) => t.priority ?? ''],
  ['Due date', (t) => t.dueDate ?? ''],
  ['Assignees', (t) => t.assignees.map((p) => p.name).join('; ')],
  ['Assignee emails', (t) => t.assignees.map((p) => p.email).join('; ')],
  ['Lists', (t) => t.taskLists.map((l) => l.name).join('; ')],
  ['Labels', (t) => (t.labels ?? []).map((l) => l.name).join('; ')],
  ['Parent task id', (t) => (t.parentId === null ? '' : String(t.parentId))],
  ['Created', (t) => t.createdAt],
  ['Updated', (t) => t.updatedAt],
  ['Id', (t) => String(t.id)],
];

/** One cell: kept from running as a formula, then quoted if it holds a comma, quote or line break. */
export function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

const csvLine = (cells: string[]) => `${cells.map(csvCell).join(',')}\r\n`;

const tasksOf = (page: TaskPage): LabelledTaskSummary[] =>
  typeof page.body === 'string' ? (JSON.parse(page.body) as LabelledTaskSummary[]) : page.body;

/**
 * The CSV's text in pieces: the first page is read before this returns, so a refusal is still an
 * ordinary error answer, not a cut file.
 */
export async function tasksCsv(store: Store, caller: Caller, filter: TaskFilter): Promise<AsyncIterable<string>> {
  const pageAfter = (sort: TaskSort) => listTasks(store, caller, { ...filter, sort, limit: PAGE, withLabels: true });
  const sort = filter.sort ?? NEWEST_FIRST;
  const first = await pageAfter(sort);
  return (async function* lines() {
    yield `\ufeff${csvLine(COLUMNS.map(([name]) => name))}`;
    let page = first;
    for (;;) {
      yield tasksOf(page)
        .map((task) => csvLine(COLUMNS.map(([, cell]) => cell(task))))
        .join('');
      if (!page.next) return;
      page = await pageAfter({ ...sort, after: page.next });
    }
  })();
}
