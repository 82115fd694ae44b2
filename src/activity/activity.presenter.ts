/**
 * Activity entries as a reader sees them: people and lists named by the ids stored, and lists
 * the reader is not a member of left out, as `taskLists` leaves them out of a task. A change of
 * `taskLists` that, without them, changes nothing the reader can see is left out as a whole; the
 * entry stays (its `changes` may then be empty), since the task's `updatedAt` and its
 * `task.updated` event have told the reader already that the task changed, never how.
 */
import type { ActivityChanges, ActivityEntry, Person } from '../contract/index.js';
import { byNameThenId } from '../ids.js';
import type { StoredChanges } from '../changes/activity-entries.js';
import type { ActivityRecord } from './activity.repository.js';

/** Who and what the entries of a page name: the ids to look up for this reader. */
export function namedIn(records: readonly { changes: StoredChanges }[]): { userIds: string[]; listIds: number[] } {
  const userIds = new Set<string>();
  const listIds = new Set<number>();
  for (const { changes } of records) {
    for (const id of [...(changes.assignees?.from ?? []), ...(changes.assignees?.to ?? [])]) userIds.add(id);
    for (const id of [...(changes.taskLists?.from ?? []), ...(changes.taskLists?.to ?? [])]) listIds.add(id);
  }
  return { userIds: [...userIds], listIds: [...listIds] };
}

/** The people of a set, by name; a user since gone from the database (none are, today) is left out. */
function peopleOf(ids: readonly string[], people: Map<string, Person>): Person[] {
  return ids.flatMap((id) => people.get(id) ?? []).sort(byNameThenId);
}

/** The lists of a set that the reader may see, by id. */
function listsOf(ids: readonly number[], visible: Map<number, { id: number; name: string }>) {
  return ids.flatMap((id) => visible.get(id) ?? []).sort((a, b) => a.id - b.id);
}

const sameIds = (a: readonly { id: unknown }[], b: readonly { id: unknown }[]) =>
  a.length === b.length && a.every((item, i) => item.id === b[i]!.id);

export function presentChanges(
  stored: StoredChanges,
  people: Map<string, Person>,
  lists: Map<number, { id: number; name: string }>,
): ActivityChanges {
  const { assignees, taskLists, ...plain } = stored;
  const changes: ActivityChanges = plain as ActivityChanges;
  if (assignees) changes.assignees = { from: peopleOf(assignees.from, people), to: peopleOf(assignees.to, people) };
  if (taskLists) {
    const from = listsOf(taskLists.from, lists);
    const to = listsOf(taskLists.to, lists);
    if (!sameIds(from, to)) changes.taskLists = { from, to };
  }
  return changes;
}

/** One entry as `reader` sees it, given the people and the lists (those they may see) its page names. */
export function presentEntry(
  record: ActivityRecord,
  people: Map<string, Person>,
  lists: Map<number, { id: number; name: string }>,
): ActivityEntry {
  return {
    id: record.id,
    taskId: record.taskId,
    actor: record.actor,
    kind: record.kind,
    changes: presentChanges(record.changes, people, lists),
    createdAt: record.createdAt,
    shortened: record.shortened,
    ...(record.via && { via: record.via }),
  };
}
