/**
 * A task's activity (GET /v1/tasks/{id}/activity): the task as GET /v1/tasks/{id} finds it (same
 * answers for a missing, another team's or an inaccessible task), then a page of its entries,
 * newest first, with the people and lists they name as this reader may see them.
 *
 * Entries are written by the changes themselves, in their transactions (tasks.service.ts,
 * comments.service.ts, statuses.service.ts (a deleted status's tasks), and the removal of a
 * member: teams.repository.ts).
 */
import type { Caller } from '../caller.js';
import type { ActivityEntry, ActivityQuery } from '../contract/index.js';
import type { Store } from '../storage/database.js';
import { loadAccessibleTask } from '../tasks/tasks.service.js';
import { activityPage, listsVisibleTo, peopleByIds } from './activity.repository.js';
import { namedIn, presentActivity } from './activity.presenter.js';
import { cursorBound, pageLimit } from './pages.js';

export async function taskActivity(
  store: Store,
  caller: Caller,
  rawTaskId: string,
  query: ActivityQuery,
): Promise<ActivityEntry[]> {
  const task = await loadAccessibleTask(store.db, caller, rawTaskId);
  const records = await activityPage(store.db, task.id, {
    through: cursorBound(query.before, 'before'),
    limit: pageLimit(query.limit),
  });
  const { userIds, listIds } = namedIn(records);
  const people = await peopleByIds(store.db, userIds);
  const lists = await listsVisibleTo(store.db, caller.userId, listIds);
  return presentActivity(records, people, lists);
}
