/**
 * The filters of GET /v1/tasks; every change is written to the address so the view can be
 * shared. They keep to one line: the due dates (and the CSV of these tasks) fold away behind
 * "More filters", and on a phone the menus too (the CSS decides when), so the tasks come first.
 */
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { PRIORITIES } from '@contract/enums';
import { useTeamData } from '../app/team-data';
import { activeFilterCount, hasFilters, NO_FILTERS, type TaskFilters } from '../lib/task-filters';
import { CheckboxMenu } from '../ui/CheckboxMenu';
import { PRIORITY_LABELS } from './fields';

interface Props {
  filters: TaskFilters;
  onChange: (filters: TaskFilters) => void;
  /** My tasks is already filtered to the caller. */
  showAssignee: boolean;
  /** These filters' tasks as a CSV (GET /v1/tasks.csv), offered behind "More filters". */
  csvHref: string;
}

export function FilterBar({ filters, onChange, showAssignee, csvHref }: Props) {
  const { statuses, members, labels = [] } = useTeamData();
  const set = (change: Partial<TaskFilters>) => onChange({ ...filters, ...change });
  const [folded, setFolded] = useState(true);
  const formId = useId();
  // The filters set besides the search, which always shows: on a phone all of them wait behind the button.
  const active = activeFilterCount(filters) - (filters.query.trim() ? 1 : 0);

  // A status deleted (by anyone, live) leaves the filter, which would otherwise match nothing
  // while naming nothing.
  const unknownStatus =
    statuses.length > 0 && filters.taskStatusId.some((id) => !statuses.some((s) => String(s.id) === id));
  useEffect(() => {
    if (unknownStatus)
      set({ taskStatusId: filters.taskStatusId.filter((id) => statuses.some((s) => String(s.id) === id)) });
  }, [unknownStatus]);

  // Typing updates the address a moment after the last key, not on every key.
  const [text, setText] = useState(filters.query);
  const typing = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => setText(filters.query), [filters.query]);
  const onType = (value: string) => {
    setText(value);
    clearTimeout(typing.current);
    typing.current = setTimeout(() => set({ query: value }), 250);
  };

  // What waits behind "More filters": the dates always, and on a phone the menus too (the CSS).
  const moreId = `${formId}-more`;
  const menusId = `${formId}-menus`;
  return (
    <form
      id={formId}
      class={`filter-bar${folded ? ' is-folded' : ''}`}
      role="search"
      aria-label="Filter tasks"
      onSubmit={(event) => event.preventDefault()}
    >
      <label class="filter-search">
        <span class="sr-only">Search task titles</span>
        <input
          type="search"
          placeholder="Search titles"
          data-shortcut="search"
          aria-keyshortcuts="/"
          value={text}
          onInput={(e) => onType(e.currentTarget.value)}
        />
      </label>
      <div class="filter-menus" id={menusId}>
        <CheckboxMenu
          label="Status"
          options={statuses.map((status) => ({ value: String(status.id), label: status.name }))}
          selected={filters.taskStatusId}
          onChange={(taskStatusId) => set({ taskStatusId })}
          emptyText="Any status"
          buttonClass="button-filter"
        />
        {showAssignee && (
          <CheckboxMenu
            label="Assignee"
            options={members.map((member) => ({ value: member.id, label: member.name }))}
            selected={filters.assigneeId}
            onChange={(assigneeId) => set({ assigneeId })}
            emptyText="Anyone"
            buttonClass="button-filter"
          />
        )}
        <CheckboxMenu
          label="Label"
          options={labels.map((label) => ({ value: String(label.id), label: label.name }))}
          selected={filters.labelId}
          onChange={(labelId) => set({ labelId })}
          emptyText="Any label"
          buttonClass="button-filter"
        />
        <CheckboxMenu
          label="Priority"
          options={PRIORITIES.map((priority) => ({ value: priority, label: PRIORITY_LABELS[priority] }))}
          selected={filters.priority}
          onChange={(priority) => set({ priority })}
          emptyText="Any priority"
          buttonClass="button-filter"
        />
        <span class="filter-field">
          <label for={`${formId}-completed`}>Show</label>
          <select
            id={`${formId}-completed`}
            value={filters.isCompleted}
            onChange={(e) => set({ isCompleted: e.currentTarget.value as TaskFilters['isCompleted'] })}
          >
            <option value="">All tasks</option>
            <option value="false">Open</option>
            <option value="true">Completed</option>
          </select>
        </span>
      </div>
      <button
        type="button"
        class="button-filter filters-toggle"
        aria-expanded={!folded}
        aria-controls={`${menusId} ${moreId}`}
        onClick={() => setFolded(!folded)}
      >
        More filters{active > 0 && <span class="filters-active"> ({active})</span>}
      </button>
      {hasFilters(filters) && (
        <button type="button" class="button-quiet" onClick={() => onChange(NO_FILTERS)}>
          Clear filters
        </button>
      )}
      <div class="filter-more" id={moreId}>
        <label class="filter-field">
          <span>Due from</span>
          <input
            type="date"
            value={filters.dueDateFrom}
            onChange={(e) => set({ dueDateFrom: e.currentTarget.value })}
          />
        </label>
        <label class="filter-field">
          <span>Due until</span>
          <input type="date" value={filters.dueDateTo} onChange={(e) => set({ dueDateTo: e.currentTarget.value })} />
        </label>
        {/* The session cookie authenticates the download. */}
        <a class="filter-field" href={csvHref} download>
          Download CSV
        </a>
      </div>
    </form>
  );
}
