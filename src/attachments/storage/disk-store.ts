/**
 * The disk file store: each file at `<dir>/<first two characters of its key>/<key>`. A file is
 * written to a temporary name beside it (`<key>.<random>.part`) and renamed once complete and
 * flushed, so a file under its key is always whole; a crash mid-write leaves only a `.part` file,
 * which list() reports once old (by its name, which delete() takes), so the reconciliation deletes
 * it like any orphan.
 * Keys are the server's (keys.ts: random UUIDs); a key that is not one is refused, so no name
 * from outside ever reaches a path.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { FileMissing, FileTooLarge, type FileStore, type StoredFile } from './file-store.js';

/** A key as the server makes them (a UUID), or a temporary file's name (`<key>.<uuid>.part`). */
const KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PART = /^([0-9a-f-]{36})\.[0-9a-f-]{36}\.part$/;
const SHARD = /^[0-9a-f]{2}$/;

function checkedKey(key: string): string {
  if (!KEY.test(key)) throw new Error(`not a file store key: ${JSON.stringify(key)}`);
  return key;
}

/** Counts and hashes what passes; fails with FileTooLarge past `maxBytes`. */
export class Measure extends Transform {
  size = 0;
  private readonly hash = createHash('sha256');

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) return done(new FileTooLarge(`the file is over ${this.maxBytes} bytes`));
    this.hash.update(chunk);
    done(null, chunk);
  }

  result(): StoredFile {
    return { size: this.size, sha256: this.hash.digest('hex') };
  }
}

export class DiskFileStore implements FileStore {
  constructor(private readonly dir: string) {}

  private pathOf(key: string): string {
    return join(this.dir, checkedKey(key).slice(0, 2), key);
  }

  async put(key: string, body: Readable, maxBytes: number): Promise<StoredFile> {
    const path = this.pathOf(key);
    const folder = join(this.dir, key.slice(0, 2));
    await mkdir(folder, { recursive: true });
    const temp = join(folder, `${key}.${randomUUID()}.part`);
    const measure = new Measure(maxBytes);
    try {
      await pipeline(body, measure, createWriteStream(temp, { flags: 'wx' }));
      const handle = await open(temp, 'r');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, path);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
    return measure.result();
  }

  async get(key: string): Promise<Readable> {
    const path = this.pathOf(key);
    const handle = await open(path, 'r').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') throw new FileMissing(`no file ${key}`);
      throw error;
    });
    return handle.createReadStream();
  }

  /** Also takes the name of a temporary file, as list() reports it. */
  async delete(key: string): Promise<void> {
    const part = PART.exec(key);
    const path = part ? join(this.dir, checkedKey(part[1]!).slice(0, 2), key) : this.pathOf(key);
    await rm(path, { force: true });
  }

  async *list(before: Date): AsyncIterable<string> {
    const shards = await readdir(this.dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [] as string[];
      throw error;
    });
    for (const shard of shards) {
      if (!SHARD.test(shard)) continue;
      const names = await readdir(join(this.dir, shard)).catch(() => [] as string[]);
      for (const name of names) {
        const part = PART.exec(name);
        if (!KEY.test(name) && !part) continue;
        const info = await stat(join(this.dir, shard, name)).catch(() => undefined);
        if (!info || info.mtime >= before) continue;
        // A `.part` file is a write that never finished (or is still going, if young): no row names it.
        yield name;
      }
    }
  }
}

/** A new key for a file: random, the server's own. */
export const newFileKey = (): string => randomUUID();
