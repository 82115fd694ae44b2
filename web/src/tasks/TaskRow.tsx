/**
 * One task in a view, read as a line of text (title, number, then its values as chips), every
 * value editable in place, with its subtasks beneath it.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { TaskSummary } from '@contract';
import type { TaskSortParam } from '@contract/enums';
import type { NewTaskDefaults } from '../api/tasks';
import { useTeamData } from '../app/team-data';
import { Link } from '../ui/Link';
import { DueDateField } from './DueDateField';
import { AssigneePicker, DoneCheckbox, ListPicker, PriorityField, StatusField } from './fields';
import { LabelPicker } from './labels';
import { QuickAdd } from './QuickAdd';
import type { EditTask } from './use-task-editing';

interface Props {
  task: TaskSummary;
  edit: EditTask;
  /** Defaults every new task of this view gets (the list, or the caller as assignee). */
  newTaskDefaults: NewTaskDefaults;
  /** A subtask whose parent is not in this view says whose subtask it is. */
  orphan?: boolean;
  /** The list this view shows, which the rows need not name. */
  viewListId?: number;
  onSubtaskCreated: () => void;
  children?: ComponentChildren;
}

export function TaskRow({ task, edit, newTaskDefaults, orphan, viewListId, onSubtaskCreated, children }: Props) {
  const { lists } = useTeamData();
  const [addingSubtask, setAddingSubtask] = useState(false);
  const onChange = (change: Parameters<EditTask>[1]) => void edit(task, change);

  // A subtask goes where its parent is: the parent's lists this person can use.
  const parentLists = task.taskLists.map((list) => list.id).filter((id) => lists?.some((list) => list.id === id));
  const subtaskDefaults: NewTaskDefaults = {
    ...newTaskDefaults,
    taskListIds: [...new Set([...(newTaskDefaults.taskListIds ?? []), ...parentLists])],
    parentId: task.id,
  };

  return (
    <li class="task" data-task-id={task.id}>
      <div class={`task-row${task.isCompleted ? ' is-completed' : ''}`}>
        <DoneCheckbox task={task} onChange={onChange} />
        <div class="task-title">
          <Link href={`/tasks/${task.id}`} class="task-link" data-task-link>
            {task.title}
          </Link>
          <span class="task-number">#{task.number}</span>
          {orphan && task.parentId !== null && (
            <Link href={`/tasks/${task.parentId}`} class="task-parent-hint">
              subtask of another task
            </Link>
          )}
          <span class="task-labels">
            <LabelPicker task={task} onChange={onChange} compact />
          </span>
        </div>
        <div class="task-fields">
          <span class="cell cell-lists">
            <ListPicker task={task} onChange={onChange} compact viewListId={viewListId} align="end" />
          </span>
          <span class="cell cell-status" data-status-control>
            <StatusField task={task} onChange={onChange} compact />
          </span>
          <span class="cell cell-priority">
            <PriorityField task={task} onChange={onChange} compact />
          </span>
          <span class="cell cell-due">
            <DueDateField task={task} onChange={onChange} compact />
          </span>
          <span class="cell cell-assignees">
            <AssigneePicker task={task} onChange={onChange} compact align="end" />
          </span>
          <span class="cell cell-add">
            <button
              type="button"
              class="value-chip is-empty add-subtask"
              aria-label={`Add a subtask to “${task.title}”`}
              title="Add a subtask"
              aria-expanded={addingSubtask}
              onClick={() => setAddingSubtask(!addingSubtask)}
            >
              <span aria-hidden="true">+</span>
            </button>
          </span>
        </div>
      </div>
      {(children || addingSubtask) && (
        <ul class="subtasks" aria-label={`Subtasks of ${task.title}`}>
          {children}
          {addingSubtask && (
            <li class="subtask-add">
              <QuickAdd
                defaults={subtaskDefaults}
                label={`New subtask of “${task.title}”`}
                placeholder="Add a subtask and press Enter"
                autoFocus
                onCreated={onSubtaskCreated}
                onCancel={() => setAddingSubtask(false)}
              />
            </li>
          )}
        </ul>
      )}
    </li>
  );
}

/**
 * The names of a row's columns, over the rows of a list; Task, Priority and Due sort it (each
 * click: ascending, descending, back to newest first). Where the values go under the titles, the
 * CSS keeps only those three, as a row of buttons. The other names are hidden from assistive
 * technology: there every value already says what it is ("Status of “Book the venue”: To do").
 */
export function TaskRowHeader({
  sort,
  onSort,
}: {
  sort: TaskSortParam | '';
  onSort: (sort: TaskSortParam | '') => void;
}) {
  const sortBy = (key: 'title' | 'priority' | 'dueDate', label: string) => {
    const direction = sort === key ? 'ascending' : sort === `-${key}` ? 'descending' : null;
    return (
      <button
        type="button"
        class="sort-button"
        aria-label={`${label}, ${direction ? `sorted ${direction}` : 'not sorted'}`}
        onClick={() => onSort(direction === null ? key : direction === 'ascending' ? `-${key}` : '')}
      >
        {label}
        {direction && <span aria-hidden="true">{direction === 'ascending' ? ' ▲' : ' ▼'}</span>}
      </button>
    );
  };
  return (
    <div class="task-row task-row-header" role="group" aria-label="Sort tasks">
      <span />
      <span class="task-title">{sortBy('title', 'Task')}</span>
      <span class="task-fields">
        <span class="cell cell-lists" aria-hidden="true">
          Lists
        </span>
        <span class="cell cell-status" aria-hidden="true">
          Status
        </span>
        <span class="cell cell-priority">{sortBy('priority', 'Priority')}</span>
        <span class="cell cell-due">{sortBy('dueDate', 'Due')}</span>
        <span class="cell cell-assignees" aria-hidden="true">
          Assignees
        </span>
        <span class="cell cell-add" />
      </span>
    </div>
  );
}
