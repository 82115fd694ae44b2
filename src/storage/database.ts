/**
 * Opens the store named by DATABASE_URL: embedded SQLite (`sqlite:<path>`) or PostgreSQL
 * (`postgres://…`). Everything above this module sees one `Store` and never the engine.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  PostgresDialect,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type PostgresPool,
  type PostgresPoolClient,
} from 'kysely';
import pg from 'pg';
import type { DialectName } from './dialect.js';
import { isDatabaseUnavailable } from './errors.js';
import { statementName } from './prepared.js';
import type { Db } from './schema.js';

export interface Store {
  readonly db: Db;
  readonly dialect: DialectName;
  /** Runs `work` in one transaction; it commits when `work` resolves and rolls back when it throws. */
  transaction<T>(work: (trx: Db) => Promise<T>): Promise<T>;
  /**
   * Closes the store once the work using it is done. With `force`, work still running loses its
   * connections now (PostgreSQL rolls its transactions back), for a shutdown out of time.
   */
  close(options?: { force?: boolean }): Promise<void>;
}

/** Callbacks to run once a transaction has committed, keyed by the transaction object. */
const pendingAfterCommit = new WeakMap<object, (() => void)[]>();

/**
 * Runs `callback` after the transaction `db` belongs to commits (never if it rolls back);
 * outside a transaction, at once. Used to announce changes only once they are durable.
 */
export function afterCommit(db: Db, callback: () => void): void {
  if (!db.isTransaction) return callback();
  const callbacks = pendingAfterCommit.get(db);
  if (callbacks) callbacks.push(callback);
  else pendingAfterCommit.set(db, [callback]);
}

/**
 * Runs `work` in the transaction `db` is, or in a new one when `db` is not a transaction: for
 * repository functions whose statements must commit together and may lock rows (dialect.ts).
 */
export function withinTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}

/**
 * `store`, except that each of its transactions first runs `prologue` in it (a re-check that must
 * see the same snapshot and hold the same locks as the change: auth/caller-check.ts). Its reads
 * outside a transaction are the store's own.
 */
export function withPrologue(store: Store, prologue: (trx: Db) => Promise<void> | void): Store {
  return {
    get db() {
      return store.db;
    },
    dialect: store.dialect,
    transaction: (work) =>
      store.transaction(async (trx) => {
        await prologue(trx);
        return work(trx);
      }),
    close: (options) => store.close(options),
  };
}

async function runTransaction<T>(
  begin: { execute<R>(work: (trx: Db) => Promise<R>): Promise<R> },
  work: (trx: Db) => Promise<T>,
): Promise<T> {
  let transaction: Db | undefined;
  const result = await begin.execute((trx) => {
    transaction = trx;
    return work(trx);
  });
  for (const callback of pendingAfterCommit.get(transaction!) ?? []) callback();
  return result;
}

export interface StoreOptions {
  poolSize?: number;
  /** PostgreSQL: longest a statement may run before it is cancelled (and the request answers 503). */
  statementTimeoutMs?: number;
  /**
   * SQLite: whether a missing database file (and its folder) may be created; default true. When
   * false, a missing file throws `MissingDatabaseError` and nothing is created. PostgreSQL never
   * creates a database.
   */
  create?: boolean;
}

/** `openStore(…, { create: false })` found no SQLite database file at `path`. */
export class MissingDatabaseError extends Error {
  constructor(readonly path: string) {
    super(`there is no SQLite database at ${path}`);
  }
}

