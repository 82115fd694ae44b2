/**
 * Read-only snapshots of a whole database, for `tasklane migrate-data`: one read transaction over
 * a connection of its own, while servers keep writing.
 */
import { existsSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { cachePreparedStatements, sqlitePath, type Store } from './database.js';
import type { Db } from './schema.js';

/** A read-only view of a whole database as of one moment (see readSnapshot). */
export type Snapshot = Pick<Store, 'db' | 'dialect'>;

/**
 * Opens the database named by `databaseUrl` read-only and runs `read` inside one read
 * transaction: every query sees the same committed state however long `read` takes, while
 * servers keep writing. Never migrates, never writes, never creates a missing database.
 */
export async function readSnapshot<T>(databaseUrl: string, read: (snapshot: Snapshot) => Promise<T>): Promise<T> {
  if (databaseUrl.startsWith('sqlite:')) return readSqliteSnapshot(sqlitePath(databaseUrl), read);
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) return readPostgresSnapshot(databaseUrl, read);
  throw new Error(`a database URL must start with sqlite: or postgres:// (got "${databaseUrl}")`);
}

/**
 * A deferred `begin` (Kysely's SqliteDialect), not the store's `begin immediate`: that takes the
 * one write lock, which a running server needs. With WAL the reader's snapshot is fixed at its
 * first read and writers carry on beside it (the WAL grows until the reader ends).
 */
async function readSqliteSnapshot<T>(path: string, read: (snapshot: Snapshot) => Promise<T>): Promise<T> {
  if (path === ':memory:' || !existsSync(path)) throw new Error(`there is no SQLite database at ${path}`);
  const database = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
  // An export runs the same few statements once per task: prepared once, not each time.
  cachePreparedStatements(database);
  const db = new Kysely<any>({ dialect: new SqliteDialect({ database }) }) as Db;
  try {
    // WAL recovery or a checkpoint can hold the file briefly; wait as a server would.
    database.pragma('busy_timeout = 5000');
    // Without WAL a reader blocks every writer for as long as it reads. tasklane always sets WAL;
    // a file without it was never served by tasklane.
    if (database.pragma('journal_mode', { simple: true }) !== 'wal') {
      throw new Error(`${path} is not in WAL mode; start "tasklane serve" on it once, then copy again`);
    }
    return await db.transaction().execute((trx) => read({ db: trx, dialect: 'sqlite' }));
  } finally {
    await db.destroy();
  }
}

/**
 * `repeatable read`: one snapshot of every committed transaction for the whole read. tasklane's
 * writers run in read committed and order themselves with row locks, so a serializable,
 * deferrable reader would see nothing more consistent, only wait longer to start. The connection
 * makes every transaction read-only by default as well.
 */
async function readPostgresSnapshot<T>(connectionString: string, read: (snapshot: Snapshot) => Promise<T>): Promise<T> {
  const pool = new pg.Pool({
    connectionString,
    max: 1,
    options: '-c default_transaction_read_only=on',
    connectionTimeoutMillis: 15_000,
  });
  pool.on('error', () => {});
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }) }) as Db;
  try {
    return await db
      .transaction()
      .setIsolationLevel('repeatable read')
      .setAccessMode('read only')
      .execute((trx) => read({ db: trx, dialect: 'postgres' }));
  } finally {
    await db.destroy();
  }
}
