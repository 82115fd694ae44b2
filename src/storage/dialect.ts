/**
 * Every difference between SQLite and PostgreSQL that the rest of tasklane must know about.
 * Callers never branch on the engine; they ask this module.
 */
import {
  PostgresAdapter,
  sql,
  type ColumnDefinitionBuilder,
  type Expression,
  type CreateTableBuilder,
  type Kysely,
  type RawBuilder,
  type SelectQueryBuilder,
  type SqlBool,
} from 'kysely';
import * as postgresJson from 'kysely/helpers/postgres';
import * as sqliteJson from 'kysely/helpers/sqlite';

export type DialectName = 'sqlite' | 'postgres';

/** Adds an auto-incrementing integer primary key named `id`. */
export function withSerialId<T extends string>(
  table: CreateTableBuilder<T, never>,
  dialect: DialectName,
): CreateTableBuilder<T, 'id'> {
  return dialect === 'postgres'
    ? table.addColumn('id', 'serial', (col: ColumnDefinitionBuilder) => col.primaryKey())
    : table.addColumn('id', 'integer', (col: ColumnDefinitionBuilder) => col.primaryKey().autoIncrement());
}

export const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;

/**
 * A correlated EXISTS that must be probed row by row: PostgreSQL may plan `… OR EXISTS (…)` as a
 * hashed subplan, which reads the whole inner table once (every list item of every team) to
 * spare per-row probes that a walk stopping at its limit would mostly never make. OFFSET 0 is a
 * fence its planner does not look through. SQLite always probes per row.
 */
export function probedPerRow<Q extends SelectQueryBuilder<any, any, any>>(db: Kysely<any>, query: Q): Q {
  return isPostgres(db) ? (query.offset(0) as Q) : query;
}

/** A list of values bound as one parameter: JSON text on SQLite, an array on PostgreSQL. */
export type ListParam = string | readonly (number | string)[];

export function listParam(db: Kysely<any>, values: readonly (number | string)[]): ListParam {
  return isPostgres(db) ? values : JSON.stringify(values);
}

/**
 * `column IN (values)` with the whole list as one parameter (`listParam`), so the statement's
 * text is the same for any number of values: one prepared statement, compiled once (see
 * prepared.ts), where a literal IN list makes one per length, and SQLite keeps each in memory
 * (about 90 KB for a list of 500 ids). SQLite reads the list with json_each, PostgreSQL with = any.
 */
export function inList(db: Kysely<any>, column: string, values: ListParam): RawBuilder<SqlBool> {
  return isPostgres(db)
    ? sql<SqlBool>`${sql.ref(column)} = any(${values})`
    : sql<SqlBool>`${sql.ref(column)} in (select value from json_each(${values}))`;
}

/** Where a read of a page of tasks' rows stopped: the last row's task and id ({0, 0}: the start). */
export interface TaskRowKey {
  taskId: number;
  id: number;
}

/** The parameters of `pastTaskRow`, made by `taskRowsPage`. */
export type TaskRowsPage = { taskIds: ListParam; afterTask: number; after: number; limit: number };

export const taskRowsPage = (
  db: Kysely<any>,
  taskIds: readonly number[],
  after: TaskRowKey,
  limit: number,
): TaskRowsPage => ({ taskIds: listParam(db, taskIds), afterTask: after.taskId, after: after.id, limit });

/**
 * `query` narrowed to the rows (of alias `alias`, which has task_id and id) of the tasks
 * `p.taskIds` past `p`'s key, in (task_id, id) order, at most `p.limit`: a keyset on the
 * (task_id, id) index, so that an export reads a page of tasks' comments, activity or attachments
 * in a statement per `limit` rows, and a task with more rows than that continues in the next read.
 */
export function pastTaskRow<Q extends SelectQueryBuilder<any, any, any>>(
  db: Kysely<any>,
  query: Q,
  alias: string,
  p: TaskRowsPage,
): Q {
  const [task, id] = [`${alias}.task_id`, `${alias}.id`];
  return query
    .where(inList(db, task, p.taskIds))
    .where((eb) => eb.or([eb(task, '>', p.afterTask), eb.and([eb(task, '=', p.afterTask), eb(id, '>', p.after)])]))
    .orderBy(task)
    .orderBy(id)
    .limit(p.limit) as Q;
}

