/**
 * A view of tasks (one list, or My tasks): quick add, filters kept in the address, and the
 * tasks themselves, as rows or as a board of columns by status (`?view=board`, in the address
 * too), refetched whenever the event stream says a task or list changed.
 */
import type { ComponentChildren } from 'preact';
import { useRef } from 'preact/hooks';
import { fetchTasks, type NewTaskDefaults } from '../api/tasks';
import { useLiveEvent } from '../app/live';
import { LazyBoard } from '../board/LazyBoard';
import { navigate, useLocation } from '../lib/router';
import {
  filtersFromSearch,
  hasFilters,
  layoutFromSearch,
  NO_FILTERS,
  searchOfView,
  tasksQuery,
  type TaskFilters,
  type TaskScope,
  type TasksLayout,
} from '../lib/task-filters';
import { countOf, plural } from '../lib/plural';
import { useAsync } from '../lib/use-async';
import { ErrorNote } from '../ui/ErrorNote';
import { Link } from '../ui/Link';
import { FilterBar } from './FilterBar';
import { QuickAdd } from './QuickAdd';
import { TaskRowHeader } from './TaskRow';
import { TaskTree } from './TaskTree';
import { useTaskEditing } from './use-task-editing';

interface Props {
  heading: ComponentChildren;
  /** One line under the heading saying what the view shows. */
  intro?: ComponentChildren;
  actions?: ComponentChildren;
  banner?: ComponentChildren;
  scope: TaskScope;
  /** The address's query when it has none (a saved view's own filters, order and layout). */
  defaultSearch?: string;
  newTaskDefaults: NewTaskDefaults;
  /** False where the view cannot take new tasks (an archived list). */
  canAdd?: boolean;
  /** What an empty view without filters shows instead of "No tasks here yet". */
  empty?: ComponentChildren;
}

export function TasksView(props: Props) {
  const { heading, intro, actions, banner, scope, newTaskDefaults, canAdd = true, empty } = props;
  const location = useLocation();
  const { path } = location;
  const search = location.search || props.defaultSearch || '';
  const filters = filtersFromSearch(search);
  const layout = layoutFromSearch(search);
  // The rows or the board, whichever is shown, reload when a task is added above them.
  const reload = useRef<() => void>(() => {});

  const setFilters = (next: TaskFilters) => navigate(path + searchOfView(next, layout), { replace: true });
  const nothing = hasFilters(filters) ? (
    <p class="empty">
      Nothing matches.{' '}
      <button type="button" class="button-link" onClick={() => setFilters(NO_FILTERS)}>
        Clear filters
      </button>
    </p>
  ) : (
    (empty ?? <p class="empty">No tasks here yet.{canAdd && ' Add one above.'}</p>)
  );

  return (
    <section class={`page${layout === 'board' ? ' page-board' : ''}`}>
      <header class="page-header">
        <h1>{heading}</h1>
        <div class="page-actions">
          <LayoutSwitch path={path} filters={filters} layout={layout} />
          {actions}
        </div>
        {intro && <p class="page-intro muted">{intro}</p>}
      </header>
      {banner}
      {canAdd && <QuickAdd defaults={newTaskDefaults} onCreated={() => reload.current()} shortcut />}
      <FilterBar
        filters={filters}
        onChange={setFilters}
        showAssignee={scope.assigneeId === undefined}
        csvHref={`/v1/tasks.csv?${tasksQuery(filters, scope)}`}
      />
      {layout === 'board' ? (
        <LazyBoard filters={filters} scope={scope} empty={nothing} reloadRef={reload} />
      ) : (
        <TaskRows
          filters={filters}
          onSort={(sort) => setFilters({ ...filters, sort })}
          scope={scope}
          newTaskDefaults={newTaskDefaults}
          empty={nothing}
          reloadRef={reload}
        />
      )}
    </section>
  );
}

/** List or Board: links, so each is an address; B (app/shortcuts.tsx) follows the other one. */
function LayoutSwitch({ path, filters, layout }: { path: string; filters: TaskFilters; layout: TasksLayout }) {
  const option = (value: TasksLayout, label: string) => (
    <Link
      href={path + searchOfView(filters, value)}
      class="layout-option"
      aria-current={layout === value ? 'page' : undefined}
      data-shortcut={layout === value ? undefined : 'toggle-layout'}
      title={layout === value ? undefined : `Show as ${label.toLowerCase()} (B)`}
    >
      {label}
    </Link>
  );
  return (
    <nav class="layout-switch" aria-label="View">
      {option('list', 'List')}
      {option('board', 'Board')}
    </nav>
  );
}

interface RowsProps {
  filters: TaskFilters;
  onSort: (sort: TaskFilters['sort']) => void;
  scope: TaskScope;
  newTaskDefaults: NewTaskDefaults;
  empty: ComponentChildren;
  reloadRef: { current: () => void };
}

/** The view's tasks as rows, subtasks under their parents. */
function TaskRows({ filters, onSort, scope, newTaskDefaults, empty, reloadRef }: RowsProps) {
  const query = tasksQuery(filters, scope).toString();
  const tasks = useAsync(() => fetchTasks(new URLSearchParams(query)), [query]);
  const edit = useTaskEditing(tasks);
  reloadRef.current = tasks.reload;

  // Task events, list events (an archived list hides tasks, a renamed one changes its chips) and
  // label events (a renamed or recoloured label changes its chips).
  useLiveEvent((event) => {
    if (event.type.startsWith('task') || event.type.startsWith('label.') || event.type === 'sync.required')
      tasks.reloadSoon();
  });

  const count = tasks.data?.length;
  return (
    <>
      <ErrorNote message={tasks.error} />
      {tasks.data === undefined && !tasks.error && <p class="muted">Loading tasks…</p>}
      {/* The count and the column names share a line where the rows are narrow (styles.css). */}
      <div class="task-table">
        <div class="task-table-top">
          {count !== undefined && (
            <p class="task-count muted" aria-live="polite">
              {countOf(count, 'task')}
              {hasFilters(filters) && ` ${plural(count, 'matches', 'match')} these filters`}
            </p>
          )}
          {!!count && <TaskRowHeader sort={filters.sort} onSort={onSort} />}
        </div>
        {count === 0 && empty}
        {tasks.data && tasks.data.length > 0 && (
          <TaskTree
            tasks={tasks.data}
            edit={edit}
            newTaskDefaults={newTaskDefaults}
            viewListId={scope.listId}
            onSubtaskCreated={tasks.reload}
          />
        )}
      </div>
    </>
  );
}
