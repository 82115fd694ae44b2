/**
 * Comments on a task. Access is the task's: the task named by the path is found as
 * GET /v1/tasks/{id} finds it (same 404 and 403), then the comment within it (404). Anyone who
 * may access the task may read and write its comments; only the author may edit one, and the
 * author or the team's owners and admins may delete one.
 *
 * A change keeps the task locked (`keep`: a deletion of the task waits, or comes first) and
 * locks the comment (If-Match is checked against it), then writes the comment, its
 * `comment.*` event to the task's audience and the task's activity entry: one transaction, the
 * event and the entry in its last statement (changes/outbox.ts).
 */
import type { Caller } from '../caller.js';
import type { ActivityKind, Comment, CommentDeleted, CommentsQuery } from '../contract/index.js';
import { peopleByIds } from '../activity/activity.repository.js';
import { cursorBound, pageLimit } from '../activity/pages.js';
import { notificationsOf, replaceMentions, setFollowing } from '../changes/notifications.js';
import type { NewNotifications } from '../changes/notifications.js';
import { recordEvent } from '../changes/outbox.js';
import { checkIfMatch } from '../http/etag.js';
import { forbidden, notFound } from '../http/errors.js';
import { toId } from '../ids.js';
import { fillPage, type Page } from '../pages.js';
import type { Store } from '../storage/database.js';
import type { Locked, RowLock } from '../storage/dialect.js';
import type { Db } from '../storage/schema.js';
import { audienceOf, readersAmong, type TaskAudience } from '../tasks/access.js';
import { hasMentions, mentionedMembers } from '../tasks/mentions.js';
import { importing, readingFollowers } from '../tasks/task-notifications.js';
import { keepAccessibleTask, loadAccessibleTask } from '../tasks/tasks.service.js';
import * as comments from './comments.repository.js';
import type { CommentRecord } from './comments.repository.js';
import { presentComment, type VersionedComment } from './comments.presenter.js';
import { viaOf } from '../changes/activity-entries.js';

export type { VersionedComment };

const commentNotFound = (rawCommentId: string) => notFound(`Comment ${rawCommentId} not found.`);

/** The comment the path names, within the task, under its row lock; 404 when the task has no such comment. */
async function loadCommentForChange(
  trx: Db,
  taskId: number,
  rawCommentId: string,
  lock: RowLock,
): Promise<Locked<CommentRecord>> {
  const commentId = toId(rawCommentId);
  const comment = commentId === null ? undefined : await comments.findCommentLocked(trx, taskId, commentId, lock);
  if (!comment) throw commentNotFound(rawCommentId);
  return comment;
}

/** Records the comment's event, to everyone who may read the task, and the task's activity entry. */
async function recordCommentChange(
  trx: Db,
  caller: Caller,
  kind: ActivityKind & `comment.${string}`,
  comment: CommentRecord,
  notify?: (audience: TaskAudience) => Promise<NewNotifications | undefined>,
) {
  const audience = await audienceOf(trx, comment.taskId);
  await recordEvent(trx, {
    teamId: caller.teamId,
    type: kind,
    data: { taskId: comment.taskId, commentId: comment.id },
    audience,
    notifications: notify && (await notify(audience)),
    activity: {
      taskId: comment.taskId,
      actorId: caller.userId,
      via: viaOf(caller),
      kind,
      changes: {
        commentId: {
          from: kind === 'comment.created' ? null : comment.id,
          to: kind === 'comment.deleted' ? null : comment.id,
        },
      },
    },
  });
}

/**
 * The members `body` mentions anew (stored by id in place of what `before` mentioned) who may
 * read the task: they are notified, and follow it.
 */
async function newlyMentioned(
  trx: Db,
  caller: Caller,
  comment: CommentRecord,
  before: string | null,
): Promise<string[]> {
  if (!hasMentions(comment.body) && !hasMentions(before)) return [];
  const members = await mentionedMembers(trx, caller.teamId, [comment.body]);
  const added = await replaceMentions(trx, comment.taskId, comment.id, members, hasMentions(before));
  return readersAmong(trx, comment.taskId, added);
}

/**
 * Who a new comment notifies: the members it mentions, and the task's followers (its creator and
 * assignees, and those who chose to follow it: `audience`), its author aside; the author and the
 * members mentioned follow the task from now on.
 */
