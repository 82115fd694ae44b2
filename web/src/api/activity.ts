/** A task's activity: who changed what, newest first (GET /v1/tasks/{id}/activity). */
import { get } from './client';
import type { ActivityEntry } from '@contract';

/** Entries on one page of a task's activity (the API's default, and as many as a page may hold: 200). */
export const ACTIVITY_PAGE = 50;

/** The newest entries, or with `before` the ones older than that entry id. */
export function fetchActivity(taskId: number, page: { before?: number; limit?: number } = {}) {
  const query = new URLSearchParams({ limit: String(page.limit ?? ACTIVITY_PAGE) });
  if (page.before !== undefined) query.set('before', String(page.before));
  return get<ActivityEntry[]>(`/v1/tasks/${taskId}/activity`, query);
}
