/**
 * A saved view and a page's address: its filters the filter bar shows go in the address (so they
 * can be changed, and the page shared as a link); the others (a list, a parent, a filter the web
 * app has no control for) stay the view's own, fixed scope. Saving goes the other way.
 */
import type { TaskFilters as ApiFilters, View } from '@contract';
import type { TaskSortParam } from '@contract/enums';
import {
  NO_FILTERS,
  searchOfView,
  filtersFromSearch,
  tasksQuery,
  type TaskFilters,
  type TaskScope,
} from '../lib/task-filters';

const BAR_FILTERS = new Set(Object.keys(NO_FILTERS));

/** The view's parameters as pairs, repeated ones repeated. */
const pairsOf = (filters: ApiFilters) =>
  Object.entries(filters).flatMap(([name, value]) =>
    (Array.isArray(value) ? value : [value]).map((item): [string, string] => [name, String(item)]),
  );

export function viewSearch(view: View): string {
  const params = new URLSearchParams(pairsOf(view.filters).filter(([name]) => BAR_FILTERS.has(name)));
  if (view.sort) params.set('sort', view.sort);
  return searchOfView(filtersFromSearch(`?${params}`), view.layout === 'board' ? 'board' : 'list');
}

export const viewScope = (view: View): TaskScope => ({
  params: pairsOf(view.filters).filter(([name]) => !BAR_FILTERS.has(name)),
});

/** What a page shows, as a view's fields: its filters (the scope's too) without the order, and the order. */
export function viewFieldsOf(
  filters: TaskFilters,
  scope: TaskScope,
): { filters: Record<string, string[]>; sort: TaskSortParam | null } {
  const params = tasksQuery({ ...filters, sort: '' }, scope);
  // `include` says how rows are drawn, not which tasks a view holds.
  params.delete('include');
  const fields: Record<string, string[]> = {};
  for (const [name, value] of params) (fields[name] ??= []).push(value);
  return { filters: fields, sort: filters.sort || null };
}
