/**
 * `tasklane migrate-data --from URL --to URL`: moves a whole workspace database to another store
 * (typically an embedded SQLite file to PostgreSQL), also while a server is writing to the
 * source. The source is read in one read-only snapshot and never changed; the target must be
 * empty, is migrated, and is filled in one transaction that commits only once every table has
 * been read back and found equal (storage/copy.ts). Prints one JSON object on success; on
 * failure one line on stderr and a non-zero exit.
 *
 * With `--files-from STORE --files-to STORE` it moves the attachments' files as well (a folder
 * is the disk store, an https:// URL an S3 bucket: file-store-option.ts): every file a row of the
 * snapshot names is copied and verified (attachments/copy-files.ts) inside the target's
 * transaction, before it commits, so a file that fails leaves the target database without rows;
 * the files this run put are then deleted again. Without `--to` only the files move (the
 * database stays where it is, e.g. PostgreSQL moving from the disk to S3); their copies are kept
 * then, since the database's rows name them.
 */
import { parseArgs } from 'node:util';
import { FileCopy, type FilesReport } from '../attachments/copy-files.js';
import { checkSource, copyDatabase, type CopyReport } from '../storage/copy.js';
import { openStore, sqlitePath, type Store } from '../storage/database.js';
import { readSnapshot } from '../storage/snapshot.js';
import { parseFileStoreOption, type FileStoreOption } from './file-store-option.js';
import { terminalFilesProgress } from './files-progress.js';
import { printLine, type CliIo } from './io.js';
import { terminalProgress } from './progress.js';

const USAGE =
  'usage: tasklane migrate-data --from sqlite:./data/tasklane.db [--to postgres://user@host:5432/db] ' +
  '[--files-from ./data/attachments --files-to https://KEY:SECRET@host/bucket]';

/** Two spellings of one database: `sqlite:./x.db` and `sqlite:/abs/x.db`, or PostgreSQL URLs that differ in form only. */
function sameDatabase(from: string, to: string): boolean {
  if (from === to) return true;
  if (from.startsWith('sqlite:') && to.startsWith('sqlite:')) return sqlitePath(from) === sqlitePath(to);
  try {
    const [a, b] = [new URL(from), new URL(to)];
    const where = (url: URL) => `${url.hostname}:${url.port || '5432'}${decodeURIComponent(url.pathname)}`;
    return a.protocol.startsWith('postgres') && b.protocol.startsWith('postgres') && where(a) === where(b);
  } catch {
    return false;
  }
}

interface Options {
  from: string;
  to?: string;
  files?: { from: FileStoreOption; to: FileStoreOption };
}

/** The options, or the one line to print for a usage error. */
function parseOptions(argv: string[]): Options | { problem: string } {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        from: { type: 'string' },
        to: { type: 'string' },
        'files-from': { type: 'string' },
        'files-to': { type: 'string' },
      },
      strict: true,
    }));
  } catch (error) {
    return { problem: `${(error as Error).message.split('\n')[0]} (${USAGE})` };
  }
  const { from, to, 'files-from': filesFrom, 'files-to': filesTo } = values;
  if (!from) return { problem: `missing --from (${USAGE})` };
  if ((filesFrom === undefined) !== (filesTo === undefined)) {
    return {
      problem: `--files-from and --files-to go together: the store the files are in, and the one they move to (${USAGE})`,
    };
  }
  if (!to && filesFrom === undefined) {
    return { problem: `missing --to (or --files-from and --files-to, to move only the attachments' files) (${USAGE})` };
  }
  if (to && sameDatabase(from, to)) return { problem: '--from and --to name the same database' };
  if (filesFrom === undefined || filesTo === undefined) return { from, ...(to ? { to } : {}) };

  const source = parseFileStoreOption('--files-from', filesFrom);
  if ('problem' in source) return source;
  const target = parseFileStoreOption('--files-to', filesTo);
  if ('problem' in target) {
    source.close();
    return target;
  }
  if (source.identity === target.identity) {
    source.close();
    target.close();
    return { problem: '--files-from and --files-to name the same file store' };
  }
  return { from, ...(to ? { to } : {}), files: { from: source, to: target } };
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export async function runMigrateData(argv: string[], io: CliIo): Promise<number> {
  const options = parseOptions(argv);
  if ('problem' in options) {
    printLine(io.stderr, options.problem);
    return 2;
  }
  const { from, to, files } = options;

  const started = Date.now();
  const progress = terminalProgress(io.stderr);
  const filesProgress = terminalFilesProgress(io.stderr);
  const fileCopy = files && new FileCopy(files.from.store, files.to.store);
  let target: Store | undefined;
  try {
    const report = await readSnapshot(from, async (source) => {
      // Before the target is so much as opened: a refused source leaves it untouched.
      await checkSource(source);
      const copyFiles = async (): Promise<FilesReport | undefined> => {
        if (!fileCopy) return undefined;
        progress.done();
        try {
          return await fileCopy.run(source, filesProgress.onProgress);
        } finally {
          filesProgress.done();
        }
      };
      if (!to) return { files: await copyFiles() };
      target = openStore(to);
      try {
        let copiedFiles: FilesReport | undefined;
        const database: CopyReport = await copyDatabase(source, target, progress.onProgress, async () => {
          copiedFiles = await copyFiles();
        });
        return { database, files: copiedFiles };
      } catch (error) {
        throw await withFilesRemoved(error, fileCopy);
      }
    });
    progress.done();
    const seconds = Math.round((Date.now() - started) / 100) / 10;
    const summary = report.database
      ? {
          copied: report.database.copied,
          verified: true,
          checksums: report.database.checksums,
          ...(report.files ? { files: report.files } : {}),
          seconds,
        }
      : { files: report.files, verified: true, seconds };
    printLine(io.stdout, JSON.stringify(summary));
    return 0;
  } catch (error) {
    progress.done();
    printLine(io.stderr, `migrate-data failed: ${messageOf(error)}`);
    return 1;
  } finally {
    await target?.close();
    files?.from.close();
    files?.to.close();
  }
}

/**
 * After a database copy that failed (rolled back): the files this run put into the target are
 * orphans no row names, so they are deleted here rather than left to the target server's
 * reconciliation. The error, with what became of them.
 */
async function withFilesRemoved(error: unknown, fileCopy: FileCopy | undefined): Promise<unknown> {
  if (!fileCopy) return error;
  try {
    const removed = await fileCopy.removeCopied();
    if (removed === 0) return error;
    return new Error(`${messageOf(error)}; the ${removed} file(s) copied to the target file store were deleted again`, {
      cause: error,
    });
  } catch (removal) {
    return new Error(
      `${messageOf(error)}; deleting the files copied to the target file store failed too (${messageOf(removal)}): ` +
        "they name no row, so the target server's reconciliation deletes them in time",
      { cause: error },
    );
  }
}
