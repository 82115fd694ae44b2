/** The API's comment shape (src/contract/comments.ts), with its version for the ETag. */
import type { Comment } from '../contract/index.js';
import type { CommentRecord } from './comments.repository.js';

/** A comment with its version: the basis of its ETag, which the response schema leaves out. */
export type VersionedComment = Comment & { version: number };

export function presentComment(c: CommentRecord): VersionedComment {
  return {
    id: c.id,
    taskId: c.taskId,
    author: c.author,
    body: c.body,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
    version: c.version,
  };
}
