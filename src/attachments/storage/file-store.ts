/**
 * Where attachments' bytes live: a key-value store of files (the disk, disk-store.ts; an
 * S3-compatible bucket, s3-store.ts). Keys are made by the server (random ids), never a client's
 * file name. The database's `attachments` rows name the keys; a key no row names is an orphan,
 * which the housekeeping job's reconciliation deletes once older than its grace period.
 */
import type { Readable } from 'node:stream';

export interface StoredFile {
  size: number;
  sha256: string;
}

/** Thrown by put() past maxBytes; put leaves nothing behind then. */
export class FileTooLarge extends Error {}

/** Thrown by get() for a key that is not there. */
export class FileMissing extends Error {}

export interface FileStore {
  /** Streams `body` to `key` (a server-made name, never a client's); rejects FileTooLarge past `maxBytes`, leaving nothing. */
  put(key: string, body: Readable, maxBytes: number): Promise<StoredFile>;
  get(key: string): Promise<Readable>;
  /** Idempotent. */
  delete(key: string): Promise<void>;
  /** Every key stored before `before` (for reconciling with the database). */
  list(before: Date): AsyncIterable<string>;
}