export function openStore(databaseUrl: string, options: StoreOptions = {}): Store {
  if (databaseUrl.startsWith('sqlite:')) return openSqlite(sqlitePath(databaseUrl), options.create ?? true);
  if (/^postgres(ql)?:\/\//.test(databaseUrl))
    return openPostgres(databaseUrl, options.poolSize ?? 10, options.statementTimeoutMs ?? 10_000);
  throw new Error(`DATABASE_URL must start with sqlite: or postgres:// (got "${databaseUrl}")`);
}

/** `sqlite:./data/x.db`, `sqlite:/abs/x.db` and `sqlite:///abs/x.db` all name a file. */
export function sqlitePath(databaseUrl: string): string {
  const rest = databaseUrl.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
  if (rest === ':memory:') return rest;
  return resolve(rest);
}

/**
 * The folder a SQLite database file lies in, where tasklane keeps what must stay outside the
 * database (the webhook sealing key); null for PostgreSQL and an in-memory database.
 */
export function dataFolderOf(databaseUrl: string): string | null {
  if (!databaseUrl.startsWith('sqlite:')) return null;
  const path = sqlitePath(databaseUrl);
  return path === ':memory:' ? null : dirname(path);
}

/**
 * Where a database URL points, to show a person: the absolute file of a SQLite database (and
 * whether it exists yet), or a PostgreSQL URL with its password removed (it exists or not on the
 * server; tasklane never creates one).
 */
export function databaseLocation(databaseUrl: string): { shown: string; exists: boolean } {
  if (databaseUrl.startsWith('sqlite:')) {
    const path = sqlitePath(databaseUrl);
    return { shown: path, exists: path === ':memory:' || existsSync(path) };
  }
  try {
    const url = new URL(databaseUrl);
    url.password = '';
    url.searchParams.delete('password');
    return { shown: url.toString(), exists: true };
  } catch {
    return { shown: '(a database URL that cannot be read)', exists: true };
  }
}

/**
 * SQLite's default `begin` is deferred: a transaction that reads first and writes later can
 * fail with SQLITE_BUSY when another process (say `tasklane admin`) wrote in between.
 * `begin immediate` takes the write lock up front, so writers queue on busy_timeout instead.
 */
class ImmediateTransactionDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateTransactionDialect extends SqliteDialect {
  constructor(private readonly database: BetterSqlite3.Database) {
    super({ database });
  }
  override createDriver(): SqliteDriver {
    return new ImmediateTransactionDriver({ database: this.database });
  }
}

/**
 * Kysely prepares every statement afresh; a request runs a dozen, so compiling them again costs
 * more than running them. Statements are reusable, so keep them by SQL text. SQLite holds each
 * prepared statement in memory in proportion to its text (about 90 KB for an IN list of 500
 * ids), and the text of an IN list varies with its length, so the cache is bounded by the total
 * length of the SQL it keeps (about 13 MiB of statements) and forgets its oldest entries first;
 * very long statements are never kept. Hot page queries bind their id lists as one parameter
 * (dialect.ts, inList), so their text does not vary.
 */
export function cachePreparedStatements(
  database: BetterSqlite3.Database,
  budget = 256 * 1024,
  longest = 8 * 1024,
): void {
  const prepare = database.prepare.bind(database);
  const cache = new Map<string, BetterSqlite3.Statement>();
  let cached = 0;
  database.prepare = ((source: string) => {
    let statement = cache.get(source);
    if (!statement) {
      statement = prepare(source);
      if (source.length <= longest) {
        cache.set(source, statement);
        cached += source.length;
        for (const oldest of cache.keys()) {
          if (cached <= budget) break;
          cache.delete(oldest);
          cached -= oldest.length;
        }
      }
    }
    return statement;
  }) as typeof database.prepare;
}

function openSqlite(path: string, create: boolean): Store {
  if (path !== ':memory:') {
    if (create) mkdirSync(dirname(path), { recursive: true });
    else if (!existsSync(path)) throw new MissingDatabaseError(path);
  }
  // fileMustExist: should the file go between the check and here, fail rather than create it.
  const database = new BetterSqlite3(path, { fileMustExist: !create && path !== ':memory:' });
  database.pragma('journal_mode = WAL');
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  // Safe with WAL: a power loss can drop the last commits but never corrupts the file.
  database.pragma('synchronous = NORMAL');
  // 32 MiB of page cache (the default is 2 MiB): the pages a large team's queries walk stay in
  // memory rather than being read back from the OS for each probe (BENCHMARKS.md, at 1M tasks).
  database.pragma('cache_size = -32768');
  // Checkpoint once the WAL holds 8,192 pages (32 MiB) rather than SQLite's 1,000: a create
  // writes about 47 pages to the WAL, mostly the same index and FTS pages as the writes before
  // it, so a rarer checkpoint copies each hot page into the database once for many commits
  // instead of once every 20 creates (BENCHMARKS.md, issue 27: a write's CPU 18–22% less).
  database.pragma('wal_autocheckpoint = 8192');
  cachePreparedStatements(database);
  const db = new Kysely<any>({ dialect: new ImmediateTransactionDialect(database) }) as Db;
  let closing: Promise<void> | undefined;
  return {
    db,
    dialect: 'sqlite',
    transaction: (work) => runTransaction(db.transaction(), work),
    // One synchronous connection: nothing runs beside the close, so force changes nothing.
    close: () => (closing ??= db.destroy()),
  };
}

/**
 * pg-pool uses one `connectionTimeoutMillis` both for waiting on a busy pool and for opening a
 * connection; this client keeps its own, short, connect timeout.
 */
class FastConnectClient extends pg.Client {
  constructor(config: pg.ClientConfig) {
    super({ ...config, connectionTimeoutMillis: 3_000 });
  }
}

function openPostgres(connectionString: string, poolSize: number, statementTimeoutMs: number): Store {
  const pool = new pg.Pool({
    connectionString,
    max: poolSize,
    // Under load a request may wait for a free connection, but never without bound.
    connectionTimeoutMillis: 15_000,
    // …while opening a connection to a database that is gone fails fast: answer 503, retry next time.
    Client: FastConnectClient as unknown as new () => pg.ClientBase,
    statement_timeout: statementTimeoutMs,
    // The client-side bound, for a server that stops answering altogether.
    query_timeout: statementTimeoutMs + 5_000,
    // A transaction abandoned by a partitioned client must not hold row locks for long.
    idle_in_transaction_session_timeout: 30_000,
    idleTimeoutMillis: 30_000,
  });
  // A connection whose server went away emits 'error', idle (reported by the pool) or checked
  // out (reported by the client); unheard, either would crash the process. The failed query
  // itself rejects and becomes a 503, and the broken connection is discarded on release.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const connections = discardingBrokenConnections(pool);
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool: connections }) }) as Db;
  let closing: Promise<void> | undefined;
  return {
    db,
    dialect: 'postgres',
    // Read committed is enough because every read-check-write locks the rows it reads before it
    // checks them (dialect.ts, lockRows; the team's counters lock the team row), so concurrent
    // writers of a row queue and each sees what the one before it committed.
    transaction: (work) => runTransaction(db.transaction().setIsolationLevel('read committed'), work),
    close: (options) => {
      // The pool's end waits for every checked-out connection; cut ones come back at once.
      if (options?.force) connections.cutCheckedOut();
      return (closing ??= db.destroy());
    },
  };
}

