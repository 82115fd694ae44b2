/**
 * The board's pure rules: which columns a view shows, what each column asks the API for, where a
 * task goes in a column, the subtasks each card counts, and the columns a keyboard move reaches.
 */
import type { TaskStatus, TaskSummary } from '@contract';
import { tasksQuery, type TaskFilters, type TaskScope } from '../lib/task-filters';

/**
 * The team's statuses in their order (GET /v1/task-statuses), less those the filters leave out:
 * a status filter shows only its statuses, "Open" or "Completed" only the statuses that can hold
 * such tasks.
 */
export function boardColumns(statuses: TaskStatus[], filters: TaskFilters): TaskStatus[] {
  return [...statuses]
    .sort((a, b) => a.order - b.order || a.id - b.id)
    .filter((status) => filters.taskStatusId.length === 0 || filters.taskStatusId.includes(String(status.id)))
    .filter((status) => filters.isCompleted === '' || String(status.isCompleted) === filters.isCompleted);
}

/** One column's GET /v1/tasks query: the view's filters, narrowed to the column's status. */
export function columnQuery(filters: TaskFilters, scope: TaskScope, statusId: number): string {
  return tasksQuery({ ...filters, taskStatusId: [String(statusId)] }, scope).toString();
}

/** GET /v1/tasks answers at most this many tasks: a column holding as many may hold more. */
export const COLUMN_LIMIT = 1000;

/** The column's tasks with `task` in the place the API would list it (newest first, by id). */
export function placeTask(tasks: readonly TaskSummary[], task: TaskSummary): TaskSummary[] {
  const rest = tasks.filter((other) => other.id !== task.id);
  const at = rest.findIndex((other) => other.id < task.id);
  return at === -1 ? [...rest, task] : [...rest.slice(0, at), task, ...rest.slice(at)];
}

/** How many of the tasks on the board name each task as their parent. */
export function subtaskCounts(columns: Iterable<readonly TaskSummary[] | undefined>): Map<number, number> {
  const counts = new Map<number, number>();
  for (const tasks of columns) {
    for (const task of tasks ?? []) {
      if (task.parentId !== null) counts.set(task.parentId, (counts.get(task.parentId) ?? 0) + 1);
    }
  }
  return counts;
}

/** The column before (-1) or after (+1) `statusId` among those shown, or undefined at an end. */
export function neighbourColumn(
  columns: readonly TaskStatus[],
  statusId: number,
  direction: -1 | 1,
): TaskStatus | undefined {
  const at = columns.findIndex((status) => status.id === statusId);
  return at === -1 ? undefined : columns[at + direction];
}
