/**
 * Attachment rows, and the team's byte counter (`teams.attachment_bytes`) that the quota holds.
 * Read within the caller's team; the service checks the task's access first.
 */
import { sql } from 'kysely';
import { pastTaskRow, taskRowsPage, type TaskRowKey, type TaskRowsPage } from '../storage/dialect.js';
import { prepared } from '../storage/prepared.js';
import type { AttachmentRow, Db } from '../storage/schema.js';

export interface AttachmentRecord {
  id: number;
  teamId: string;
  taskId: number;
  storageKey: string;
  name: string;
  size: number;
  contentType: string;
  sha256: string;
  uploadedBy: { id: string; name: string };
  createdAt: string;
}

type WithUploader = AttachmentRow & { uploader_name: string };

function toRecord(row: WithUploader): AttachmentRecord {
  return {
    id: row.id,
    teamId: row.team_id,
    taskId: row.task_id,
    storageKey: row.storage_key,
    name: row.name,
    size: Number(row.size),
    contentType: row.content_type,
    sha256: row.sha256,
    uploadedBy: { id: row.uploaded_by, name: row.uploader_name },
    createdAt: row.created_at,
  };
}

const withUploader = (db: Db) =>
  db
    .selectFrom('attachments as a')
    .innerJoin('users as u', 'u.id', 'a.uploaded_by')
    .selectAll('a')
    .select('u.name as uploader_name');

const attachmentRow = prepared((db, p: { teamId: string; attachmentId: number }) =>
  withUploader(db).where('a.id', '=', p.attachmentId).where('a.team_id', '=', p.teamId),
);

/** The attachment, if it is the team's. */
export async function findAttachment(
  db: Db,
  teamId: string,
  attachmentId: number,
): Promise<AttachmentRecord | undefined> {
  const [row] = await attachmentRow(db, { teamId, attachmentId });
  return row && toRecord(row);
}

const taskRows = prepared((db, p: { taskId: number }) =>
  withUploader(db).where('a.task_id', '=', p.taskId).orderBy('a.id'),
);

/** The task's attachments, oldest first, from the (task_id, id) index. */
export async function attachmentsOfTask(db: Db, taskId: number): Promise<AttachmentRecord[]> {
  return (await taskRows(db, { taskId })).map(toRecord);
}

const tasksRows = prepared((db, p: TaskRowsPage) => pastTaskRow(db, withUploader(db), 'a', p));

/**
 * The attachments of a page of tasks (an export: one statement per `limit` rows, not one per
 * task), by task id then attachment id, those after attachment `after.id` of task `after.taskId`
 * (0, 0 for the first read): keyset on the (task_id, id) index, at most `limit`.
 */
export async function attachmentsOfTasks(
  db: Db,
  taskIds: readonly number[],
  after: TaskRowKey,
  limit: number,
): Promise<AttachmentRecord[]> {
  if (taskIds.length === 0) return [];
  const rows = await tasksRows(db, taskRowsPage(db, taskIds, after, limit));
  return rows.map(toRecord);
}

/** The team's bytes in use. */
export async function bytesInUse(db: Db, teamId: string): Promise<number> {
  const row = await db.selectFrom('teams').select('attachment_bytes').where('id', '=', teamId).executeTakeFirst();
  return Number(row?.attachment_bytes ?? 0);
}

/**
 * Counts `size` more bytes against the team's quota, if they fit: one conditional UPDATE, which
 * takes the team row's lock (held to commit), so concurrent uploads are counted one after the
 * other and never pass the quota together. False: they do not fit.
 */
export async function reserveBytes(db: Db, teamId: string, size: number, quota: number): Promise<boolean> {
  const result = await db
    .updateTable('teams')
    .set({ attachment_bytes: sql`attachment_bytes + ${size}` })
    .where('id', '=', teamId)
    .where(sql<boolean>`attachment_bytes + ${size} <= ${quota}`)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function releaseBytes(db: Db, teamId: string, size: number): Promise<void> {
  await db
    .updateTable('teams')
    .set({ attachment_bytes: sql`attachment_bytes - ${size}` })
    .where('id', '=', teamId)
    .execute();
}

/** An attachment before its row exists: all but what the insert gives it. */
export type NewAttachment = Omit<AttachmentRecord, 'id' | 'createdAt'>;

export async function insertAttachment(db: Db, values: NewAttachment): Promise<AttachmentRecord> {
  const row = await db
    .insertInto('attachments')
    .values({
      team_id: values.teamId,
      task_id: values.taskId,
      storage_key: values.storageKey,
      name: values.name,
      size: values.size,
      content_type: values.contentType,
      sha256: values.sha256,
      uploaded_by: values.uploadedBy.id,
      created_at: new Date().toISOString(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toRecord({ ...row, uploader_name: values.uploadedBy.name });
}

/** Deletes the row; false when it was gone already (a concurrent deletion came first). */
export async function deleteAttachment(db: Db, attachmentId: number): Promise<boolean> {
  const result = await db.deleteFrom('attachments').where('id', '=', attachmentId).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** Which of `keys` some row names. */
export async function namedKeys(db: Db, keys: readonly string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const rows = await db.selectFrom('attachments').select('storage_key').where('storage_key', 'in', keys).execute();
  return new Set(rows.map((r) => r.storage_key));
}