/**
 * What a transaction means to do with rows it reads before it writes, and so which lock it takes:
 * - `change`: it will update the row (PostgreSQL FOR NO KEY UPDATE, the lock an UPDATE takes; it
 *   does not block inserts elsewhere whose foreign keys point at the row).
 * - `delete`: it will delete the row (FOR UPDATE).
 * - `keep`: the row must still be there at commit, e.g. the parent a new task will point at, or
 *   the team membership of someone being assigned (FOR KEY SHARE: only a delete waits for it).
 */
export type RowLock = 'change' | 'delete' | 'keep';

/**
 * Locks the rows `query` selects until the transaction ends: the first step of every
 * read-check-write. PostgreSQL runs transactions at READ COMMITTED, where a plain read lets
 * another transaction change the row between this one's check and its write (two PATCHes with
 * the same If-Match both passing, say). The lock waits for such a writer to commit, and every
 * read made after it sees what that writer committed, so the check and the write become one step.
 * SQLite needs nothing: `begin immediate` holds the database's one write lock for the whole
 * transaction, so writers already run one at a time.
 *
 * Lock order, which keeps concurrent writers from deadlocking: a transaction locks the rows its
 * change is about first (the task or list it changes or deletes, then rows it must `keep`), and
 * the team row last: its task and event counters (changes/outbox.ts, `recordEvent`, a change's
 * last statement) take it, and hold it to commit. Nothing waits for a row lock while holding the
 * team row: what is touched after it is either locked already or only gets the KEY SHARE locks of foreign
 * key checks, which conflict with deletes alone, and the one row that is ever deleted while
 * referenced (a task, as a parent) is locked up front with `keep`; so is a task's status (read
 * with `keeping`), which a status deletion locks with `delete` before it moves the status's tasks.
 * Status writers (statuses.repository.ts) first lock all their team's statuses, in id order,
 * which queues them behind one another; task writers' `keep` locks do not conflict with that.
 */
export async function lockRows(
  trx: Kysely<any>,
  query: SelectQueryBuilder<any, any, any>,
  lock: RowLock,
): Promise<void> {
  if (!trx.isTransaction) throw new Error('A row lock taken outside a transaction would end with its statement.');
  if (!isPostgres(trx)) return;
  const locked =
    lock === 'change' ? query.forNoKeyUpdate() : lock === 'delete' ? query.forUpdate() : query.forKeyShare();
  await locked.execute();
}

/**
 * `query` taking the `keep` lock on the rows it reads, in the same statement (PostgreSQL FOR KEY
 * SHARE; nothing on SQLite, see `lockRows`): for a hot read of a row a change will point at, where
 * `lockRows` would cost a second statement. Outside a transaction the lock ends with the statement.
 * With `of`, only the rows of that table (alias) of a join are locked.
 */
export function keeping<Q extends SelectQueryBuilder<any, any, any>>(db: Kysely<any>, query: Q, of?: string): Q {
  return (isPostgres(db) ? query.forKeyShare(of) : query) as Q;
}

declare const lockedRow: unique symbol;
/** A row read under its lock (see `readLocked`): what If-Match is checked against (http/etag.ts). */
export type Locked<T> = T & { readonly [lockedRow]: true };

/** Locks the rows of `lockQuery` (see `lockRows`), then reads with `read`, which sees the latest commit. */
export async function readLocked<T>(
  trx: Kysely<any>,
  lockQuery: SelectQueryBuilder<any, any, any>,
  lock: RowLock,
  read: () => Promise<T | undefined>,
): Promise<Locked<T> | undefined> {
  await lockRows(trx, lockQuery, lock);
  return (await read()) as Locked<T> | undefined;
}

/**
 * Runs `work` (statements of the transaction `trx`) waiting at most `ms` for a lock another
 * transaction holds; past it the waiting statement fails with an error `isLockTimeout` knows, and
 * the transaction must be rolled back. PostgreSQL: `lock_timeout` for this transaction only, set
 * back to the default once `work` is done. SQLite waits for no row: `begin immediate` already
 * holds the database's one write lock.
 */
