/** A view's tasks with each subtask under its parent (when the parent is in the view too). */
import type { TaskSummary } from '@contract';
import type { NewTaskDefaults } from '../api/tasks';
import { TaskRow } from './TaskRow';
import type { EditTask } from './use-task-editing';

interface Props {
  tasks: TaskSummary[];
  edit: EditTask;
  newTaskDefaults: NewTaskDefaults;
  /** The list this view shows, if it shows one. */
  viewListId?: number;
  onSubtaskCreated: () => void;
}

export function TaskTree({ tasks, edit, newTaskDefaults, viewListId, onSubtaskCreated }: Props) {
  const inView = new Set(tasks.map((task) => task.id));
  const childrenOf = new Map<number, TaskSummary[]>();
  for (const task of tasks) {
    if (task.parentId !== null && inView.has(task.parentId)) {
      childrenOf.set(task.parentId, [...(childrenOf.get(task.parentId) ?? []), task]);
    }
  }

  const renderTask = (task: TaskSummary, depth: number) => {
    // Subtasks in the order they were made; a cycle cannot exist, but depth is bounded anyway.
    const children = depth < 8 ? [...(childrenOf.get(task.id) ?? [])].sort((a, b) => a.id - b.id) : [];
    return (
      <TaskRow
        key={task.id}
        task={task}
        edit={edit}
        newTaskDefaults={newTaskDefaults}
        orphan={task.parentId !== null && !inView.has(task.parentId)}
        viewListId={viewListId}
        onSubtaskCreated={onSubtaskCreated}
      >
        {children.length > 0 ? children.map((child) => renderTask(child, depth + 1)) : undefined}
      </TaskRow>
    );
  };

  const topLevel = tasks.filter((task) => task.parentId === null || !inView.has(task.parentId));
  return <ul class="task-list">{topLevel.map((task) => renderTask(task, 0))}</ul>;
}