/**
 * The pool as Kysely sees it, except that a connection on which a query failed for connection
 * reasons (a read timeout, a reset) is closed at once and never reused. Otherwise pg leaves the
 * timed-out query running, Kysely's ROLLBACK queues behind it, and the connection goes back to
 * the pool still inside the transaction, where a later COMMIT would commit the abandoned work.
 * Closing the socket makes PostgreSQL roll that transaction back. `cutCheckedOut` does the same to
 * every connection checked out now, for a shutdown out of time.
 */
function discardingBrokenConnections(pool: pg.Pool): PostgresPool & { cutCheckedOut(): void } {
  /** How to cut each connection checked out now. */
  const checkedOut = new Set<() => void>();
  return {
    end: () => pool.end(),
    cutCheckedOut: () => {
      for (const cut of checkedOut) cut();
    },
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      let broken: Error | undefined;
      const cut = (reason: Error) => {
        if (broken) return;
        broken = reason;
        // pg has no public "abort now": end() would wait behind the stuck query.
        (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
      };
      const cutForShutdown = () => cut(new Error('connection closed by a shutdown out of time'));
      checkedOut.add(cutForShutdown);
      const query = async (text: string, values: readonly unknown[]) => {
        try {
          return await client.query({ text, values: values as unknown[], name: statementName(text) });
        } catch (error) {
          if (isDatabaseUnavailable(error)) cut(error as Error);
          throw error;
        }
      };
      return {
        query: query as unknown as PostgresPoolClient['query'],
        release: () => {
          checkedOut.delete(cutForShutdown);
          client.release(broken);
        },
      };
    },
  };
}
