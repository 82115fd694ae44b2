/**
 * A task's activity (GET /v1/tasks/{id}/activity, and one whole entry: …/activity/{entryId}): the
 * task as GET /v1/tasks/{id} finds it (same answers for a missing, another team's or an
 * inaccessible task), then a page of its entries, newest first, or the one entry, with the people
 * and lists they name as this reader may see them.
 *
 * Entries are written by the changes themselves, in their transactions (tasks.service.ts,
 * comments.service.ts, statuses.service.ts (a deleted status's tasks), and the removal of a
 * member: teams.repository.ts).
 */
import type { Caller } from '../caller.js';
import type { ActivityEntry, ActivityQuery } from '../contract/index.js';
import { notFound } from '../http/errors.js';
import { toId } from '../ids.js';
import { fillPage, type Page } from '../pages.js';
import type { Store } from '../storage/database.js';
import type { Db } from '../storage/schema.js';
import { loadAccessibleTask } from '../tasks/tasks.service.js';
import { activityPage, findActivity, listsVisibleTo, peopleByIds, type ActivityRecord } from './activity.repository.js';
import { namedIn, presentEntry } from './activity.presenter.js';
import { withinListLimit } from '../keys/scopes.js';
import { cursorBound, pageLimit } from './pages.js';

/** Presents `records` for `caller`: the people they name, and the lists among them the caller may see. */
async function presenterFor(db: Db, caller: Caller, records: readonly ActivityRecord[]) {
  const { userIds, listIds } = namedIn(records);
  const people = await peopleByIds(db, userIds);
  // A key limited to lists (issue 33) is told only of those of its lists.
  const lists = await listsVisibleTo(
    db,
    caller.userId,
    listIds.filter((id) => withinListLimit(caller, id)),
  );
  return (record: ActivityRecord) => presentEntry(record, people, lists);
}

/** A page of the task's entries, newest first, descriptions shortened, within the page's bytes. */
export async function taskActivity(
  store: Store,
  caller: Caller,
  rawTaskId: string,
  query: ActivityQuery,
): Promise<Page<ActivityEntry>> {
  const task = await loadAccessibleTask(store.db, caller, rawTaskId);
  const limit = pageLimit(query.limit);
  const { records, found } = await activityPage(store.db, task.id, {
    through: cursorBound(query.before, 'before'),
    limit,
  });
  return fillPage(records, found, limit, await presenterFor(store.db, caller, records));
}

/** One of the task's entries, whole (a description's texts in full). */
export async function activityEntry(
  store: Store,
  caller: Caller,
  rawTaskId: string,
  rawEntryId: string,
): Promise<ActivityEntry> {
  const task = await loadAccessibleTask(store.db, caller, rawTaskId);
  const entryId = toId(rawEntryId);
  const record = entryId === null ? undefined : await findActivity(store.db, task.id, entryId);
  if (!record) throw notFound(`Activity entry ${rawEntryId} not found.`);
  return (await presenterFor(store.db, caller, [record]))(record);
}
