/**
 * The board's pure rules (board-model.ts), without a browser: which columns a view shows and what
 * each asks the API for, where a moved task lands in a column, the subtasks a card counts, the
 * columns a keyboard move reaches.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { TaskStatus, TaskSummary } from '@contract';
import { NO_FILTERS, type TaskFilters } from '../lib/task-filters';
import { boardColumns, columnQuery, neighbourColumn, placeTask, subtaskCounts } from './board-model';

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
  const names = (columns: TaskStatus[]) => columns.map((column) => column.name);

  test('columns follow the statuses’ order; a status filter or Open/Completed leaves the others out', () => {
    const none = NO_FILTERS;
    assert.deepEqual(names(boardColumns(STATUSES, none)), ['To do', 'In progress', 'Done']);
    assert.deepEqual(names(boardColumns(STATUSES, { ...none, taskStatusId: ['3', '1'] })), ['To do', 'Done']);
    assert.deepEqual(names(boardColumns(STATUSES, { ...none, isCompleted: 'false' })), ['To do', 'In progress']);
    assert.deepEqual(names(boardColumns(STATUSES, { ...none, isCompleted: 'true' })), ['Done']);
    assert.deepEqual(boardColumns(STATUSES, { ...none, isCompleted: 'true', taskStatusId: ['1'] }), []);
  });

  test('a column asks for the view’s filters in its own status only, within the list or for the person, with the tasks’ labels', () => {
    const view: TaskFilters = { ...NO_FILTERS, priority: ['high'], taskStatusId: ['1', '2'], query: 'venue' };
    assert.equal(
      columnQuery(view, { listId: 7 }, 2),
      'query=venue&taskStatusId=2&priority=high&include=labels&taskListId=7',
    );
    assert.equal(columnQuery(NO_FILTERS, { assigneeId: 'u-1' }, 3), 'taskStatusId=3&include=labels&assigneeId=u-1');
  });

  test('a moved task lands where the API would list it (newest first), once', () => {
    const ids = (tasks: TaskSummary[]) => tasks.map((t) => t.id);
    const column = [task(9), task(5), task(2)];
    assert.deepEqual(ids(placeTask(column, task(7))), [9, 7, 5, 2]);
    assert.deepEqual(ids(placeTask(column, task(12))), [12, 9, 5, 2]);
    assert.deepEqual(ids(placeTask(column, task(1))), [9, 5, 2, 1]);
    assert.deepEqual(ids(placeTask(column, task(5))), [9, 5, 2], 'already there: not twice');
    assert.deepEqual(ids(placeTask([], task(4))), [4]);
  });

  test('a card counts the subtasks on the board, from every column', () => {
    const counts = subtaskCounts([[task(1), task(2, 1)], undefined, [task(3, 1), task(4, 2)]]);
    assert.deepEqual([...counts].sort(), [
      [1, 2],
      [2, 1],
    ]);
  });

  test('the keyboard reaches the column either side among those shown, and nothing past the ends', () => {
    const shown = boardColumns(STATUSES, NO_FILTERS);
    assert.equal(neighbourColumn(shown, 1, 1)?.name, 'In progress');
    assert.equal(neighbourColumn(shown, 2, -1)?.name, 'To do');
    assert.equal(neighbourColumn(shown, 1, -1), undefined);
    assert.equal(neighbourColumn(shown, 3, 1), undefined);
    assert.equal(neighbourColumn(shown, 99, 1), undefined, 'a status not shown');
  });
});
