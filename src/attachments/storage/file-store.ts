import type { Readable } from 'node:stream';
export interface StoredFile { size: number; sha256: string; }
export class FileTooLarge extends Error {}   // thrown by put() past maxBytes; put leaves nothing behind then
export class FileMissing extends Error {}    // thrown by get() for a key that is not there
export interface FileStore {
  /** Streams `body` to `key` (a server-made name, never a client's); rejects FileTooLarge past `maxBytes`, leaving nothing. */
  put(key: string, body: Readable, maxBytes: number): Promise<StoredFile>;
  get(key: string): Promise<Readable>;
  /** Idempotent. */
  delete(key: string): Promise<void>;
  /** Every key stored before `before` (for reconciling with the database). */
  list(before: Date): AsyncIterable<string>;
}
