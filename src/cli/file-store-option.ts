/**
 * migrate-data's `--files-from` and `--files-to`: a file store spelled as an operator spells it
 * in the server's configuration. A folder is the disk store (what ATTACHMENTS_DIR names, e.g.
 * `./data/attachments`); an `https://` (or `http://`) URL is an S3 bucket, in ATTACHMENTS_S3_URL's
 * form (s3-config.ts).
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { DiskFileStore } from '../attachments/storage/disk-store.js';
import type { FileStore } from '../attachments/storage/file-store.js';
import { S3FileStore } from '../attachments/storage/s3-store.js';
import { describeS3Config, parseS3Url } from '../s3-config.js';

export interface FileStoreOption {
  store: FileStore;
  /** Where, for a message: the folder, or the bucket without its secret. */
  where: string;
  /** The same for two spellings of one store: its folder, or endpoint, bucket and prefix. */
  identity: string;
  close(): void;
}

/** The store `value` names, or a one-line problem naming `option` (never the secret). */
export function parseFileStoreOption(
  option: '--files-from' | '--files-to',
  value: string,
): FileStoreOption | { problem: string } {
  if (/^https?:\/\//i.test(value)) {
    const problems: string[] = [];
    const config = parseS3Url(value, problems);
    if (!config) return { problem: (problems[0] ?? 'is empty').replace('ATTACHMENTS_S3_URL', option) };
    const store = new S3FileStore(config);
    return {
      store,
      where: describeS3Config(config),
      identity: `s3 ${config.endpoint}/${config.bucket}/${config.prefix ?? ''}`,
      close: () => store.client.destroy(),
    };
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(value) && !/^[a-z]:[\\/]/i.test(value)) {
    return { problem: `${option} must be a folder or an https:// S3 URL, not a ${value.split(':')[0]}: URL` };
  }
  const dir = resolve(value);
  // A source folder that is not there would fail at its first file; say so before anything begins.
  if (option === '--files-from' && !(existsSync(dir) && statSync(dir).isDirectory())) {
    return { problem: `${option} names no folder: ${dir}` };
  }
  return { store: new DiskFileStore(dir), where: dir, identity: `disk ${dir}`, close: () => {} };
}
