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
import { recordEvent } from '../changes/outbox.js';
import { checkIfMatch } from '../http/etag.js';
import { forbidden, notFound } from '../http/errors.js';
import { toId } from '../ids.js';
import { fillPage, type Page } from '../pages.js';
import type { Store } from '../storage/database.js';
import type { Locked, RowLock } from '../storage/dialect.js';
import type { Db } from '../storage/schema.js';
import { audienceOf } from '../tasks/access.js';
import { keepAccessibleTask, loadAccessibleTask } from '../tasks/tasks.service.js';
import * as comments from './comments.repository.js';
import type { CommentRecord } from './comments.repository.js';
import { presentComment, type VersionedComment } from './comments.presenter.js';

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
) {
  await recordEvent(trx, {
    teamId: caller.teamId,
    type: kind,
    data: { taskId: comment.taskId, commentId: comment.id },
    audience: await audienceOf(trx, comment.taskId),
    activity: {
      taskId: comment.taskId,
      actorId: caller.userId,
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
    await recordCommentChange(trx, caller, 'comment.created', comment);
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
    await recordCommentChange(trx, caller, 'comment.updated', updated);
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
