/**
 * One task with its ETag, fetched again whenever the event stream says it changed. A task that
 * does not exist, or that this person may not open, is `missing`: the API answers both alike in
 * spirit (404, or 403 within the team), and the page says so the same way.
 */
import { useState } from 'preact/hooks';
import { ApiError } from '../api/client';
import { fetchTask } from '../api/tasks';
import { useLiveEvent } from '../app/live';
import { useAsync } from '../lib/use-async';

const fetchUnlessMissing = (taskId: number) =>
  fetchTask(taskId).catch((failure: unknown) => {
    if (failure instanceof ApiError && (failure.status === 404 || failure.status === 403)) return null;
    throw failure;
  });

export function useLiveTask(taskId: number) {
  const loaded = useAsync(() => fetchUnlessMissing(taskId), [taskId]);
  const [deleted, setDeleted] = useState(false);

  useLiveEvent((event) => {
    if (event.type === 'task.deleted' && event.taskId === taskId) return setDeleted(true);
    // A comment changes the timeline (which follows it by itself), not the task.
    if (event.type.startsWith('comment.')) return;
    // List, status and label events too: a list renamed or archived, a status renamed or deleted
    // (its tasks moved to another), a label renamed or recoloured change what the task shows.
    if (
      event.taskId === taskId ||
      event.type === 'sync.required' ||
      event.type.startsWith('taskList.') ||
      event.type.startsWith('taskStatus.') ||
      event.type.startsWith('label.')
    )
      loaded.reloadSoon();
  });

  return {
    task: loaded.data?.data,
    etag: loaded.data?.etag ?? null,
    missing: loaded.data === null,
    error: loaded.error,
    deleted,
    reload: loaded.reload,
  };
}
