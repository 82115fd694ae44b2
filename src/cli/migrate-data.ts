/**
 * `tasklane migrate-data --from URL --to URL`: moves a whole workspace database to another store
 * (typically an embedded SQLite file to PostgreSQL), also while a server is writing to the
 * source. The source is read in one read-only snapshot and never changed; the target must be
 * empty, is migrated, and is filled in one transaction that commits only once every table has
 * been read back and found equal (storage/copy.ts). Prints one JSON object on success; on
 * failure one line on stderr and a non-zero exit.
 */
import { parseArgs } from 'node:util';
import { checkSource, copyDatabase } from '../storage/copy.js';
import { openStore, sqlitePath, type Store } from '../storage/database.js';
import { readSnapshot } from '../storage/snapshot.js';
import { printLine, type CliIo } from './io.js';
import { terminalProgress } from './progress.js';

const USAGE = 'usage: tasklane migrate-data --from sqlite:./data/tasklane.db --to postgres://user@host:5432/db';

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

export async function runMigrateData(argv: string[], io: CliIo): Promise<number> {
  let from: string | undefined;
  let to: string | undefined;
  try {
    ({ from, to } = parseArgs({
      args: argv,
      options: { from: { type: 'string' }, to: { type: 'string' } },
      strict: true,
    }).values);
  } catch (error) {
    printLine(io.stderr, `${(error as Error).message.split('\n')[0]} (${USAGE})`);
    return 2;
  }
  if (!from || !to) {
    printLine(io.stderr, `missing --from or --to (${USAGE})`);
    return 2;
  }
  if (sameDatabase(from, to)) {
    printLine(io.stderr, '--from and --to name the same database');
    return 2;
  }

  const started = Date.now();
  const progress = terminalProgress(io.stderr);
  let target: Store | undefined;
  try {
    const report = await readSnapshot(from, async (source) => {
      // Before the target is so much as opened: a refused source leaves it untouched.
      await checkSource(source);
      target = openStore(to);
      return copyDatabase(source, target, progress.onProgress);
    });
    progress.done();
    const seconds = Math.round((Date.now() - started) / 100) / 10;
    printLine(
      io.stdout,
      JSON.stringify({ copied: report.copied, verified: true, checksums: report.checksums, seconds }),
    );
    return 0;
  } catch (error) {
    progress.done();
    printLine(io.stderr, `migrate-data failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await target?.close();
  }
}
