/**
 * The housekeeping job of exports: deletes each export past its `expiresAt` (7 days after it
 * finished), file first and then row, and exports a dead process left unfinished once their
 * heartbeat is that old. Then the files no row names (a process that died between writing the
 * file and marking its row), once a day old. Idempotent: two processes doing it at once both succeed.
 */
import type { FileStore } from '../attachments/storage/file-store.js';
import type { Db } from '../storage/schema.js';
import { EXPORT_RETENTION_MS } from './export-runner.js';
import { deleteExport, expiredExports, namesKey } from './exports.repository.js';

const BATCH = 500;
const ORPHAN_GRACE_MS = 24 * 60 * 60 * 1000;

/** Returns how many exports and orphaned files it deleted. */
export async function deleteExpiredExports(db: Db, files: FileStore, now = new Date()): Promise<number> {
  let deleted = 0;
  const abandonedBefore = new Date(now.getTime() - EXPORT_RETENTION_MS).toISOString();
  for (;;) {
    const expired = await expiredExports(db, now.toISOString(), abandonedBefore, BATCH);
    for (const { id, storageKey } of expired) {
      if (storageKey) await files.delete(storageKey);
      await deleteExport(db, id);
      deleted++;
    }
    if (expired.length < BATCH) break;
  }
  for await (const key of files.list(new Date(now.getTime() - ORPHAN_GRACE_MS))) {
    if (await namesKey(db, key)) continue;
    await files.delete(key);
    deleted++;
  }
  return deleted;
}