export async function withLockTimeout<T>(
  trx: Kysely<any>,
  dialect: DialectName,
  ms: number,
  work: () => Promise<T>,
): Promise<T> {
  if (dialect !== 'postgres') return work();
  await sql`set local lock_timeout = ${sql.lit(`${ms}ms`)}`.execute(trx);
  const result = await work();
  await sql`set local lock_timeout to default`.execute(trx);
  return result;
}

/** Whether a statement failed because it waited past its lock timeout (see `withLockTimeout`). */
export const isLockTimeout = (error: unknown) => (error as { code?: unknown } | null)?.code === '55P03';

/** PostgreSQL's int4 range; ids beyond it cannot exist, so lookups skip the query. */
export { MAX_ID } from '../contract/common.js';

/**
 * Serializes one-time setup (the first-start bootstrap) across processes starting at once.
 * PostgreSQL: a transaction-scoped advisory lock. SQLite: `begin immediate` already holds the
 * only write lock, so there is nothing to add.
 */
export async function lockSetup(trx: Kysely<any>, dialect: DialectName): Promise<void> {
  if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(${SETUP_LOCK_ID})`.execute(trx);
}

/**
 * Serializes the transactions that take the same `key` until each ends: for a check-then-insert
 * with no row to lock (a person's view count). PostgreSQL: a transaction-scoped advisory lock on
 * the key's 32-bit hash (apart from the setup lock's id, which is beyond 32 bits); two keys that
 * collide only wait for each other. SQLite: nothing, `begin immediate` already serializes writers.
 */
export async function lockKey(trx: Kysely<any>, key: string): Promise<void> {
  if (!trx.isTransaction) throw new Error('A lock taken outside a transaction would end with its statement.');
  if (isPostgres(trx)) await sql`select pg_advisory_xact_lock(hashtext(${key}))`.execute(trx);
}

/**
 * The class of PostgreSQL's two-key advisory locks on a list's membership (the other key is the
 * list id): a task's change takes it shared before it reads who may see it (tasks/access.ts); a
 * change of the list's members or archiving takes it exclusive (migration 0020's triggers).
 */
export const LIST_MEMBERSHIP_LOCK = 27_001;

/** An arbitrary constant naming tasklane's setup lock among a database's advisory locks. */
const SETUP_LOCK_ID = 7_270_431_001;

/**
 * The highest id each table has ever handed out (deleted rows included), so a copy of the
 * database never hands out an id again. SQLite keeps it in sqlite_sequence; PostgreSQL in sequences.
 */
export async function readSerialHighWater(
  db: Kysely<any>,
  dialect: DialectName,
  tables: readonly string[],
): Promise<Map<string, number>> {
  const highWater = new Map<string, number>();
  for (const table of tables) {
    const result =
      dialect === 'postgres'
        ? await sql<{ n: string | null }>`select case when is_called then last_value else 0 end as n
            from ${sql.raw(`${table}_id_seq`)}`.execute(db)
        : await sql<{ n: number | null }>`select seq as n from sqlite_sequence where name = ${table}`.execute(db);
    highWater.set(table, Number(result.rows[0]?.n ?? 0));
  }
  return highWater;
}

/** Makes each table's next generated id follow both its largest row and the given high-water mark. */
export async function setSerialHighWater(
  trx: Kysely<any>,
  dialect: DialectName,
  highWater: Map<string, number>,
): Promise<void> {
  for (const [table, mark] of highWater) {
    const max = await sql<{ n: number | null }>`select max(id) as n from ${sql.table(table)}`.execute(trx);
    const next = Math.max(mark, Number(max.rows[0]?.n ?? 0));
    if (next === 0) continue;
    if (dialect === 'postgres') {
      await sql`select setval(pg_get_serial_sequence(${table}, 'id'), ${next})`.execute(trx);
    } else {
      await sql`delete from sqlite_sequence where name = ${table}`.execute(trx);
      await sql`insert into sqlite_sequence (name, seq) values (${table}, ${next})`.execute(trx);
    }
  }
}

/** The database's own tables, read from its catalog (the engine's internal tables left out). */
export async function listTables(db: Kysely<any>, dialect: DialectName): Promise<string[]> {
  const result =
    dialect === 'postgres'
      ? await sql<{ name: string }>`select table_name as name from information_schema.tables
          where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db)
      : await sql<{ name: string }>`select name from sqlite_master
          where type = 'table' and substr(name, 1, 7) <> 'sqlite_'`.execute(db);
  return result.rows.map((row) => row.name).sort();
}

