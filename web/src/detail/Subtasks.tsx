/** The task's subtasks, each with its done box and status, and a line to add another. */
import { fetchSubtasks } from '../api/tasks';
import type { TaskDetail } from '@contract';
import { useLiveEvent } from '../app/live';
import { useTeamData } from '../app/team-data';
import { useAsync } from '../lib/use-async';
import { DoneCheckbox, StatusField } from '../tasks/fields';
import { QuickAdd } from '../tasks/QuickAdd';
import { useTaskEditing } from '../tasks/use-task-editing';
import { ErrorNote } from '../ui/ErrorNote';
import { Link } from '../ui/Link';

export function Subtasks({ task }: { task: TaskDetail }) {
  const { lists } = useTeamData();
  const subtasks = useAsync(() => fetchSubtasks(task.id), [task.id]);
  const edit = useTaskEditing(subtasks);
  useLiveEvent((event) => {
    if (event.type.startsWith('task') || event.type === 'sync.required') subtasks.reloadSoon();
  });
  // New subtasks join the parent's lists (those this person can add to), so they show beside it.
  const taskListIds = task.taskLists.map((list) => list.id).filter((id) => lists?.some((list) => list.id === id));
  const ordered = [...(subtasks.data ?? [])].sort((a, b) => a.id - b.id);

  return (
    <section class="subtask-section" aria-labelledby="subtasks-heading">
      <h2 id="subtasks-heading">Subtasks{subtasks.data ? ` (${subtasks.data.length})` : ''}</h2>
      <ErrorNote message={subtasks.error} />
      <ul class="subtask-list">
        {ordered.map((subtask) => (
          <li key={subtask.id} class={subtask.isCompleted ? 'is-completed' : ''} data-task-id={subtask.id}>
            <DoneCheckbox task={subtask} onChange={(change) => void edit(subtask, change)} />
            <Link href={`/tasks/${subtask.id}`} class="task-link" data-task-link>
              {subtask.title}
            </Link>
            <span class="task-number">#{subtask.number}</span>
            <span data-status-control>
              <StatusField task={subtask} onChange={(change) => void edit(subtask, change)} compact />
            </span>
          </li>
        ))}
      </ul>
      <QuickAdd
        defaults={{ parentId: task.id, taskListIds }}
        label={`New subtask of “${task.title}”`}
        placeholder="Add a subtask and press Enter"
        onCreated={subtasks.reload}
      />
    </section>
  );
}
