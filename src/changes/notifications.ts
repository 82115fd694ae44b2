/**
 * Notifications (issue 30) as a change leaves them: who a change notifies, decided in its
 * transaction from what the change already knows (the people it assigned and unassigned, the
 * members it mentioned, the task's followers), and written by the outbox with the change's event
 * (outbox.ts: one row and one `notification.created` event per person, in the event's own
 * statement on PostgreSQL). A change that notifies nobody writes nothing here.
 *
 * Following: a task's creator and assignees follow it without a row; `task_followers` holds the
 * others who follow it (they followed it, commented on it, or were mentioned in it), and those
 * who stopped (`following` 0, which a creator or an assignee needs). The mentions of a comment or
 * a description are stored by user id (`mentions`), so a rename keeps them.
 */
import { sql } from 'kysely';
import type { NotificationKind } from '../contract/enums.js';
import { listParam, listValues, type ListParam } from '../storage/dialect.js';
import { prepared } from '../storage/prepared.js';
import type { Db } from '../storage/schema.js';

/** The event type each notification sends, to its recipient alone. */
export const NOTIFICATION_CREATED = 'notification.created';

/** The people a change notifies, each with the kind of their one notification. */
export interface NewNotifications {
  taskId: number;
  /** Null: an operator's change (`tasklane admin`). */
  actorId: string | null;
  recipients: readonly { userId: string; kind: NotificationKind }[];
  /** A reminder fired late (every process was down at its time): its notification says so. */
  late?: boolean;
}

/** What a change did that may notify people. */
export interface NotificationPlan {
  taskId: number;
  actorId: string | null;
  assigned?: Iterable<string>;
  unassigned?: Iterable<string>;
  /** Members mentioned (and able to read the task): `mentioned`. */
  mentioned?: Iterable<string>;
  /** The task's followers, notified `kind` (a comment, a status change). */
  followers?: { kind: 'commented' | 'statusChanged'; users: Iterable<string> };
}

/**
 * One notification per person a change concerns, the most direct kind first (assigned,
 * unassigned, mentioned, then the followers' kind), and none to whoever made the change; no
 * recipients: undefined, and the outbox writes nothing.
 */
export function notificationsOf(plan: NotificationPlan): NewNotifications | undefined {
  const kinds = new Map<string, NotificationKind>();
  const add = (users: Iterable<string> | undefined, kind: NotificationKind) => {
    for (const userId of users ?? []) if (userId !== plan.actorId && !kinds.has(userId)) kinds.set(userId, kind);
  };
  add(plan.assigned, 'assigned');
  add(plan.unassigned, 'unassigned');
  add(plan.mentioned, 'mentioned');
  add(plan.followers?.users, plan.followers?.kind ?? 'commented');
  if (kinds.size === 0) return undefined;
  return {
    taskId: plan.taskId,
    actorId: plan.actorId,
    recipients: [...kinds].map(([userId, kind]) => ({ userId, kind })),
  };
}

/** A row of `task_followers`: someone who chose to follow a task, or to stop. */
export interface FollowChoice {
  userId: string;
  following: boolean;
}

/**
 * Who follows the task: its creator and assignees (`implicit`) and those who chose to, less those
 * who stopped. The choices come with the task's audience (tasks/access.ts reads them in the same
 * statement), so knowing the followers costs no statement of its own.
 */
export function followersFrom(implicit: Iterable<string>, choices: readonly FollowChoice[] = []): Set<string> {
  const followers = new Set(implicit);
  for (const choice of choices) {
    if (choice.following) followers.add(choice.userId);
    else followers.delete(choice.userId);
  }
  return followers;
}

const upsertFollowing = prepared(
  (db, p: { taskId: number; userIds: ListParam; following: number; createdAt: string }) =>
    db
      .insertInto('task_followers')
      .columns(['task_id', 'user_id', 'following', 'created_at'])
      .expression(
        db
          .selectFrom(listValues(db, p.userIds))
          .select((eb) => [
            eb.cast(eb.val(p.taskId), 'integer').as('task_id'),
            'v.value as user_id',
            eb.cast(eb.val(p.following), 'integer').as('following'),
            eb.cast(eb.val(p.createdAt), 'text').as('created_at'),
          ])
          // SQLite reads ON CONFLICT after an INSERT … SELECT as the SELECT's join unless it has a WHERE.
          .where(sql<boolean>`true`),
      )
      .onConflict((oc) => oc.columns(['task_id', 'user_id']).doUpdateSet({ following: sql`excluded.following` })),
);

/** The users follow the task (`following`), or stop following it: one statement, none for no one. */
export async function setFollowing(db: Db, taskId: number, userIds: readonly string[], following: boolean) {
  if (userIds.length === 0) return;
  await upsertFollowing(db, {
    taskId,
    userIds: listParam(db, [...new Set(userIds)]),
    following: following ? 1 : 0,
    createdAt: new Date().toISOString(),
  });
}

const insertMentions = prepared(
  (db, p: { taskId: number; commentId: number | null; userIds: ListParam; createdAt: string }) =>
    db
      .insertInto('mentions')
      .columns(['task_id', 'comment_id', 'user_id', 'created_at'])
      .expression(
        db
          .selectFrom(listValues(db, p.userIds))
          .select((eb) => [
            eb.cast(eb.val(p.taskId), 'integer').as('task_id'),
            eb.cast(eb.val(p.commentId), 'integer').as('comment_id'),
            'v.value as user_id',
            eb.cast(eb.val(p.createdAt), 'text').as('created_at'),
          ]),
      ),
);

const descriptionMentions = prepared((db, p: { taskId: number }) =>
  db.selectFrom('mentions').select('user_id').where('task_id', '=', p.taskId).where('comment_id', 'is', null),
);
const commentMentions = prepared((db, p: { commentId: number }) =>
  db.selectFrom('mentions').select('user_id').where('comment_id', '=', p.commentId),
);
const deleteDescriptionMentions = prepared((db, p: { taskId: number }) =>
  db.deleteFrom('mentions').where('task_id', '=', p.taskId).where('comment_id', 'is', null),
);
const deleteCommentMentions = prepared((db, p: { commentId: number }) =>
  db.deleteFrom('mentions').where('comment_id', '=', p.commentId),
);

/**
 * Stores the members a text mentions now (a comment's, or with `commentId` null the task's
 * description), in place of those it mentioned before, and answers those it did not mention
 * before: who is newly mentioned, and so notified. A text that mentions no one, before or now,
 * costs one read (`hadMentions` false: none).
 */
export async function replaceMentions(
  db: Db,
  taskId: number,
  commentId: number | null,
  userIds: readonly string[],
  hadMentions = true,
): Promise<string[]> {
  const before = !hadMentions
    ? []
    : commentId === null
      ? await descriptionMentions(db, { taskId })
      : await commentMentions(db, { commentId });
  const was = new Set(before.map((row) => row.user_id));
  const now = [...new Set(userIds)];
  if (was.size === now.length && now.every((id) => was.has(id))) return [];
  if (was.size > 0) {
    if (commentId === null) await deleteDescriptionMentions(db, { taskId });
    else await deleteCommentMentions(db, { commentId });
  }
  if (now.length > 0) {
    await insertMentions(db, {
      taskId,
      commentId,
      userIds: listParam(db, now),
      createdAt: new Date().toISOString(),
    });
  }
  return now.filter((id) => !was.has(id));
}
