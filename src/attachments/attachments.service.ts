/**
 * Files on tasks (issue 31). Access is the task's: the task is found as GET /v1/tasks/{id} finds
 * it (404 missing or another team's, 403 without access), on every read and every download.
 *
 * An upload streams the file into the file store (under a new random key) first, counting,
 * hashing and keeping its head for the sniffing, and stops at the smaller of the file limit and
 * what remains of the team's quota (413, and the store keeps nothing). Then one transaction keeps
 * the task, counts the bytes against the quota (a conditional UPDATE of the team's counter, under
 * its row lock: concurrent uploads never pass the quota together), inserts the row and records the
 * `attachment.created` event with the task's activity entry. If that transaction fails, the file
 * is deleted; if the process dies in between, the file is an orphan the reconciliation deletes
 * (reconcile.ts). A deletion removes the row (releasing its bytes) and, after commit, the file.
 */
import type { Readable } from 'node:stream';
import type { Caller } from '../caller.js';
import type { Attachment, AttachmentDeleted, AttachmentList } from '../contract/index.js';
import { peopleByIds } from '../activity/activity.repository.js';
import { recordEvent } from '../changes/outbox.js';
import { AppError, forbidden, invalidInput, notFound } from '../http/errors.js';
import { toId } from '../ids.js';
import type { Store } from '../storage/database.js';
import type { Db } from '../storage/schema.js';
import { audienceOf } from '../tasks/access.js';
import { keepAccessibleTask, loadAccessibleTask } from '../tasks/tasks.service.js';
import * as attachments from './attachments.repository.js';
import type { AttachmentRecord } from './attachments.repository.js';
import { presentAttachment } from './attachments.presenter.js';
import { displayName, HeadKeeper, sniffContentType } from './sniff.js';
import { newFileKey } from './storage/disk-store.js';
import { FileMissing, FileTooLarge, type FileStore } from './storage/file-store.js';
import { viaOf } from '../changes/activity-entries.js';

export interface AttachmentLimits {
  maxFileBytes: number;
  teamQuotaBytes: number;
}

/** The upload's file part, as the route reads it from the request; undefined: there is none. */
export interface IncomingFile {
  fieldname: string;
  filename: string | undefined;
  stream: Readable;
  /** Whether the request parser cut the file short at its own limit. */
  truncated(): boolean;
}

const attachmentNotFound = (raw: string) => notFound(`Attachment ${raw} not found.`);
const tooLarge = (message: string) => new AppError('tooLarge', message, { connection: 'close' });

/** The attachment the path names, within the caller's team and readable as its task is. */
async function loadAccessibleAttachment(db: Db, caller: Caller, rawId: string): Promise<AttachmentRecord> {
  const id = toId(rawId);
  const attachment = id === null ? undefined : await attachments.findAttachment(db, caller.teamId, id);
  if (!attachment) throw attachmentNotFound(rawId);
  await loadAccessibleTask(db, caller, String(attachment.taskId));
  return attachment;
}

async function recordAttachmentChange(
  trx: Db,
  caller: Caller,
  type: 'attachment.created' | 'attachment.deleted',
  attachment: AttachmentRecord,
) {
  const file = { id: attachment.id, name: attachment.name };
  await recordEvent(trx, {
    teamId: caller.teamId,
    type,
    data: { taskId: attachment.taskId, attachmentId: attachment.id },
    audience: await audienceOf(trx, attachment.taskId),
    activity: {
      taskId: attachment.taskId,
      actorId: caller.userId,
      via: viaOf(caller),
      kind: type === 'attachment.created' ? 'attachment.added' : 'attachment.removed',
      changes: {
        attachment: type === 'attachment.created' ? { from: null, to: file } : { from: file, to: null },
      },
    },
  });
}

export async function listAttachments(store: Store, caller: Caller, rawTaskId: string): Promise<AttachmentList> {
  const task = await loadAccessibleTask(store.db, caller, rawTaskId);
  return (await attachments.attachmentsOfTask(store.db, task.id)).map(presentAttachment);
}

export async function getAttachment(store: Store, caller: Caller, rawId: string): Promise<Attachment> {
  return presentAttachment(await loadAccessibleAttachment(store.db, caller, rawId));
}

/** The attachment and its bytes, access checked now. */
export async function openAttachment(
  store: Store,
  caller: Caller,
  rawId: string,
  files: FileStore,
): Promise<{ attachment: Attachment; content: () => Promise<Readable> }> {
  const attachment = await loadAccessibleAttachment(store.db, caller, rawId);
  return {
    attachment: presentAttachment(attachment),
    content: async () => {
      try {
        return await files.get(attachment.storageKey);
      } catch (error) {
        // The row is there and its file is not (lost from the store, or deleted just now).
        if (error instanceof FileMissing) throw attachmentNotFound(rawId);
        throw error;
      }
    },
  };
}

