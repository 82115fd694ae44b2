/**
 * The board's pure rules without a browser: which columns a view shows and what each asks the API
 * for (web/src/board/board-model.ts), where a moved task lands in a column, the subtasks a card
 * counts, the columns a keyboard move reaches, which rows of a long column are drawn
 * (virtual-window.ts), and the view in the address (lib/task-filters.ts). The modules are the
 * app's own TypeScript, loaded through Vite's module runner (support/web-module.ts).
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { TaskStatus, TaskSummary } from '../src/contract/index.js';
import { importWebModule } from './support/web-module.js';

interface Filters {
  query: string;
  taskStatusId: string[];
  assigneeId: string[];
  priority: string[];
  isCompleted: '' | 'true' | 'false';
  dueDateFrom: string;
  dueDateTo: string;
}
type Scope = { listId?: number; assigneeId?: string };
interface BoardModel {
  boardColumns(statuses: TaskStatus[], filters: Filters): TaskStatus[];
  columnQuery(filters: Filters, scope: Scope, statusId: number): string;
  placeTask(tasks: readonly TaskSummary[], task: TaskSummary): TaskSummary[];
  subtaskCounts(columns: Iterable<readonly TaskSummary[] | undefined>): Map<number, number>;
  neighbourColumn(columns: readonly TaskStatus[], statusId: number, direction: -1 | 1): TaskStatus | undefined;
}
interface VirtualWindow {
  visibleRange(
    scrollTop: number,
    height: number,
    rowHeight: number,
    count: number,
    overscan?: number,
  ): { start: number; end: number };
  scrollToShow(index: number, scrollTop: number, height: number, rowHeight: number): number;
}
interface TaskFilters {
  NO_FILTERS: Filters;
  filtersFromSearch(search: string): Filters;
  layoutFromSearch(search: string): 'list' | 'board';
  searchOfView(filters: Filters, layout: 'list' | 'board'): string;
}

const status = (id: number, name: string, order: number, isCompleted = false): TaskStatus => ({
  id,
  name,
  color: null,
  isDefault: order === 0,
  isCompleted,
  order,
});
// Given out of order: the board sorts them by `order`.
const STATUSES = [status(3, 'Done', 2, true), status(1, 'To do', 0), status(2, 'In progress', 1)];

const task = (id: number, parentId: number | null = null): TaskSummary => ({
  id,
  title: `Task ${id}`,
  number: id,
  priority: null,
  dueDate: null,
  parentId,
  createdAt: '2026-11-01T00:00:00.000Z',
  updatedAt: '2026-11-01T00:00:00.000Z',
  isCompleted: false,
  assignees: [],
  taskLists: [],
  status: { id: 1, name: 'To do' },
});

describe('the board’s pure rules', () => {
  let model: BoardModel;
  let window: VirtualWindow;
  let filters: TaskFilters;
  before(async () => {
    model = await importWebModule<BoardModel>('src/board/board-model.ts');
    window = await importWebModule<VirtualWindow>('src/board/virtual-window.ts');
    filters = await importWebModule<TaskFilters>('src/lib/task-filters.ts');
  });
  const names = (columns: TaskStatus[]) => columns.map((column) => column.name);

  test('columns follow the statuses’ order; a status filter or Open/Completed leaves the others out', () => {
    const none = filters.NO_FILTERS;
    assert.deepEqual(names(model.boardColumns(STATUSES, none)), ['To do', 'In progress', 'Done']);
    assert.deepEqual(names(model.boardColumns(STATUSES, { ...none, taskStatusId: ['3', '1'] })), ['To do', 'Done']);
    assert.deepEqual(names(model.boardColumns(STATUSES, { ...none, isCompleted: 'false' })), ['To do', 'In progress']);
    assert.deepEqual(names(model.boardColumns(STATUSES, { ...none, isCompleted: 'true' })), ['Done']);
    assert.deepEqual(model.boardColumns(STATUSES, { ...none, isCompleted: 'true', taskStatusId: ['1'] }), []);
  });

  test('a column asks for the view’s filters in its own status only, within the list or for the person', () => {
    const view = { ...filters.NO_FILTERS, priority: ['high'], taskStatusId: ['1', '2'], query: 'venue' };
    assert.equal(model.columnQuery(view, { listId: 7 }, 2), 'query=venue&taskStatusId=2&priority=high&taskListId=7');
    assert.equal(model.columnQuery(filters.NO_FILTERS, { assigneeId: 'u-1' }, 3), 'taskStatusId=3&assigneeId=u-1');
  });

  test('a moved task lands where the API would list it (newest first), once', () => {
    const ids = (tasks: TaskSummary[]) => tasks.map((t) => t.id);
    const column = [task(9), task(5), task(2)];
    assert.deepEqual(ids(model.placeTask(column, task(7))), [9, 7, 5, 2]);
    assert.deepEqual(ids(model.placeTask(column, task(12))), [12, 9, 5, 2]);
    assert.deepEqual(ids(model.placeTask(column, task(1))), [9, 5, 2, 1]);
    assert.deepEqual(ids(model.placeTask(column, task(5))), [9, 5, 2], 'already there: not twice');
    assert.deepEqual(ids(model.placeTask([], task(4))), [4]);
  });

  test('a card counts the subtasks on the board, from every column', () => {
    const counts = model.subtaskCounts([[task(1), task(2, 1)], undefined, [task(3, 1), task(4, 2)]]);
    assert.deepEqual([...counts].sort(), [
      [1, 2],
      [2, 1],
    ]);
  });

  test('the keyboard reaches the column either side among those shown, and nothing past the ends', () => {
    const shown = model.boardColumns(STATUSES, filters.NO_FILTERS);
    assert.equal(model.neighbourColumn(shown, 1, 1)?.name, 'In progress');
    assert.equal(model.neighbourColumn(shown, 2, -1)?.name, 'To do');
    assert.equal(model.neighbourColumn(shown, 1, -1), undefined);
    assert.equal(model.neighbourColumn(shown, 3, 1), undefined);
    assert.equal(model.neighbourColumn(shown, 99, 1), undefined, 'a status not shown');
  });

  test('a long column draws the rows in sight and a few either side, never past its ends', () => {
    // 500 rows of 120 px in a window 600 px high.
    assert.deepEqual(window.visibleRange(0, 600, 120, 500), { start: 0, end: 9 });
    assert.deepEqual(window.visibleRange(1200, 600, 120, 500), { start: 6, end: 19 });
    assert.deepEqual(window.visibleRange(59_400, 600, 120, 500), { start: 491, end: 500 });
    assert.deepEqual(window.visibleRange(0, 600, 120, 3), { start: 0, end: 3 });
    assert.deepEqual(window.visibleRange(0, 600, 120, 0), { start: 0, end: 0 });
    assert.deepEqual(window.visibleRange(-50, 0, 120, 500, 0), { start: 0, end: 1 }, 'not yet measured');
  });

  test('bringing a row into sight scrolls as little as it can', () => {
    assert.equal(window.scrollToShow(3, 0, 600, 120), 0, 'already in sight');
    assert.equal(window.scrollToShow(10, 0, 600, 120), 720, 'below: its foot at the window’s');
    assert.equal(window.scrollToShow(2, 1200, 600, 120), 240, 'above: its top at the window’s');
    assert.equal(window.scrollToShow(499, 0, 600, 120), 59_400);
  });

  test('the view is in the address beside the filters; the list is the default and leaves no trace', () => {
    const view = { ...filters.NO_FILTERS, priority: ['urgent'] };
    assert.equal(filters.searchOfView(view, 'board'), '?view=board&priority=urgent');
    assert.equal(filters.searchOfView(view, 'list'), '?priority=urgent');
    assert.equal(filters.searchOfView(filters.NO_FILTERS, 'list'), '');
    assert.equal(filters.layoutFromSearch('?view=board&priority=urgent'), 'board');
    assert.equal(filters.layoutFromSearch('?view=kanban'), 'list', 'anything else is the list');
    assert.deepEqual(filters.filtersFromSearch('?view=board&priority=urgent'), view, 'the view is not a filter');
  });
});
