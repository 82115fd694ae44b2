/** One task with its ETag, fetched again whenever the event stream says it changed. */
import { useState } from 'preact/hooks';
import { fetchTask } from '../api/tasks';
import { useLiveEvent } from '../app/live';
import { useAsync } from '../lib/use-async';

export function useLiveTask(taskId: number) {
  const loaded = useAsync(() => fetchTask(taskId), [taskId]);
  const [deleted, setDeleted] = useState(false);

  useLiveEvent((event) => {
    if (event.type === 'task.deleted' && event.taskId === taskId) return setDeleted(true);
    // List events too: a list renamed or archived changes what the task shows.
    if (event.taskId === taskId || event.type === 'sync.required' || event.type.startsWith('taskList.'))
      loaded.reloadSoon();
  });

  return {
    task: loaded.data?.data,
    etag: loaded.data?.etag ?? null,
    error: loaded.error,
    deleted,
    reload: loaded.reload,
  };
}