/** One column of a table as its catalog declares it; booleans count as integers (0/1). */
export interface CatalogColumn {
  name: string;
  integer: boolean;
}

/** A table's columns, sorted by name. */
export async function listColumns(db: Kysely<any>, dialect: DialectName, table: string): Promise<CatalogColumn[]> {
  const result =
    dialect === 'postgres'
      ? await sql<{ name: string; type: string }>`select column_name as name, data_type as type
          from information_schema.columns where table_schema = current_schema() and table_name = ${table}`.execute(db)
      : await sql<{ name: string; type: string }>`select name, type from pragma_table_info(${table})`.execute(db);
  return result.rows
    .map((row) => ({ name: row.name, integer: /int|bool/i.test(row.type) }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Tables whose `id` the database generates (see withSerialId): AUTOINCREMENT, serial or identity. */
export async function listSerialTables(db: Kysely<any>, dialect: DialectName): Promise<string[]> {
  const result =
    dialect === 'postgres'
      ? await sql<{ name: string }>`select table_name as name from information_schema.columns
          where table_schema = current_schema() and column_name = 'id'
            and (column_default like 'nextval(%' or is_identity = 'YES')`.execute(db)
      : await sql<{ name: string }>`select name from sqlite_master
          where type = 'table' and lower(sql) like '%autoincrement%'`.execute(db);
  return result.rows.map((row) => row.name).sort();
}

/**
 * A subquery's rows as one JSON array of objects (`[]` when none), as a column of the outer
 * query: PostgreSQL json_agg, SQLite json_group_array. Lets one statement answer what would
 * otherwise take one per part (a task's detail). Read the column with `fromJson`.
 */
export function jsonRows<O>(db: Kysely<any>, rows: SelectQueryBuilder<any, any, O>): RawBuilder<O[] | string> {
  return (isPostgres(db) ? postgresJson.jsonArrayFrom(rows) : sqliteJson.jsonArrayFrom(rows)) as RawBuilder<
    O[] | string
  >;
}

/** The subquery's one row as a JSON object, or null when it has none (see `jsonRows`). */
export function jsonRow<O>(db: Kysely<any>, row: SelectQueryBuilder<any, any, O>): RawBuilder<O | string | null> {
  return (isPostgres(db) ? postgresJson.jsonObjectFrom(row) : sqliteJson.jsonObjectFrom(row)) as RawBuilder<
    O | string | null
  >;
}

/**
 * A JSON object built by the database from named values (PostgreSQL json_build_object, SQLite
 * json_object), keys in the order given. Values may themselves be JSON (`jsonObject`,
 * `jsonRows`, `jsonBoolean`): they nest as JSON, not as text.
 */
export function jsonObject(db: Kysely<any>, fields: Record<string, Expression<unknown>>): RawBuilder<unknown> {
  return isPostgres(db) ? postgresJson.jsonBuildObject(fields) : sqliteJson.jsonBuildObject(fields);
}

/** A 0/1 column as a JSON `true`/`false` inside `jsonObject`. */
export function jsonBoolean(db: Kysely<any>, column: string): RawBuilder<unknown> {
  return isPostgres(db)
    ? sql`(${sql.ref(column)} = 1)`
    : sql`json(case when ${sql.ref(column)} then 'true' else 'false' end)`;
}

/** JSON built by the database, as its text: what the pg driver would otherwise parse into objects. */
export function jsonText(db: Kysely<any>, json: Expression<unknown>): RawBuilder<string> {
  return isPostgres(db) ? sql<string>`(${json})::text` : sql<string>`${json}`;
}

/**
 * A text column to order by code point, as `byNameThenId` (ids.ts) does: SQLite's default
 * (binary) collation does; PostgreSQL needs "C", whatever its database's collation is.
 */
export function codePointOrder(db: Kysely<any>, column: string): RawBuilder<unknown> {
  return isPostgres(db) ? sql`${sql.ref(column)} collate "C"` : sql`${sql.ref(column)}`;
}

/** A `jsonRows`/`jsonRow` column as a value: the pg driver parses JSON itself, SQLite returns text. */
export function fromJson<T>(value: T | string): T {
  return typeof value === 'string' ? (JSON.parse(value) as T) : value;
}

/**
 * Whether one statement can make several writes, each using what the one before it returned
 * (PostgreSQL's data-modifying WITH). Where it can, the writes that run under a lock held to
 * commit go in one statement, so the lock is held for one round trip; SQLite runs them one by
 * one, which costs it nothing: its statements are calls in the process, and `begin immediate`
 * already holds its one write lock for the whole transaction.
 */
export const chainsWrites = (db: Kysely<any>): boolean => isPostgres(db);

/**
 * Whether the database runs in the server's process (SQLite), so that JSON it writes costs
 * the server less than JavaScript building it; PostgreSQL's CPU is shared by every server.
 */
export const writesJsonInProcess = (db: Kysely<any>): boolean => !isPostgres(db);

/**
 * The number a new task of `teamId` is inserted with (tasks.service.ts, `createTask`).
 * PostgreSQL: a provisional one no other open transaction can be using, minus the backend's
 * process id (a connection runs one transaction at a time and creates one task in it), until the
 * team's task counter gives it its real number in the outbox's one last statement before commit
 * (`chainsWrites`), so the team row is locked only then. SQLite: its real number, the team's
 * counter plus one, which the outbox bumps later in the same transaction: `begin immediate` holds
 * the one write lock from the start, so no other transaction can take that number meanwhile, and
 * the row and its (team, number) index entry are written once, not twice.
 */
export function numberAtInsert(db: Kysely<any>, teamId: unknown): RawBuilder<number> {
  return isPostgres(db)
    ? sql<number>`-pg_backend_pid()`
    : sql<number>`(select task_counter + 1 from teams where id = ${teamId})`;
}

/**
 * The strings of `values` (a `listParam`) as the rows of a one-column table `v(value)` to select
 * from: an INSERT … SELECT of one row per value, in one statement of fixed text (see `inList`).
 */
export function listValues(db: Kysely<any>, values: ListParam) {
  const rows = isPostgres(db)
    ? sql<{ value: string }>`(select unnest(cast(${values} as text[])) as value)`
    : sql<{ value: string }>`(select value from json_each(${values}))`;
  return rows.as('v');
}

/**
 * `query` locking the rows it returns until the transaction ends and skipping rows another
 * transaction holds (PostgreSQL `FOR NO KEY UPDATE SKIP LOCKED`): how several processes share
 * a queue, each taking what no other is taking at that moment. NO KEY UPDATE, so inserts whose
 * foreign keys point at a locked row (the outbox's webhook deliveries) never wait for it.
 * SQLite: the query as is; `begin immediate` already runs one writer at a time.
 */
export function claimSkippingLocked<Q extends SelectQueryBuilder<any, any, any>>(db: Kysely<any>, query: Q): Q {
  return (isPostgres(db) ? query.forNoKeyUpdate().skipLocked() : query) as Q;
}

/**
 * Two `listParam`s of equal length as the rows of a two-column table `v(first, second)`, paired
 * by position: an INSERT … SELECT of one row per pair, in one statement of fixed text. On SQLite
 * the second is read by index into its array (SQLite keeps the parsed array for the statement):
 * a join of two json_each on their keys compared every pair, which made a change notifying 500
 * people cost 67 ms.
 */
export function listPairs(db: Kysely<any>, first: ListParam, second: ListParam) {
  const rows = isPostgres(db)
    ? sql<{
        first: string;
        second: string;
      }>`(select * from unnest(cast(${first} as text[]), cast(${second} as text[])) as p(first, second))`
    : sql<{
        first: string;
        second: string;
      }>`(select a.value as first, json_extract(${second}, '$[' || a.key || ']') as second from json_each(${first}) as a)`;
  return rows.as('v');
}