async function notifyOfComment(
  trx: Db,
  caller: Caller,
  comment: CommentRecord,
  audience: TaskAudience,
): Promise<NewNotifications | undefined> {
  if (importing(caller)) return undefined;
  const followers = await readingFollowers(trx, comment.taskId, audience.users, audience.follows);
  const mentioned = await newlyMentioned(trx, caller, comment, null);
  const newFollowers = [caller.userId, ...mentioned].filter((id) => !followers.has(id));
  await setFollowing(trx, comment.taskId, newFollowers, true);
  return notificationsOf({
    taskId: comment.taskId,
    actorId: caller.userId,
    mentioned,
    followers: { kind: 'commented', users: followers },
  });
}

/** An edited comment notifies only the members it mentions anew, who then follow the task. */
async function notifyOfEdit(
  trx: Db,
  caller: Caller,
  comment: CommentRecord,
  before: string,
): Promise<NewNotifications | undefined> {
  const mentioned = await newlyMentioned(trx, caller, comment, before);
  await setFollowing(trx, comment.taskId, mentioned, true);
  return notificationsOf({ taskId: comment.taskId, actorId: caller.userId, mentioned });
}

/** The task's comments, oldest first, after the `after` cursor. */
export async function listComments(
  store: Store,
  caller: Caller,
  rawTaskId: string,
  query: CommentsQuery,
): Promise<Page<Comment>> {
  const task = await loadAccessibleTask(store.db, caller, rawTaskId);
  const limit = pageLimit(query.limit);
  const { records, found } = await comments.commentsPage(store.db, task.id, {
    after: cursorBound(query.after, 'after'),
    limit,
  });
  return fillPage(records, found, limit, presentComment);
}

export async function getComment(
  store: Store,
  caller: Caller,
  rawTaskId: string,
  rawCommentId: string,
): Promise<VersionedComment> {
  const task = await loadAccessibleTask(store.db, caller, rawTaskId);
  const commentId = toId(rawCommentId);
  const comment = commentId === null ? undefined : await comments.findComment(store.db, task.id, commentId);
  if (!comment) throw commentNotFound(rawCommentId);
  return presentComment(comment);
}

export async function createComment(
  store: Store,
  caller: Caller,
  rawTaskId: string,
  body: string,
): Promise<VersionedComment> {
  return store.transaction(async (trx) => {
    const task = await keepAccessibleTask(trx, caller, rawTaskId);
    const author = (await peopleByIds(trx, [caller.userId])).get(caller.userId)!;
    const comment = await comments.insertComment(trx, task.id, author, body);
    await recordCommentChange(trx, caller, 'comment.created', comment, (audience) =>
      notifyOfComment(trx, caller, comment, audience),
    );
    return presentComment(comment);
  });
}

/** Only the author may edit; the same body again changes nothing (no new version, event or entry). */
export async function updateComment(
  store: Store,
  caller: Caller,
  rawTaskId: string,
  rawCommentId: string,
  body: string,
  ifMatch?: string,
): Promise<VersionedComment> {
  return store.transaction(async (trx) => {
    const task = await keepAccessibleTask(trx, caller, rawTaskId);
    const comment = await loadCommentForChange(trx, task.id, rawCommentId, 'change');
    if (comment.author.id !== caller.userId) throw forbidden('Only its author may edit a comment.');
    checkIfMatch(ifMatch, comment, 'comment');
    if (comment.body === body) return presentComment(comment);
    const updated = await comments.updateCommentBody(trx, comment, body);
    await recordCommentChange(trx, caller, 'comment.updated', updated, () =>
      notifyOfEdit(trx, caller, updated, comment.body),
    );
    return presentComment(updated);
  });
}

/** The author may delete a comment, and so may the team's owners and admins. */
export async function deleteComment(
  store: Store,
  caller: Caller,
  rawTaskId: string,
  rawCommentId: string,
  ifMatch?: string,
): Promise<CommentDeleted> {
  return store.transaction(async (trx) => {
    const task = await keepAccessibleTask(trx, caller, rawTaskId);
    const comment = await loadCommentForChange(trx, task.id, rawCommentId, 'delete');
    const moderates = caller.role === 'owner' || caller.role === 'admin';
    if (comment.author.id !== caller.userId && !moderates) {
      throw forbidden("Only its author, or the team's owners and admins, may delete a comment.");
    }
    checkIfMatch(ifMatch, comment, 'comment');
    await comments.deleteComment(trx, comment.id);
    await recordCommentChange(trx, caller, 'comment.deleted', comment);
    return { id: comment.id, taskId: comment.taskId, deleted: true };
  });
}
