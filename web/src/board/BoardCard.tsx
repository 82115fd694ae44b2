/**
 * A task on the board, as tall as its content: number, priority, the whole title (a link to the
 * task), its labels, due date (red when overdue),
 * subtasks and assignees' initials. The whole card can be dragged to another column; from the
 * keyboard Shift+←/→ moves it, and its "⋯" button (or S) offers every status.
 */
import type { TaskSummary } from '@contract';
import { formatDueDate, isOverdue } from '../lib/dates';
import { countOf } from '../lib/plural';
import { Avatars, LabelChips, labelsOf, PRIORITY_LABELS, quote } from '../tasks/fields';
import { Link } from '../ui/Link';

interface Props {
  task: TaskSummary;
  /** Subtasks of this task shown on the board. */
  subtasks: number;
  /** Place in the column, from 1, and the column's size (only some cards are drawn). */
  position: number;
  setSize: number;
  dragging: boolean;
  onDragStart: (task: TaskSummary) => void;
  onDragEnd: () => void;
  onChooseStatus: (task: TaskSummary) => void;
}

export function BoardCard({ task, subtasks, position, setSize, dragging, ...handlers }: Props) {
  const overdue = isOverdue(task.dueDate, task.isCompleted);
  const names = task.assignees.map((person) => person.name);
  return (
    <li
      class={`board-card${dragging ? ' is-dragging' : ''}${task.isCompleted ? ' is-completed' : ''}`}
      data-task-id={task.id}
      aria-posinset={position}
      aria-setsize={setSize}
      draggable
      onDragStart={(event) => {
        event.dataTransfer?.setData('text/plain', String(task.id));
        if (event.dataTransfer) event.dataTransfer.effectAllowed = 'move';
        handlers.onDragStart(task);
      }}
      onDragEnd={handlers.onDragEnd}
    >
      <div class="board-card-top">
        <span class="task-number">#{task.number}</span>
        {task.priority && <span class={`priority priority-${task.priority}`}>{PRIORITY_LABELS[task.priority]}</span>}
        <button
          type="button"
          class="button-quiet board-card-status"
          data-status-control
          aria-label={`Status of ${quote(task)}: ${task.status.name}`}
          aria-haspopup="dialog"
          title="Move to another status (S)"
          onClick={() => handlers.onChooseStatus(task)}
        >
          <span aria-hidden="true">⋯</span>
        </button>
      </div>
      <Link
        href={`/tasks/${task.id}`}
        class="board-card-title"
        draggable={false}
        data-task-link
        aria-keyshortcuts="Shift+ArrowLeft Shift+ArrowRight"
      >
        {task.title}
      </Link>
      {labelsOf(task).length > 0 && <LabelChips labels={labelsOf(task)} />}
      <div class="board-card-meta">
        {task.dueDate && (
          <span class={`board-card-due${overdue ? ' is-overdue' : ''}`}>
            {overdue ? 'Overdue: ' : 'Due '}
            {formatDueDate(task.dueDate)}
          </span>
        )}
        {subtasks > 0 && <span class="board-card-subtasks">{countOf(subtasks, 'subtask')}</span>}
        {names.length > 0 && (
          <span class="board-card-assignees">
            <span class="sr-only">Assigned to {names.join(', ')}</span>
            <span aria-hidden="true">
              <Avatars names={names} />
            </span>
          </span>
        )}
      </div>
    </li>
  );
}
