/**
 * A byte-for-byte picture of the whole database: every table (found by introspection, so a
 * table added by a new migration is included without anyone remembering), every row, in a
 * stable order. Two snapshots are equal exactly when no stored data changed in between.
 */
import assert from 'node:assert/strict';
import { sql, SqliteAdapter, type Kysely } from 'kysely';

/** One table's rows, each row an object of its columns, sorted by all columns. */
export type Rows = Record<string, unknown>[];

export interface DatabaseSnapshot {
  tables: Record<string, Rows>;
  /** Canonical text of `tables`: compare these for "nothing changed". */
  text: string;
}

/**
 * Columns that record how a credential is used rather than what a team stores: `last_used_at`
 * is written (at most once a minute per key) by any authenticated request, refused or not.
 * Leaving it out keeps "a refused request changed nothing" about the team's data.
 */
export const BOOKKEEPING_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  api_keys: ['last_used_at'],
};

/** Kysely's own tables: the migration history, not data. */
const MIGRATION_TABLES = /^kysely_migration/;

/** Table names and columns per database: the schema does not change while tests run. */
const layouts = new WeakMap<object, Promise<{ name: string; columns: string[] }[]>>();

function layoutOf(db: Kysely<any>): Promise<{ name: string; columns: string[] }[]> {
  let layout = layouts.get(db);
  if (!layout) {
    layout = db.introspection.getTables().then((tables) =>
      tables
        .filter((table) => !table.isView && !MIGRATION_TABLES.test(table.name))
        .map((table) => ({ name: qualified(table), columns: table.columns.map((c) => c.name) }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    );
    layouts.set(db, layout);
  }
  return layout;
}

/**
 * A mark that moves whenever a row may have changed, and whether it can be trusted now.
 *
 * - SQLite: the rows this connection has inserted, updated or deleted since it opened
 *   (`total_changes()`, triggers' rows and rolled-back ones included) and the commits of other
 *   connections (`data_version`, so an admin command on the file counts too).
 * - PostgreSQL: a sequence that a statement-level trigger on every table advances on each insert,
 *   update, delete or truncate (installed on the test database by the first snapshot; a sequence
 *   moves outside transactions, so a rolled-back change moves it too). Its value moves when a
 *   change is made, not when it commits, so the mark is trusted only while no other session of
 *   the database has a transaction that wrote (`backend_xid`): then every change it counted has
 *   ended, and any later one moves it again.
 */
async function changeMark(db: Kysely<any>): Promise<{ mark: string; settled: boolean }> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    const { rows } = await sql<{ mark: string }>`
      select total_changes() || ':' || (select data_version from pragma_data_version) as mark`.execute(db);
    return { mark: rows[0]!.mark, settled: true };
  }
  await markedTables(db);
  const { rows } = await sql<{ mark: string; writing: boolean }>`
    select (select last_value || ':' || is_called from tasklane_test_changes) as mark,
      exists (select 1 from pg_stat_activity where datname = current_database()
        and pid <> pg_backend_pid() and backend_xid is not null) as writing`.execute(db);
  return { mark: rows[0]!.mark, settled: !rows[0]!.writing };
}

/** PostgreSQL: the sequence and the triggers that advance it (above), once per database. */
const marked = new WeakMap<object, Promise<void>>();

function markedTables(db: Kysely<any>): Promise<void> {
  let done = marked.get(db);
  if (!done) {
    done = (async () => {
      await sql`create sequence if not exists tasklane_test_changes`.execute(db);
      await sql`create or replace function tasklane_test_changed() returns trigger language plpgsql as $$
        begin perform nextval('tasklane_test_changes'); return null; end $$`.execute(db);
      for (const table of await layoutOf(db)) {
        await sql`create or replace trigger tasklane_test_changed
          after insert or update or delete or truncate on ${sql.table(table.name)}
          for each statement execute function tasklane_test_changed()`.execute(db);
      }
    })();
    marked.set(db, done);
  }
  return done;
}

/**
 * The last snapshot of each database with the mark read just before it: while the mark stays the
 * same (and can be trusted), no row has changed since, so that snapshot is still the database's.
 * The fuzzer and the authorization matrix snapshot around every request, and most requests change
 * nothing.
 */
const lastSnapshots = new WeakMap<object, { mark: string; snapshot: DatabaseSnapshot }>();

/** Reads every table of the database, rows ordered by all their columns (or the last reading, above). */
export async function snapshotDatabase(db: Kysely<any>): Promise<DatabaseSnapshot> {
  const { mark, settled } = await changeMark(db);
  const last = lastSnapshots.get(db);
  if (settled && last?.mark === mark) return last.snapshot;
  const snapshot = await readTables(db);
  if (settled) lastSnapshots.set(db, { mark, snapshot });
  else lastSnapshots.delete(db);
  return snapshot;
}

async function readTables(db: Kysely<any>): Promise<DatabaseSnapshot> {
  const tables: Record<string, Rows> = {};
  for (const table of await layoutOf(db)) {
    const skipped = new Set(BOOKKEEPING_COLUMNS[table.name] ?? []);
    const columns = table.columns.filter((name) => !skipped.has(name));
    if (columns.length === 0) continue;
    // ORDER BY every column, by position: a total order that needs no knowledge of keys.
    const order = sql.raw(columns.map((_, i) => String(i + 1)).join(', '));
    const list = sql.join(columns.map((c) => sql.ref(c)));
    const query = sql<Record<string, unknown>>`select ${list} from ${sql.table(table.name)} order by ${order}`;
    tables[table.name] = (await query.execute(db)).rows;
  }
  return { tables, text: stableJson(tables) };
}

function qualified(table: { name: string; schema?: string }): string {
  return table.schema && table.schema !== 'public' ? `${table.schema}.${table.name}` : table.name;
}

/**
 * JSON of driver values. Neither driver returns bigint as configured, and the replacer that
 * would write one costs a call per value around every fuzzed request: used only if needed.
 */
function stableJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
  }
}

/** The rows added to and removed from each table between two snapshots (a changed row is both). */
export function differences(before: DatabaseSnapshot, after: DatabaseSnapshot): string[] {
  const lines: string[] = [];
  if (before.text === after.text) return lines;
  const names = new Set([...Object.keys(before.tables), ...Object.keys(after.tables)]);
  for (const name of [...names].sort()) {
    const was = (before.tables[name] ?? []).map((row) => stableJson(row));
    const now = (after.tables[name] ?? []).map((row) => stableJson(row));
    const wasSet = new Set(was);
    const nowSet = new Set(now);
    const found = lines.length;
    for (const row of was) if (!nowSet.has(row)) lines.push(`${name}: - ${row}`);
    for (const row of now) if (!wasSet.has(row)) lines.push(`${name}: + ${row}`);
    // Equal sets but different counts: a duplicated or vanished identical row.
    if (lines.length === found && was.length !== now.length) lines.push(`${name}: ${was.length} rows → ${now.length}`);
  }
  return lines;
}

/** Fails, listing what changed (first lines), unless the two snapshots are byte-for-byte equal. */
export function assertUnchanged(before: DatabaseSnapshot, after: DatabaseSnapshot, what: string): void {
  if (before.text === after.text) return;
  const changes = differences(before, after);
  assert.fail(
    `${what} changed stored data:\n  ${changes.slice(0, 12).join('\n  ')}${changes.length > 12 ? `\n  … ${changes.length - 12} more` : ''}`,
  );
}
