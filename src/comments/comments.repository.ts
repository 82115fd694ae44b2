/**
 * Comment rows, always read within their task (the service has found the task in the caller's
 * team and checked access first): a comment id of another task is as missing as one that never was.
 */
import { sql } from 'kysely';
import { MAX_PAGE_BYTES, type Person } from '../contract/index.js';
import { textBytes, withinBytes } from '../storage/bounded-reads.js';
import {
  pastTaskRow,
  readLocked,
  taskRowsPage,
  type Locked,
  type RowLock,
  type TaskRowKey,
  type TaskRowsPage,
} from '../storage/dialect.js';
import { prepared } from '../storage/prepared.js';
import type { CommentRow, Db } from '../storage/schema.js';

/** A comment with its author. */
export interface CommentRecord {
  id: number;
  taskId: number;
  author: Person;
  body: string;
  createdAt: string;
  updatedAt: string;
  version: number;
}

type CommentWithAuthor = CommentRow & { name: string; email: string };

function toRecord(row: CommentWithAuthor): CommentRecord {
  return {
    id: row.id,
    taskId: row.task_id,
    author: { id: row.author_id, name: row.name, email: row.email },
    body: row.body,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    version: row.version,
  };
}

const withAuthor = (db: Db) =>
  db
    .selectFrom('task_comments as c')
    .innerJoin('users as u', 'u.id', 'c.author_id')
    .selectAll('c')
    .select(['u.name', 'u.email']);

const commentRow = prepared((db, p: { taskId: number; commentId: number }) =>
  withAuthor(db).where('c.id', '=', p.commentId).where('c.task_id', '=', p.taskId),
);

/** The comment, if it is one of the task's. */
export async function findComment(db: Db, taskId: number, commentId: number): Promise<CommentRecord | undefined> {
  const [row] = await commentRow(db, { taskId, commentId });
  return row && toRecord(row);
}

/**
 * `findComment` under the comment's row lock (`change` or `delete`), held until the transaction
 * ends: a concurrent edit waits here, then reads what the one before it committed (If-Match).
 */
export function findCommentLocked(
  trx: Db,
  taskId: number,
  commentId: number,
  lock: RowLock,
): Promise<Locked<CommentRecord> | undefined> {
  const row = trx.selectFrom('task_comments').select('id').where('id', '=', commentId).where('task_id', '=', taskId);
  return readLocked(trx, row, lock, () => findComment(trx, taskId, commentId));
}

/**
 * Oldest first, from the task's (task_id, id) index: a page costs the same however long the
 * discussion. The page stops at about MAX_PAGE_BYTES of bodies (`withinBytes`), so the database
 * never hands the server 200 comments of 20,000 characters at once.
 */
const pageRows = prepared((db, p: { taskId: number; after: number; limit: number }) =>
  withinBytes(
    db,
    withAuthor(db)
      .select(textBytes(db, sql.ref('c.body')).as('size'))
      .where('c.task_id', '=', p.taskId)
      .where('c.id', '>', p.after)
      .orderBy('c.id')
      .limit(p.limit),
    'asc',
    MAX_PAGE_BYTES,
  ),
);

/**
 * The task's comments with ids above `after`, oldest first: up to `limit` + 1 of them (so the
 * caller knows whether more remain), fewer once their bodies pass about MAX_PAGE_BYTES. `found`:
 * how many the read found before it stopped at that budget.
 */
export async function commentsPage(
  db: Db,
  taskId: number,
  page: { after: number; limit: number },
): Promise<{ records: CommentRecord[]; found: number }> {
  const rows = await pageRows(db, { taskId, after: page.after, limit: page.limit + 1 });
  return { records: rows.map(toRecord), found: Number(rows[0]?.found ?? 0) };
}

/**
 * The comments of a page of tasks, in (task_id, id) order, past `after` (a task id and a comment
 * id of it): an export reads a page of tasks' comments in one statement instead of one per task.
 * Keyset on the (task_id, id) index, so a task with more comments than a page continues in the
 * next read; the same budget of bytes as `pageRows`.
 */
const tasksPageRows = prepared((db, p: TaskRowsPage) =>
  withinBytes(
    db,
    pastTaskRow(db, withAuthor(db).select(textBytes(db, sql.ref('c.body')).as('size')), 'c', p),
    'asc',
    MAX_PAGE_BYTES,
    ['task_id', 'id'],
  ),
);

/**
 * Comments of the tasks `taskIds`, by task id then comment id, those after comment `after.id` of
 * task `after.taskId` (0, 0 for the first read): at most `limit`, fewer once their bodies pass
 * about MAX_PAGE_BYTES. None: there are no more.
 */
export async function commentsOfTasks(
  db: Db,
  taskIds: readonly number[],
  after: TaskRowKey,
  limit: number,
): Promise<CommentRecord[]> {
  if (taskIds.length === 0) return [];
  const rows = await tasksPageRows(db, taskRowsPage(db, taskIds, after, limit));
  return rows.map(toRecord);
}

const insertRow = prepared((db, p: { taskId: number; authorId: string; body: string; now: string }) =>
  db
    .insertInto('task_comments')
    .values({ task_id: p.taskId, author_id: p.authorId, body: p.body, created_at: p.now, updated_at: p.now })
    .returningAll(),
);

/** A new comment by `author`, as stored. */
export async function insertComment(db: Db, taskId: number, author: Person, body: string): Promise<CommentRecord> {
  const [row] = await insertRow(db, { taskId, authorId: author.id, body, now: new Date().toISOString() });
  return toRecord({ ...row!, name: author.name, email: author.email });
}

const updateRow = prepared((db, p: { commentId: number; body: string; now: string }) =>
  db
    .updateTable('task_comments')
    .set((eb) => ({ body: p.body, updated_at: p.now, version: eb('version', '+', 1) }))
    .where('id', '=', p.commentId)
    .returningAll(),
);

/** Replaces the body, stamps updated_at and bumps the version; returns the comment as it now is. */
export async function updateCommentBody(db: Db, comment: CommentRecord, body: string): Promise<CommentRecord> {
  const [row] = await updateRow(db, { commentId: comment.id, body, now: new Date().toISOString() });
  return toRecord({ ...row!, name: comment.author.name, email: comment.author.email });
}

export async function deleteComment(db: Db, commentId: number): Promise<void> {
  await db.deleteFrom('task_comments').where('id', '=', commentId).execute();
}
