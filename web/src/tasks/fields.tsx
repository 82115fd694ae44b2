/**
 * The editable fields of a task, shared by the task rows and the detail page. Each control is
 * named after the task it edits ("Priority of “Write the spec”"), so they stay distinguishable
 * to assistive technology in a long list.
 */
import type { TaskSummary, UpdateTaskBody } from '@contract';
import { PRIORITIES, type Priority } from '@contract/enums';
import { useTeamData } from '../app/team-data';
import { isOverdue } from '../lib/dates';
import { CheckboxMenu } from '../ui/CheckboxMenu';
import { doneStatuses } from './apply-change';

interface FieldProps {
  task: TaskSummary;
  onChange: (change: UpdateTaskBody) => void;
}

const quote = (task: TaskSummary) => `“${task.title}”`;

export function DoneCheckbox({ task, onChange }: FieldProps) {
  const { statuses } = useTeamData();
  const { done, open } = doneStatuses(statuses);
  return (
    <input
      type="checkbox"
      class="done-checkbox"
      aria-label={`Done: ${quote(task)}`}
      checked={task.isCompleted}
      disabled={!done || !open}
      onChange={(event) => {
        const target = event.currentTarget.checked ? done : open;
        if (target) onChange({ taskStatusId: target.id });
      }}
    />
  );
}

export function StatusSelect({ task, onChange }: FieldProps) {
  const { statuses } = useTeamData();
  return (
    <select
      class="field-select"
      aria-label={`Status of ${quote(task)}`}
      value={String(task.status.id)}
      onChange={(event) => onChange({ taskStatusId: Number(event.currentTarget.value) })}
    >
      {statuses.length === 0 && <option value={String(task.status.id)}>{task.status.name}</option>}
      {statuses.map((status) => (
        <option key={status.id} value={String(status.id)}>
          {status.name}
        </option>
      ))}
    </select>
  );
}

export const PRIORITY_LABELS: Record<Priority, string> = {
  low: 'Low',
  medium: 'Medium',
  high: 'High',
  urgent: 'Urgent',
};

export function PrioritySelect({ task, onChange }: FieldProps) {
  return (
    <select
      class={`field-select priority-select priority-${task.priority ?? 'none'}`}
      aria-label={`Priority of ${quote(task)}`}
      value={task.priority ?? ''}
      onChange={(event) => onChange({ priority: (event.currentTarget.value || null) as Priority | null })}
    >
      <option value="">No priority</option>
      {PRIORITIES.map((priority) => (
        <option key={priority} value={priority}>
          {PRIORITY_LABELS[priority]}
        </option>
      ))}
    </select>
  );
}

export function DueDateInput({ task, onChange }: FieldProps) {
  return (
    <input
      type="date"
      class={`field-date${isOverdue(task.dueDate, task.isCompleted) ? ' is-overdue' : ''}`}
      aria-label={`Due date of ${quote(task)}`}
      value={task.dueDate ?? ''}
      // change (not input) fires once a whole date is picked, or when it is cleared
      onChange={(event) => {
        const value = event.currentTarget.value;
        if (value !== (task.dueDate ?? '')) onChange({ dueDate: value || null });
      }}
    />
  );
}

export function AssigneePicker({ task, onChange, align }: FieldProps & { align?: 'start' | 'end' }) {
  const { members } = useTeamData();
  return (
    <CheckboxMenu
      label={`Assignees of ${quote(task)}`}
      options={members.map((member) => ({ value: member.id, label: member.name }))}
      selected={task.assignees.map((person) => person.id)}
      onChange={(assigneeIds) => onChange({ assigneeIds })}
      emptyText="Unassigned"
      align={align}
    />
  );
}

export function ListPicker({ task, onChange, align }: FieldProps & { align?: 'start' | 'end' }) {
  const { lists } = useTeamData();
  const usable = lists ?? [];
  const isUsable = (id: number) => usable.some((list) => list.id === id);
  // Archived lists the task is in are shown but fixed: the server keeps those attachments.
  const archived = task.taskLists.filter((list) => !isUsable(list.id));
  return (
    <CheckboxMenu
      label={`Lists of ${quote(task)}`}
      options={[
        ...usable.map((list) => ({ value: list.id, label: list.name })),
        ...archived.map((list) => ({ value: list.id, label: `${list.name} (archived)`, disabled: true })),
      ]}
      selected={task.taskLists.map((list) => list.id)}
      onChange={(ids) => onChange({ taskListIds: ids.filter(isUsable) })}
      emptyText="No list"
      align={align}
    />
  );
}
