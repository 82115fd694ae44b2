/**
 * Webhooks out of the box on the embedded default: on SQLite with no WEBHOOK_SECRET_KEY, the key
 * that seals webhook signing secrets lives in a file beside the database, made at the first start
 * (owner-only) and read at every later one. It stays out of the database, so a copy of the
 * database alone still cannot sign; it must be backed up separately. PostgreSQL deployments,
 * whose processes may run on several machines, set WEBHOOK_SECRET_KEY instead.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fchmodSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import type { Config } from '../config.js';
import { dataFolderOf } from '../storage/database.js';

export const KEY_FILE_NAME = 'webhook-secret.key';

/** Where the key file of the SQLite database at `databaseUrl` is, or null where there is none (PostgreSQL, memory). */
export function keyFilePath(databaseUrl: string): string | null {
  const folder = dataFolderOf(databaseUrl);
  return folder === null ? null : join(folder, KEY_FILE_NAME);
}

export interface ResolvedKey {
  /** The config, with the key from the file when that is where it came from. */
  config: Config;
  /** The key file this start created, or null (it existed, or the key comes from elsewhere). */
  created: string | null;
  /** What the start-up output says about webhooks, or null for nothing. */
  startupLine: string | null;
}

/** A key file tasklane cannot use: the start stops with this message. */
export class KeyFileError extends Error {}

/**
 * The webhook sealing key this process uses: WEBHOOK_SECRET_KEY when set; else, on SQLite, the
 * key file beside the database (created now when missing); else none, and webhooks are off.
 */
export function resolveWebhookKey(config: Config): ResolvedKey {
  const webhooks = config.webhooks;
  if (webhooks.secretKey) return { config, created: null, startupLine: null };
  if (webhooks.switchedOff) return { config, created: null, startupLine: 'Webhooks are off (WEBHOOK_SECRET_KEY=off).' };
  const path = keyFilePath(config.databaseUrl);
  if (path === null) {
    return {
      config,
      created: null,
      startupLine:
        'Webhooks are off: WEBHOOK_SECRET_KEY is not set. To turn them on, set it on every process to the same ' +
        '32 random bytes in base64 (openssl rand -base64 32), and keep it outside the database and its backups.',
    };
  }
  const existing = readKeyFile(path);
  // The first start in a fresh checkout: the data folder is not there yet (the store makes it too).
  if (!existing) mkdirSync(dirname(path), { recursive: true });
  const made = existing ? null : createKeyFile(path);
  const key = existing ?? made?.key ?? readKeyFile(path)!;
  const withKey: Config = Object.freeze({ ...config, webhooks: Object.freeze({ ...webhooks, secretKey: key }) });
  if (!made) return { config: withKey, created: null, startupLine: looseModeWarning(path) };
  return {
    config: withKey,
    created: path,
    startupLine:
      `Created ${path}, the key that seals webhook signing secrets (readable by this user only). ` +
      'It is not in the database: back it up separately, or webhook secrets are lost with it.',
  };
}

const KEY_TEXT = /^[A-Za-z0-9+/]{43}=$/;

/** The key in the file, or null when there is no file. */
function readKeyFile(path: string): Buffer | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new KeyFileError(`Cannot read the webhook key file ${path}: ${(error as Error).message}`);
  }
  if (!KEY_TEXT.test(text)) {
    throw new KeyFileError(
      `The webhook key file ${path} does not hold a key (32 bytes in base64): restore it from your backup, ` +
        'or remove it to make a new one (existing webhooks must then rotate their secrets)',
    );
  }
  return Buffer.from(text, 'base64');
}

/**
 * Writes a new key, owner-only, under a temporary name and then links it into place: the link
 * fails if another process made the file meanwhile (null: read theirs instead), and no one ever
 * reads a half-written file.
 */
function createKeyFile(path: string): { key: Buffer } | null {
  const key = randomBytes(32);
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    fchmodSync(fd, 0o600); // whatever the umask
    writeSync(fd, `${key.toString('base64')}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temporary, path);
    return { key };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return null;
  } finally {
    unlinkSync(temporary);
  }
}

/** Removes a key file this start created, when the start failed: nothing has used it yet. */
export function removeCreatedKeyFile(resolved: ResolvedKey): void {
  if (resolved.created) unlinkSync(resolved.created);
}

/** A warning when others than the owner may read the key file, or null. */
function looseModeWarning(path: string): string | null {
  const mode = statSync(path).mode & 0o777;
  if ((mode & 0o077) === 0) return null;
  return `Warning: ${path} can be read by other users of this machine (mode ${mode.toString(8)}); run chmod 600 on it.`;
}
