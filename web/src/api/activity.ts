/** A task's activity: who changed what, newest first (GET /v1/tasks/{id}/activity). */
import { get } from './client';
import type { ActivityEntry } from '@contract';

/** Entries the timeline shows per page. */
export const ACTIVITY_PAGE = 50;

/**
 * The newest entries, or with `before` the ones older than that entry id: one more than a page,
 * so the answer says whether older entries remain.
 */
export function fetchActivity(taskId: number, page: { before?: number } = {}) {
  const query = new URLSearchParams({ limit: String(ACTIVITY_PAGE + 1) });
  if (page.before !== undefined) query.set('before', String(page.before));
  return get<ActivityEntry[]>(`/v1/tasks/${taskId}/activity`, query);
}
