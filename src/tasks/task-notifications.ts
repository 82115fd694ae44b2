/**
 * Who a task's change notifies (issue 30; changes/notifications.ts writes it with the event), and
 * the following and mentions it leaves. Each read here runs only when the change could notify
 * someone: a PATCH of a title, or a create by someone assigning no one and mentioning no one,
 * reads and writes nothing more.
 */
import type { StoredChanges } from '../changes/activity-entries.js';
import {
  followersFrom,
  notificationsOf,
  replaceMentions,
  setFollowing,
  type FollowChoice,
  type NewNotifications,
} from '../changes/notifications.js';
import type { Caller } from '../caller.js';
import type { Db } from '../storage/schema.js';
import { readersAmong, type TaskAudience } from './access.js';
import { hasMentions, mentionedMembers } from './mentions.js';

/**
 * The task's followers who may read it now: its creator and assignees (`implicit`, readers by the
 * rule), and those who chose to follow it if they still may read it (one read, only when someone
 * beyond its creator and assignees follows it), less those who stopped.
 */
export async function readingFollowers(
  trx: Db,
  taskId: number,
  implicit: readonly string[],
  choices: readonly FollowChoice[],
): Promise<Set<string>> {
  const followers = followersFrom(implicit, choices);
  const own = new Set(implicit);
  const chosen = [...followers].filter((id) => !own.has(id));
  if (chosen.length === 0) return followers;
  const readers = new Set(await readersAmong(trx, taskId, chosen));
  for (const id of chosen) if (!readers.has(id)) followers.delete(id);
  return followers;
}

/**
 * The members the description mentions anew (stored by id, replacing what it mentioned before),
 * those of them who may read the task, who now follow it too.
 */
async function mentionedInDescription(
  trx: Db,
  caller: Caller,
  taskId: number,
  description: string | null,
  before: string | null,
): Promise<string[]> {
  if (!hasMentions(description) && !hasMentions(before)) return [];
  const members = await mentionedMembers(trx, caller.teamId, [description]);
  const added = await replaceMentions(trx, taskId, null, members, hasMentions(before));
  // Mentioning oneself notifies no one and changes nothing of one's following.
  const readers = await readersAmong(
    trx,
    taskId,
    added.filter((id) => id !== caller.userId),
  );
  await setFollowing(trx, taskId, readers, true);
  return readers;
}

/**
 * An import's writes notify no one (docs/api.md, "Imports"): a file of 500 assigned tasks would
 * otherwise be 500 notifications and mails. Its progress goes to the person applying it.
 */
export const importing = (caller: Caller): boolean => caller.credential.kind === 'import';

/** A new task's: its assignees are notified, and the members its description mentions. */
export async function notificationsOfCreate(
  trx: Db,
  caller: Caller,
  task: { id: number; description: string | null; assigneeIds: string[] },
): Promise<NewNotifications | undefined> {
  if (importing(caller)) return undefined;
  const mentioned = await mentionedInDescription(trx, caller, task.id, task.description, null);
  return notificationsOf({ taskId: task.id, actorId: caller.userId, assigned: task.assigneeIds, mentioned });
}

/**
 * A PATCH's: the people it assigned and unassigned, the members a new description mentions anew,
 * and for a status change the task's followers (its creator and assignees after the change, and
 * those who chose to follow it).
 */
export async function notificationsOfUpdate(
  trx: Db,
  caller: Caller,
  /** `before`: its audience before the change (its creator and assignees, and the follow choices). */
  task: { id: number; createdBy: string; before: TaskAudience },
  recorded: StoredChanges,
): Promise<NewNotifications | undefined> {
  if (importing(caller)) return undefined;
  const before = new Set(recorded.assignees?.from ?? []);
  const after = new Set(recorded.assignees?.to ?? []);
  const assigned = [...after].filter((id) => !before.has(id));
  const unassigned = [...before].filter((id) => !after.has(id));
  // Being assigned makes one follow the task again after unfollowing it: a write only for those
  // who had (their choices came with the task's audience).
  const stopped = new Set(task.before.follows.filter((c) => !c.following).map((c) => c.userId));
  await setFollowing(
    trx,
    task.id,
    assigned.filter((id) => stopped.has(id)),
    true,
  );
  const implicit = recorded.assignees ? [task.createdBy, ...recorded.assignees.to] : task.before.users;
  const followers = recorded.status ? await readingFollowers(trx, task.id, implicit, task.before.follows) : undefined;
  const mentioned = recorded.description
    ? await mentionedInDescription(trx, caller, task.id, recorded.description.to, recorded.description.from)
    : [];
  return notificationsOf({
    taskId: task.id,
    actorId: caller.userId,
    assigned,
    unassigned,
    mentioned,
    followers: followers ? { kind: 'statusChanged', users: followers } : undefined,
  });
}
