/**
 * The editable fields of a task, shared by the task rows and the detail page. Each shows its
 * value as text and becomes its editor when clicked, or from the keyboard with Enter or Space
 * (Escape leaves it as it was). `compact` (the rows) shows values as chips and an empty one as a
 * quiet "+ Due date" that the row reveals on hover and focus; the detail page shows them as fields.
 *
 * Each control is named after the task it edits ("Priority of “Write the spec”: High"), so they
 * stay distinguishable to assistive technology in a long list.
 */
import type { Label, LabelledTaskSummary, TaskSummary, UpdateTaskBody } from '@contract';
import { PRIORITIES, type Priority } from '@contract/enums';
import { useTeamData } from '../app/team-data';
import { ChoiceMenu } from '../ui/ChoiceMenu';
import { CheckboxMenu } from '../ui/CheckboxMenu';
import { ColorDot } from '../ui/ColorPicker';
import { doneStatuses } from './apply-change';

export interface FieldProps {
  task: TaskSummary;
  onChange: (change: UpdateTaskBody) => void;
  /** A task row's chips rather than the detail page's fields. */
  compact?: boolean;
}

export const quote = (task: TaskSummary) => `“${task.title}”`;

/** The button's look, and whether it holds no value (which a row shows only on hover and focus). */
export const valueButtonClass = (compact: boolean | undefined, empty: boolean) =>
  `${compact ? 'value-chip' : 'button-field'}${empty ? ' is-empty' : ''}`;

/** An empty value: "No due date" on the detail page, an invitation ("+ Due date") in a row. */
export const EmptyValue = ({ compact, full, short }: { compact?: boolean; full: string; short: string }) => (
  <span class="value-empty">{compact ? `+ ${short}` : full}</span>
);

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

export function StatusField({ task, onChange, compact }: FieldProps) {
  const { statuses } = useTeamData();
  // Until the team's statuses load, the task's own is the only choice.
  const options = statuses.length ? statuses : [task.status];
  return (
    <ChoiceMenu
      label={`Status of ${quote(task)}`}
      options={options.map((status) => ({ value: status.id, label: status.name }))}
      selected={task.status.id}
      onChange={(taskStatusId) => onChange({ taskStatusId })}
      display={<span class={`status-pill${task.isCompleted ? ' is-done' : ''}`}>{task.status.name}</span>}
      buttonClass={valueButtonClass(compact, false)}
    />
  );
}

export const PRIORITY_LABELS: Record<Priority, string> = {
  low: 'Low',
  medium: 'Medium',
  high: 'High',
  urgent: 'Urgent',
};

export function PriorityField({ task, onChange, compact }: FieldProps) {
  const priority = task.priority;
  return (
    <ChoiceMenu<Priority | null>
      label={`Priority of ${quote(task)}`}
      options={[
        { value: null, label: 'No priority' },
        ...PRIORITIES.map((value) => ({ value, label: PRIORITY_LABELS[value] })),
      ]}
      selected={priority}
      onChange={(value) => onChange({ priority: value })}
      display={
        priority ? (
          <span class={`priority priority-${priority}`}>{PRIORITY_LABELS[priority]}</span>
        ) : (
          <EmptyValue compact={compact} full="No priority" short="Priority" />
        )
      }
      buttonClass={valueButtonClass(compact, !priority)}
    />
  );
}

export function AssigneePicker({ task, onChange, compact, align }: FieldProps & { align?: 'start' | 'end' }) {
  const { members } = useTeamData();
  const names = task.assignees.map((person) => person.name);
  return (
    <CheckboxMenu
      label={`Assignees of ${quote(task)}`}
      options={members.map((member) => ({ value: member.id, label: member.name }))}
      selected={task.assignees.map((person) => person.id)}
      onChange={(assigneeIds) => onChange({ assigneeIds })}
      emptyText="Unassigned"
      display={
        names.length === 0 ? (
          <EmptyValue compact={compact} full="Unassigned" short="Assignees" />
        ) : compact ? (
          <Avatars names={names} />
        ) : (
          <span>{names.join(', ')}</span>
        )
      }
      buttonClass={valueButtonClass(compact, names.length === 0)}
      align={align}
    />
  );
}

/**
 * Initials in circles, up to three and then "+2": a row's assignees at a glance (names on hover).
 * The initials are drawn by CSS (`data-initials`), not text: the button they sit in is named by
 * the whole names, and its visible text must be part of that name (WCAG 2.5.3, Label in Name).
 */
export function Avatars({ names }: { names: string[] }) {
  const shown = names.length > 3 ? names.slice(0, 2) : names;
  return (
    <span class="avatars" title={names.join(', ')}>
      {shown.map((name, index) => (
        <span key={index} class="avatar avatar-small" data-initials={initials(name)} />
      ))}
      {shown.length < names.length && (
        <span class="avatar avatar-small" data-initials={`+${names.length - shown.length}`} />
      )}
    </span>
  );
}

/** A name's initials: "Ada Lovelace" → "AL". */
export const initials = (name: string) => {
  const words = name.trim().split(/\s+/);
  const letters = words.length > 1 ? [words[0], words[words.length - 1]] : words;
  return letters.map((word) => [...(word ?? '')][0]?.toUpperCase() ?? '').join('');
};

interface ListPickerProps extends FieldProps {
  align?: 'start' | 'end';
  /** The list the view shows: every task in it is in that list, so the row does not say so again. */
  viewListId?: number;
}

export function ListPicker({ task, onChange, compact, align, viewListId }: ListPickerProps) {
  const { lists } = useTeamData();
  const usable = lists ?? [];
  const isUsable = (id: number) => usable.some((list) => list.id === id);
  // Archived lists the task is in are shown but fixed: the server keeps those attachments.
  const archived = task.taskLists.filter((list) => !isUsable(list.id));
  const shown = task.taskLists.filter((list) => list.id !== viewListId);
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
      display={
        shown.length === 0 ? (
          <EmptyValue compact={compact} full="No list" short="Lists" />
        ) : (
          <span class="list-chips">
            {shown.map((list) => {
              const color = usable.find((candidate) => candidate.id === list.id)?.color;
              return (
                // A whole name, never cut: a long one wraps onto its own line instead.
                <span key={list.id} class="list-chip">
                  {color && <ColorDot color={color} />}
                  {list.name}
                </span>
              );
            })}
          </span>
        )
      }
      buttonClass={valueButtonClass(compact, shown.length === 0)}
      align={align}
    />
  );
}

/** A task's labels; a row or card has them because views ask for them (`include=labels`, task-filters.ts). */
export const labelsOf = (task: TaskSummary): Label[] => (task as LabelledTaskSummary).labels ?? [];

/** The names, space-separated: as a button's text, part of its name ("Labels of “…”: Bug Urgent"). */
export const labelNames = (labels: Label[]) => labels.map((label) => label.name).join(' ');

export function LabelChips({ labels }: { labels: Label[] }) {
  return (
    <span class="label-chips">
      {labels.map((label, index) => (
        <span key={label.id} class="label-chip">
          <ColorDot color={label.color} />
          {label.name}
          {index < labels.length - 1 && ' '}
        </span>
      ))}
    </span>
  );
}
