/**
 * Copies attachments' files from one file store to another, for `tasklane migrate-data
 * --files-from … --files-to …`: every file an `attachments` row of a database snapshot names,
 * streamed from the source store into the target under the same key (never held whole in memory),
 * and checked on the way: the target's put() measures the bytes it stores, which must be the
 * row's size and sha256. A missing file or one that differs fails the copy, naming the attachment.
 *
 * Every file is copied again on a re-run, overwriting a key the target already holds: nothing is
 * skipped on trust, so every file a run reports was read and verified by that run.
 */
import type { Readable } from 'node:stream';
import type { Snapshot } from '../storage/snapshot.js';
import { FileMissing, FileTooLarge, type FileStore } from './storage/file-store.js';

/** Rows read per query: memory stays flat however many attachments there are. */
const PAGE = 500;

export interface FilesProgress {
  /** Files copied so far, out of `total`. */
  files: number;
  total: number;
  bytes: number;
  totalBytes: number;
}

export interface FilesReport {
  copied: number;
  bytes: number;
}

/** A file that cannot be copied as its row describes it: the message names the attachment. */
export class FileCopyFailed extends Error {}

interface AttachmentFile {
  id: number;
  storageKey: string;
  size: number;
  sha256: string;
}

/** The snapshot's attachments in id order, a page at a time (each read after the last id of the one before). */
async function* attachmentFiles(snapshot: Snapshot): AsyncGenerator<AttachmentFile> {
  let after = 0;
  for (;;) {
    const rows = await snapshot.db
      .selectFrom('attachments')
      .select(['id', 'storage_key', 'size', 'sha256'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(PAGE)
      .execute();
    if (rows.length === 0) return;
    for (const row of rows) {
      // PostgreSQL's bigint arrives as a string.
      yield { id: row.id, storageKey: row.storage_key, size: Number(row.size), sha256: row.sha256 };
    }
    after = rows[rows.length - 1]!.id;
  }
}

async function totals(snapshot: Snapshot): Promise<{ files: number; bytes: number }> {
  const row = await snapshot.db
    .selectFrom('attachments')
    .select((eb) => [eb.fn.countAll().as('files'), eb.fn.sum('size').as('bytes')])
    .executeTakeFirstOrThrow();
  return { files: Number(row.files), bytes: Number(row.bytes ?? 0) };
}

export class FileCopy {
  /** The keys this copy has put into the target, so that a migration that fails after all can take them back. */
  readonly #put: string[] = [];

  constructor(
    private readonly source: FileStore,
    private readonly target: FileStore,
  ) {}

  /** Copies and verifies every file the snapshot's rows name; throws at the first that fails. */
  async run(snapshot: Snapshot, onProgress: (progress: FilesProgress) => void = () => {}): Promise<FilesReport> {
    const total = await totals(snapshot);
    const progress: FilesProgress = { files: 0, total: total.files, bytes: 0, totalBytes: total.bytes };
    onProgress({ ...progress });
    for await (const file of attachmentFiles(snapshot)) {
      await this.#copy(file);
      progress.files += 1;
      progress.bytes += file.size;
      onProgress({ ...progress });
    }
    return { copied: progress.files, bytes: progress.bytes };
  }

  async #copy(file: AttachmentFile): Promise<void> {
    const name = `attachment ${file.id} (file ${file.storageKey})`;
    let body: Readable;
    try {
      body = await this.source.get(file.storageKey);
    } catch (error) {
      if (error instanceof FileMissing) throw new FileCopyFailed(`${name} is missing from the source file store`);
      throw new FileCopyFailed(`${name} could not be read from the source file store: ${messageOf(error)}`, {
        cause: error,
      });
    }
    let stored;
    try {
      // The row's size as the limit: a longer source file stops at the first byte too many.
      stored = await this.target.put(file.storageKey, body, file.size);
    } catch (error) {
      body.destroy();
      if (error instanceof FileTooLarge) {
        throw new FileCopyFailed(
          `${name} in the source file store is larger than the ${file.size} bytes its row records`,
        );
      }
      throw new FileCopyFailed(`${name} could not be copied: ${messageOf(error)}`, { cause: error });
    }
    this.#put.push(file.storageKey);
    if (stored.size !== file.size || stored.sha256 !== file.sha256) {
      // Never leave a wrong file under a key a row names. Counted as put until it is gone.
      await this.target.delete(file.storageKey);
      this.#put.pop();
      throw new FileCopyFailed(
        `${name} in the source file store differs from its row: ${stored.size} bytes with sha256 ${stored.sha256}, ` +
          `where the row records ${file.size} bytes with sha256 ${file.sha256}`,
      );
    }
  }

  /** Deletes every file this copy put into the target (each deletion idempotent); how many. */
  async removeCopied(): Promise<number> {
    for (const key of this.#put) await this.target.delete(key);
    return this.#put.length;
  }
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
