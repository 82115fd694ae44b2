/** Comments on a task: /v1/tasks/{taskId}/comments… */
import { Type, type Static } from 'typebox';
import { Page, Person } from './common.js';
import { Cursor, PageLimit } from './activity.js';
import { MarkdownSource } from './tasks.js';

/** Longest comment, in characters (Unicode code points). */
export const MAX_COMMENT_LENGTH = 20_000;

/** A comment's text: CommonMark, under the rules of a description, and not blank. */
const Body = MarkdownSource({
  minLength: 1,
  maxLength: MAX_COMMENT_LENGTH,
  pattern: '\\S',
  errorMessage: `body must be a string of 1 to ${MAX_COMMENT_LENGTH.toLocaleString('en-US')} characters (CommonMark) with at least one non-whitespace character.`,
});

export const CommentBody = Type.Object({ body: Body }, { additionalProperties: false });
export type CommentBody = Static<typeof CommentBody>;

export const CommentParams = Type.Object({
  taskId: Type.String({ pattern: '^\\d+$', errorMessage: 'taskId must be a number.' }),
  commentId: Type.String({ pattern: '^\\d+$', errorMessage: 'commentId must be a number.' }),
});

export const CommentsQuery = Type.Object(
  {
    limit: Type.Optional(PageLimit('comments')),
    after: Type.Optional(
      Cursor(
        'after',
        'a comment',
        'A comment id: only comments newer than it (the next page: the id of the last comment received).',
      ),
    ),
  },
  { additionalProperties: false },
);
export type CommentsQuery = Static<typeof CommentsQuery>;

export const Comment = Type.Object({
  id: Type.Number(),
  taskId: Type.Number(),
  author: Person,
  body: Type.String({ description: 'CommonMark source.' }),
  createdAt: Type.String(),
  updatedAt: Type.String({ description: 'Later than createdAt once the comment has been edited.' }),
});
export type Comment = Static<typeof Comment>;

/** A page of a task's comments, oldest first. */
export const CommentsPage = Page(Comment, '`after=<id of the last comment>`');

export const CommentDeleted = Type.Object({ id: Type.Number(), taskId: Type.Number(), deleted: Type.Boolean() });
export type CommentDeleted = Static<typeof CommentDeleted>;
