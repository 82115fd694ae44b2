/**
 * The file store against the database: every stored key older than the grace period that no
 * `attachments` row names is deleted. Such files are uploads whose transaction never committed
 * (the process died between the file and the row), writes cut by a crash (the disk store's
 * `.part` files), and the files of attachments whose task was deleted (the rows go with the task;
 * the files are left to this). The grace period keeps an upload in flight, whose row is not
 * written yet, from losing its file.
 */
import type { Db } from '../storage/schema.js';
import { namedKeys } from './attachments.repository.js';
import type { FileStore } from './storage/file-store.js';

const BATCH = 500;

/** Deletes the orphans; returns how many. */
export async function reconcileFiles(db: Db, files: FileStore, graceMs: number, now = new Date()): Promise<number> {
  const before = new Date(now.getTime() - graceMs);
  let deleted = 0;
  let batch: string[] = [];
  const sweep = async () => {
    const named = await namedKeys(db, batch);
    for (const key of batch) {
      if (named.has(key)) continue;
      await files.delete(key);
      deleted++;
    }
    batch = [];
  };
  for await (const key of files.list(before)) {
    batch.push(key);
    if (batch.length >= BATCH) await sweep();
  }
  await sweep();
  return deleted;
}