/** Whether an error came from reading the request (a malformed or cut body) rather than from the store. */
function isRequestError(error: unknown): boolean {
  if (error instanceof AppError || error instanceof FileTooLarge) return false;
  const e = error as { syscall?: unknown; statusCode?: unknown };
  return e?.syscall === undefined;
}

export async function uploadAttachment(
  store: Store,
  caller: Caller,
  rawTaskId: string,
  readFile: () => Promise<IncomingFile | undefined>,
  files: FileStore,
  limits: AttachmentLimits,
): Promise<Attachment> {
  // Refused before a byte of the body is read: no such task, no access.
  const task = await loadAccessibleTask(store.db, caller, rawTaskId);
  const left = Math.max(0, limits.teamQuotaBytes - (await attachments.bytesInUse(store.db, caller.teamId)));
  const maxBytes = Math.min(limits.maxFileBytes, left);
  const overLimit = () =>
    maxBytes === limits.maxFileBytes
      ? tooLarge(`The file is larger than the limit of ${limits.maxFileBytes} bytes (ATTACHMENTS_MAX_FILE_BYTES).`)
      : tooLarge(
          `The file does not fit in the team's attachment quota of ${limits.teamQuotaBytes} bytes (ATTACHMENTS_TEAM_QUOTA_BYTES); ${left} bytes remain.`,
        );

  let file: IncomingFile | undefined;
  try {
    file = await readFile();
  } catch (error) {
    if (error instanceof AppError) throw error;
    const status = (error as { statusCode?: number }).statusCode;
    if (status === 413) throw tooLarge('The multipart body has too many parts; send one file, in the field "file".');
    throw invalidInput('The request body is not a valid multipart/form-data body with a file.');
  }
  if (!file) throw invalidInput('Send the file in a multipart/form-data field named "file".');
  if (file.fieldname !== 'file') {
    file.stream.resume();
    throw invalidInput('Send the file in a multipart/form-data field named "file".');
  }

  const key = newFileKey();
  const head = new HeadKeeper();
  let stored;
  try {
    const sniffed = file.stream.pipe(head);
    file.stream.on('error', (error) => head.destroy(error));
    stored = await files.put(key, sniffed, maxBytes);
    if (file.truncated()) throw new FileTooLarge('cut at the parser limit');
  } catch (error) {
    await files.delete(key);
    // Read and drop what still comes, so the answer reaches the client (the connection then closes).
    file.stream.resume();
    if (error instanceof FileTooLarge) throw overLimit();
    if (isRequestError(error)) throw invalidInput('The upload did not arrive whole.');
    throw error;
  }
  const contentType = await sniffContentType(head.head());

  try {
    return await store.transaction(async (trx) => {
      const kept = await keepAccessibleTask(trx, caller, String(task.id));
      if (!(await attachments.reserveBytes(trx, caller.teamId, stored.size, limits.teamQuotaBytes))) {
        throw tooLarge(
          `The file does not fit in the team's attachment quota of ${limits.teamQuotaBytes} bytes (ATTACHMENTS_TEAM_QUOTA_BYTES).`,
        );
      }
      const uploader = (await peopleByIds(trx, [caller.userId])).get(caller.userId)!;
      const attachment = await attachments.insertAttachment(trx, {
        teamId: caller.teamId,
        taskId: kept.id,
        storageKey: key,
        name: displayName(file.filename),
        size: stored.size,
        contentType,
        sha256: stored.sha256,
        uploadedBy: { id: uploader.id, name: uploader.name },
      });
      await recordAttachmentChange(trx, caller, 'attachment.created', attachment);
      return presentAttachment(attachment);
    });
  } catch (error) {
    // Nothing names the file: it goes (if this fails too, the reconciliation deletes it later).
    await files.delete(key).catch(() => undefined);
    throw error;
  }
}

/** The uploader may delete an attachment, and so may the team's owners and admins. */
export async function deleteAttachment(
  store: Store,
  caller: Caller,
  rawId: string,
  files: FileStore,
): Promise<AttachmentDeleted> {
  const id = toId(rawId);
  const found = id === null ? undefined : await attachments.findAttachment(store.db, caller.teamId, id);
  if (!found) throw attachmentNotFound(rawId);
  const removed = await store.transaction(async (trx) => {
    await keepAccessibleTask(trx, caller, String(found.taskId));
    const moderates = caller.role === 'owner' || caller.role === 'admin';
    if (found.uploadedBy.id !== caller.userId && !moderates) {
      throw forbidden("Only its uploader, or the team's owners and admins, may delete an attachment.");
    }
    // A concurrent deletion that came first leaves nothing to do: 404, as for any missing one.
    if (!(await attachments.deleteAttachment(trx, found.id))) throw attachmentNotFound(rawId);
    await attachments.releaseBytes(trx, caller.teamId, found.size);
    await recordAttachmentChange(trx, caller, 'attachment.deleted', found);
    return found;
  });
  // After commit; should it fail, the file is an orphan the reconciliation deletes.
  await files.delete(removed.storageKey).catch(() => undefined);
  return { id: removed.id, taskId: removed.taskId, deleted: true };
}

export type { FileStore };
