/** The file store the configuration names: the disk (ATTACHMENTS_DIR) or S3 (ATTACHMENTS_S3_URL). */
import { join, resolve } from 'node:path';
import type { Config } from '../../config.js';
import { dataFolderOf } from '../../storage/database.js';
import { DiskFileStore } from './disk-store.js';
import type { FileStore } from './file-store.js';
import { parseS3Url } from '../../s3-config.js';
import { S3FileStore } from './s3-store.js';

export { FileMissing, FileTooLarge, type FileStore, type StoredFile } from './file-store.js';

/**
 * The disk store's folder: ATTACHMENTS_DIR, else `attachments` beside the SQLite database file,
 * else (PostgreSQL, or an in-memory SQLite database) `./data/attachments` from the working
 * directory. Several processes on different machines need one store they all reach: S3.
 */
export function attachmentsDir(config: Pick<Config, 'attachments' | 'databaseUrl'>): string {
  if (config.attachments.dir) return resolve(config.attachments.dir);
  const beside = dataFolderOf(config.databaseUrl);
  return beside ? join(beside, 'attachments') : resolve('data', 'attachments');
}

/** ATTACHMENTS_S3_URL's bucket when it is set (config.ts has checked it), else the disk. */
export function createFileStore(config: Pick<Config, 'attachments' | 'databaseUrl'>): FileStore {
  if (config.attachments.s3Url) return new S3FileStore(parseS3Url(config.attachments.s3Url, [])!);
  return new DiskFileStore(attachmentsDir(config));
}
