/** Inline edits of tasks in a view: shown at once, sent to the server, then reloaded. */
import { useCallback } from 'preact/hooks';
import { messageOf } from '../api/client';
import { updateTask } from '../api/tasks';
import type { UpdateTaskBody, TaskSummary } from '@contract';
import { useTeamData } from '../app/team-data';
import type { Async } from '../lib/use-async';
import { useNotify } from '../ui/notices';
import { applyChange } from './apply-change';

export type EditTask = (task: TaskSummary, change: UpdateTaskBody) => Promise<void>;

export function useTaskEditing(tasks: Async<TaskSummary[]>): EditTask {
  const { statuses, members, labels, lists } = useTeamData();
  const notify = useNotify();
  return useCallback(
    async (task: TaskSummary, change: UpdateTaskBody) => {
      const reference = { statuses, members, labels: labels ?? [], lists: lists ?? [] };
      const release = tasks.hold();
      tasks.mutate((all) => all.map((t) => (t.id === task.id ? applyChange(t, change, reference) : t)));
      try {
        // Single-value fields: the last choice wins, and everyone sees it live.
        await updateTask(task.id, change);
      } catch (error) {
        notify(`Could not change “${task.title}”: ${messageOf(error)}`, 'error');
      } finally {
        release(); // reloads the server's version
      }
    },
    [statuses, members, labels, lists, tasks.mutate, tasks.hold],
  );
}
