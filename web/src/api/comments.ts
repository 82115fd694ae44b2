/** Comments on a task: read oldest first, written by anyone with access, edited by their author. */
import { getPage, request, type ApiResponse } from './client';
import type { Comment, CommentBody, CommentDeleted } from '@contract';

/** The API's longest comment, in characters (the contract's MAX_COMMENT_LENGTH, not imported as a value). */
export const MAX_COMMENT_LENGTH = 20_000;
/** The most comments one request may return. */
const COMMENTS_PAGE = 200;

const path = (taskId: number, commentId?: number) =>
  `/v1/tasks/${taskId}/comments${commentId === undefined ? '' : `/${commentId}`}`;

/** Every comment of the task from comment id `fromId` on (all of them without it), oldest first. */
export async function fetchCommentsFrom(taskId: number, fromId?: number): Promise<Comment[]> {
  const comments: Comment[] = [];
  let after = fromId !== undefined && fromId > 1 ? fromId - 1 : undefined;
  for (;;) {
    const query = new URLSearchParams({ limit: String(COMMENTS_PAGE) });
    if (after !== undefined) query.set('after', String(after));
    const page = await getPage<Comment>(path(taskId), query);
    comments.push(...page.items);
    // A page cut by its size holds fewer than asked for: only the answer says whether more remain.
    if (!page.more || page.items.length === 0) return comments;
    after = page.items[page.items.length - 1]!.id;
  }
}

/** One comment with its ETag: the version an edit or a delete is made against. */
export const fetchComment = (taskId: number, commentId: number): Promise<ApiResponse<Comment>> =>
  request<Comment>('GET', path(taskId, commentId));

/** `idempotencyKey`: the same key for a retry of the same comment, so it is posted once. */
export const createComment = (taskId: number, body: string, idempotencyKey: string) =>
  request<Comment>('POST', path(taskId), { body: { body } satisfies CommentBody, idempotencyKey });

/** Refused (412) when the comment changed since version `ifMatch`. */
export const updateComment = (taskId: number, commentId: number, body: string, ifMatch: string | null) =>
  request<Comment>('PATCH', path(taskId, commentId), {
    body: { body } satisfies CommentBody,
    ifMatch: ifMatch ?? undefined,
  });

/** Refused (412) when the comment changed since version `ifMatch`. */
export const deleteComment = (taskId: number, commentId: number, ifMatch: string | null) =>
  request<CommentDeleted>('DELETE', path(taskId, commentId), { ifMatch: ifMatch ?? undefined });
