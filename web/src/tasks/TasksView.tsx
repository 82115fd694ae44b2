/**
 * A view of tasks (one list, or My tasks): quick add, filters kept in the address, and the
 * tasks themselves, refetched whenever the event stream says a task or list changed.
 */
import type { ComponentChildren } from 'preact';
import { fetchTasks, type NewTaskDefaults } from '../api/tasks';
import { useLiveEvent } from '../app/live';
import { navigate, useLocation } from '../lib/router';
import { filtersFromSearch, hasFilters, NO_FILTERS, searchOfFilters, tasksQuery } from '../lib/task-filters';
import { countOf, plural } from '../lib/plural';
import { useAsync } from '../lib/use-async';
import { ErrorNote } from '../ui/ErrorNote';
import { FilterBar } from './FilterBar';
import { QuickAdd } from './QuickAdd';
import { TaskTree } from './TaskTree';
import { useTaskEditing } from './use-task-editing';

interface Props {
  heading: ComponentChildren;
  /** One line under the heading saying what the view shows. */
  intro?: ComponentChildren;
  actions?: ComponentChildren;
  banner?: ComponentChildren;
  scope: { listId?: number; assigneeId?: string };
  newTaskDefaults: NewTaskDefaults;
  /** False where the view cannot take new tasks (an archived list). */
  canAdd?: boolean;
  /** What an empty view without filters shows instead of "No tasks here yet". */
  empty?: ComponentChildren;
}

export function TasksView({ heading, intro, actions, banner, scope, newTaskDefaults, canAdd = true, empty }: Props) {
  const { path, search } = useLocation();
  const filters = filtersFromSearch(search);
  const query = tasksQuery(filters, scope).toString();
  const tasks = useAsync(() => fetchTasks(new URLSearchParams(query)), [query]);
  const edit = useTaskEditing(tasks);

  // Task events, and list events (an archived list hides tasks, a renamed one changes labels).
  useLiveEvent((event) => {
    if (event.type.startsWith('task') || event.type === 'sync.required') tasks.reloadSoon();
  });

  const setFilters = (next: typeof filters) => navigate(path + searchOfFilters(next), { replace: true });
  const count = tasks.data?.length;

  return (
    <section class="page">
      <header class="page-header">
        <h1>{heading}</h1>
        {actions && <div class="page-actions">{actions}</div>}
        {intro && <p class="page-intro muted">{intro}</p>}
      </header>
      {banner}
      {canAdd && <QuickAdd defaults={newTaskDefaults} onCreated={tasks.reload} />}
      <FilterBar filters={filters} onChange={setFilters} showAssignee={scope.assigneeId === undefined} />
      <ErrorNote message={tasks.error} />
      {tasks.data === undefined && !tasks.error && <p class="muted">Loading tasks…</p>}
      {count !== undefined && (
        <p class="task-count muted" aria-live="polite">
          {countOf(count, 'task')}
          {hasFilters(filters) && ` ${plural(count, 'matches', 'match')} these filters`}
        </p>
      )}
      {count === 0 &&
        (hasFilters(filters) ? (
          <p class="empty">
            Nothing matches.{' '}
            <button type="button" class="button-link" onClick={() => setFilters(NO_FILTERS)}>
              Clear filters
            </button>
          </p>
        ) : (
          (empty ?? <p class="empty">No tasks here yet.{canAdd && ' Add one above.'}</p>)
        ))}
      {tasks.data && tasks.data.length > 0 && (
        <TaskTree
          tasks={tasks.data}
          edit={edit}
          newTaskDefaults={newTaskDefaults}
          viewListId={scope.listId}
          onSubtaskCreated={tasks.reload}
        />
      )}
    </section>
  );
}
