/**
 * Every difference between SQLite and PostgreSQL that the rest of tasklane must know about.
 * Callers never branch on the engine; they ask this module.
 */
import {
  PostgresAdapter,
  sql,
  type ColumnDefinitionBuilder,
  type CreateTableBuilder,
  type Kysely,
  type RawBuilder,
  type SqlBool,
} from 'kysely';

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

const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;

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

/** PostgreSQL's int4 range; ids beyond it cannot exist, so lookups skip the query. */
export const MAX_ID = 2_147_483_647;

/**
 * Serializes one-time setup (the first-start bootstrap) across processes starting at once.
 * PostgreSQL: a transaction-scoped advisory lock. SQLite: `begin immediate` already holds the
 * only write lock, so there is nothing to add.
 */
export async function lockSetup(trx: Kysely<any>, dialect: DialectName): Promise<void> {
  if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(${SETUP_LOCK_ID})`.execute(trx);
}

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
