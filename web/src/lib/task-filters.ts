/**
 * The filters of GET /v1/tasks, kept in the page's query string under the API's own parameter
 * names, so a filtered view is a link that can be shared. Values that could never be valid are
 * dropped when read, so a mangled link shows a view instead of an error.
 */
import type { TaskQuery } from '@contract';
import { PRIORITIES, TASK_SORTS, type Priority, type TaskSortParam } from '@contract/enums';

/** The filter parameters of GET /v1/tasks as a form holds them: '' or [] when unset. */
export type TaskFilters = Required<
  Pick<TaskQuery, 'query' | 'taskStatusId' | 'assigneeId' | 'labelId' | 'priority' | 'dueDateFrom' | 'dueDateTo'>
> & {
  /** '' for both, 'false' for open tasks only, 'true' for completed only. */
  isCompleted: NonNullable<TaskQuery['isCompleted']> | '';
  /** The order (GET /v1/tasks `sort`), chosen from the column headers; '' newest first. */
  sort: TaskSortParam | '';
};

/** What a page of tasks shows besides its filters: a list, my tasks, or a saved view's own parameters. */
export interface TaskScope {
  listId?: number;
  assigneeId?: string;
  params?: [string, string][];
}

export const NO_FILTERS: TaskFilters = {
  query: '',
  taskStatusId: [],
  assigneeId: [],
  labelId: [],
  priority: [],
  isCompleted: '',
  dueDateFrom: '',
  dueDateTo: '',
  sort: '',
};

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DIGITS = /^\d{1,15}$/;
const unique = <T>(values: T[]) => [...new Set(values)];

export function filtersFromSearch(search: string): TaskFilters {
  const params = new URLSearchParams(search);
  const isCompleted = params.get('isCompleted');
  const date = (name: string) => {
    const value = params.get(name) ?? '';
    return DATE.test(value) ? value : '';
  };
  return {
    query: (params.get('query') ?? '').slice(0, 200),
    taskStatusId: unique(params.getAll('taskStatusId').filter((id) => DIGITS.test(id))),
    assigneeId: unique(params.getAll('assigneeId').filter((id) => UUID.test(id))),
    labelId: unique(params.getAll('labelId').filter((id) => DIGITS.test(id))),
    priority: unique(
      params.getAll('priority').filter((p): p is Priority => (PRIORITIES as readonly string[]).includes(p)),
    ),
    isCompleted: isCompleted === 'true' || isCompleted === 'false' ? isCompleted : '',
    dueDateFrom: date('dueDateFrom'),
    dueDateTo: date('dueDateTo'),
    sort: TASK_SORTS.find((sort) => sort === params.get('sort')) ?? '',
  };
}

function toParams(filters: TaskFilters): URLSearchParams {
  const params = new URLSearchParams();
  if (filters.query.trim()) params.set('query', filters.query.trim());
  for (const id of filters.taskStatusId) params.append('taskStatusId', id);
  for (const id of filters.assigneeId) params.append('assigneeId', id);
  for (const id of filters.labelId) params.append('labelId', id);
  for (const priority of filters.priority) params.append('priority', priority);
  if (filters.isCompleted) params.set('isCompleted', filters.isCompleted);
  if (filters.dueDateFrom) params.set('dueDateFrom', filters.dueDateFrom);
  if (filters.dueDateTo) params.set('dueDateTo', filters.dueDateTo);
  if (filters.sort) params.set('sort', filters.sort);
  return params;
}

/** `?…` for the page's address, or '' without filters. */
export function searchOfFilters(filters: TaskFilters): string {
  const query = toParams(filters).toString();
  return query ? `?${query}` : '';
}

/** Whether any filter is set (an order alone filters nothing). */
export function hasFilters(filters: TaskFilters): boolean {
  return searchOfFilters({ ...filters, sort: '' }) !== '';
}

/** How many kinds of filter are set (for the folded filter button on a phone). */
export function activeFilterCount(filters: TaskFilters): number {
  return [
    filters.query.trim(),
    filters.taskStatusId.length,
    filters.assigneeId.length,
    filters.labelId.length,
    filters.priority.length,
    filters.isCompleted,
    filters.dueDateFrom || filters.dueDateTo,
  ].filter(Boolean).length;
}

/**
 * The GET /v1/tasks query for a view: its filters plus what the view is (a list, my tasks, or a
 * saved view), and each task's labels, which rows and cards show.
 */
export function tasksQuery(filters: TaskFilters, scope: TaskScope): URLSearchParams {
  const params = toParams(filters);
  for (const [name, value] of scope.params ?? []) params.append(name, value);
  params.set('include', 'labels');
  if (scope.listId !== undefined) params.set('taskListId', String(scope.listId));
  if (scope.assigneeId !== undefined) {
    params.delete('assigneeId');
    params.set('assigneeId', scope.assigneeId);
  }
  return params;
}

/** How a view of tasks is drawn: rows (the default) or columns by status (`?view=board`). */
export type TasksLayout = 'list' | 'board';

export function layoutFromSearch(search: string): TasksLayout {
  return new URLSearchParams(search).get('view') === 'board' ? 'board' : 'list';
}

/** `?…` for the page's address: the layout (when not the default list) and the filters. */
export function searchOfView(filters: TaskFilters, layout: TasksLayout): string {
  const params = new URLSearchParams(layout === 'board' ? { view: 'board' } : {});
  for (const [name, value] of toParams(filters)) params.append(name, value);
  const query = params.toString();
  return query ? `?${query}` : '';
}
