/**
 * The filters of GET /v1/tasks; every change is written to the address so the view can be
 * shared. On a phone they fold away behind a Filters button (the CSS decides when).
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
}

export function FilterBar({ filters, onChange, showAssignee }: Props) {
  const { statuses, members } = useTeamData();
  const set = (change: Partial<TaskFilters>) => onChange({ ...filters, ...change });
  const [folded, setFolded] = useState(true);
  const formId = useId();
  const active = activeFilterCount(filters);

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

  return (
    <>
      <button
        type="button"
        class="button-secondary filters-toggle"
        aria-expanded={!folded}
        aria-controls={formId}
        onClick={() => setFolded(!folded)}
      >
        Filters{active > 0 && ` (${active})`}
      </button>
      <form
        id={formId}
        class={`filters${folded ? ' is-folded' : ''}`}
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
        {hasFilters(filters) && (
          <button type="button" class="button-quiet" onClick={() => onChange(NO_FILTERS)}>
            Clear filters
          </button>
        )}
      </form>
    </>
  );
}
