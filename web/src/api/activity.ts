/** A task's activity: who changed what, newest first (GET /v1/tasks/{id}/activity), and one entry whole. */
import { get, getPage, type Page } from './client';
import type { ActivityEntry } from '@contract';

/** Entries the timeline asks for per page (a page cut by its size holds fewer). */
export const ACTIVITY_PAGE = 50;

/** The newest entries, or with `before` the ones older than that entry id; `more` says whether older ones remain. */
export function fetchActivity(taskId: number, page: { before?: number } = {}): Promise<Page<ActivityEntry>> {
  const query = new URLSearchParams({ limit: String(ACTIVITY_PAGE) });
  if (page.before !== undefined) query.set('before', String(page.before));
  return getPage<ActivityEntry>(`/v1/tasks/${taskId}/activity`, query);
}

/** One entry whole: a description's texts, which a page shortens, in full. */
export const fetchActivityEntry = (taskId: number, entryId: number) =>
  get<ActivityEntry>(`/v1/tasks/${taskId}/activity/${entryId}`);
