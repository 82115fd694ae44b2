/**
 * Where export files live: a file store of their own, beside the attachments' and of the same
 * kind, never the attachments' store itself. That store's reconciliation (attachments/reconcile.ts)
 * deletes every key no `attachments` row names once past ATTACHMENTS_ORPHAN_GRACE_SECONDS (an hour
 * by default), which would take an export's file long before its week is up, and the disk store
 * only takes UUID keys, so an `exports/` prefix cannot be used there.
 *
 * - Disk: `<attachments folder>/exports`. The attachments' listing walks only its two-character
 *   shard folders, so it never sees these files.
 * - S3: the same bucket under the prefix `<attachments prefix>-exports/` (`tasklane-exports/`
 *   without one). The attachments' store owns only the keys right under its own prefix (no `/`
 *   after it: S3FileStore), so its listing never offers these to the reconciliation.
 */
import { join } from 'node:path';
import type { Config } from '../config.js';
import { attachmentsDir } from '../attachments/storage/index.js';
import { DiskFileStore } from '../attachments/storage/disk-store.js';
import type { FileStore } from '../attachments/storage/file-store.js';
import { S3FileStore } from '../attachments/storage/s3-store.js';
import { parseS3Url } from '../s3-config.js';

export function createExportFileStore(config: Pick<Config, 'attachments' | 'databaseUrl'>): FileStore {
  if (config.attachments.s3Url) {
    const s3 = parseS3Url(config.attachments.s3Url, [])!;
    const prefix = s3.prefix ? `${s3.prefix.replace(/\/$/, '')}-exports/` : 'tasklane-exports/';
    return new S3FileStore({ ...s3, prefix });
  }
  return new DiskFileStore(join(attachmentsDir(config), 'exports'));
}
