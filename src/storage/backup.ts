/**
 * `tasklane admin backup --to FILE`: a consistent copy of a SQLite database, taken while servers
 * write to it, with SQLite's online backup API (better-sqlite3's `backup()`). PostgreSQL has
 * `pg_dump` for this, which does it better than tasklane could (a snapshot of a live database,
 * restorable with `pg_restore`), so there the command says to use it.
 */
import { existsSync, linkSync, statSync, unlinkSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import { databaseLocation, MissingDatabaseError, sqlitePath } from './database.js';

/** A backup that cannot be made as asked: the message says what to do instead. */
export class BackupError extends Error {}

export interface BackupSummary {
  /** The backup's absolute path. */
  file: string;
  bytes: number;
  /** `PRAGMA integrity_check` of the copy: "ok". */
  integrity: string;
  /** Rows per table in the copy (SQLite's own and the derived title-search tables left out). */
  rows: Record<string, number>;
  seconds: number;
}

/**
 * Copies the SQLite database at `databaseUrl` to `to`, a file that must not exist yet, and checks
 * the copy. The copy is the database as of one moment: it is made in one step of the backup API,
 * a read transaction (which under WAL never holds up a writer), so it holds every transaction
 * committed before that moment and none after. It is written under a temporary name and linked
 * into place: an interrupted backup leaves no half-written file under `to`, and a file that
 * appeared there meanwhile is never overwritten.
 */
export async function backupSqlite(databaseUrl: string, to: string): Promise<BackupSummary> {
  if (!databaseUrl.startsWith('sqlite:')) throw new BackupError(postgresAdvice(databaseUrl, to));
  const source = sqlitePath(databaseUrl);
  if (source === ':memory:') throw new BackupError('an in-memory database has nothing to back up');
  if (!existsSync(source)) throw new MissingDatabaseError(source);
  const target = resolve(to);
  if (existsSync(target)) throw new BackupError(`${target} already exists: a backup never overwrites a file`);
  if (!existsSync(dirname(target)))
    throw new BackupError(`there is no folder ${dirname(target)} to write ${target} in`);

  const started = performance.now();
  const temporary = `${target}.${randomBytes(4).toString('hex')}.partial`;
  const database = new BetterSqlite3(source, { readonly: true, fileMustExist: true });
  try {
    database.pragma('busy_timeout = 5000');
    // The first call only starts the backup; the progress callback then asks for every page in the
    // next step, so the copy is made under one read transaction instead of restarting whenever a
    // server commits between steps of 100 pages.
    await database.backup(temporary, { progress: () => 0x7fffffff });
  } catch (error) {
    if (existsSync(temporary)) unlinkSync(temporary);
    throw error;
  } finally {
    database.close();
  }
  try {
    const checked = inspect(temporary);
    try {
      linkSync(temporary, target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
        throw new BackupError(`${target} appeared while the backup ran: a backup never overwrites a file`);
      }
      throw error;
    }
    const seconds = Math.round((performance.now() - started) / 100) / 10;
    return { file: target, bytes: statSync(target).size, ...checked, seconds };
  } finally {
    unlinkSync(temporary);
  }
}

/**
 * The copy's integrity check and row counts; a copy that fails the check is an error. The copy is
 * first switched from WAL to a rollback journal, so that it is one self-contained file (a server
 * opening it switches it back).
 */
function inspect(path: string): { integrity: string; rows: Record<string, number> } {
  const copy = new BetterSqlite3(path, { fileMustExist: true });
  try {
    copy.pragma('journal_mode = delete');
    const integrity = (copy.pragma('integrity_check') as { integrity_check: string }[])
      .map((row) => row.integrity_check)
      .join('; ');
    if (integrity !== 'ok') throw new BackupError(`the copy failed its integrity check: ${integrity}`);
    const tables = copy
      .prepare(
        "select name from sqlite_master where type = 'table' and name not like 'sqlite\\_%' escape '\\' " +
          "and name not like '%\\_fts%' escape '\\' and name not like 'kysely\\_%' escape '\\' order by name",
      )
      .pluck()
      .all() as string[];
    const rows: Record<string, number> = {};
    for (const table of tables) {
      rows[table] = copy
        .prepare(`select count(*) from "${table.replaceAll('"', '""')}"`)
        .pluck()
        .get() as number;
    }
    return { integrity, rows };
  } finally {
    copy.close();
  }
}

/** What to run instead on PostgreSQL: pg_dump of the same database (the URL shown without its password). */
function postgresAdvice(databaseUrl: string, to: string): string {
  return (
    'admin backup copies SQLite databases; back up PostgreSQL with pg_dump, which takes a consistent ' +
    `snapshot while servers write: pg_dump --format=custom --file=${to} '${databaseLocation(databaseUrl).shown}' ` +
    '(restore it into an empty database with pg_restore --dbname=URL FILE)'
  );
}
