/**
 * Copies a whole tasklane database into an empty one (SQLite → PostgreSQL, or any pair), all or
 * nothing. The source is one read snapshot (snapshot.ts) and is never written; the
 * target is filled in one transaction that commits only once every table's row count and
 * checksum, read back inside that same transaction, equal the source's.
 */
import { sql, type Kysely, type SqlBool } from 'kysely';
import type { Store } from './database.js';
import type { Snapshot } from './snapshot.js';
import {
  listColumns,
  listSerialTables,
  listTables,
  readSerialHighWater,
  setSerialHighWater,
  type CatalogColumn,
} from './dialect.js';
import { migrateToLatest, migrationNames } from './migrate.js';
import type { Tables } from './schema.js';
import { TableChecksum } from './table-checksum.js';

/** Every table copied, parents before children so foreign keys hold at every insert; `key` is its primary key. */
export const COPIED_TABLES: readonly { table: keyof Tables; key: readonly string[] }[] = [
  { table: 'teams', key: ['id'] },
  { table: 'users', key: ['id'] },
  { table: 'team_members', key: ['team_id', 'user_id'] },
  { table: 'api_keys', key: ['id'] },
  { table: 'sessions', key: ['id'] },
  // Invitations (migration 0014): their tokens stay hashed, so pending links keep working.
  { table: 'invitations', key: ['id'] },
  { table: 'task_statuses', key: ['id'] },
  { table: 'task_lists', key: ['id'] },
  { table: 'list_members', key: ['list_id', 'user_id'] },
  // A parent task is always older (smaller id) than its subtasks: it had to exist first.
  { table: 'tasks', key: ['id'] },
  { table: 'task_assignees', key: ['task_id', 'user_id'] },
  { table: 'task_list_items', key: ['task_id', 'list_id'] },
  // Labels and the tasks that carry them (migration 0017).
  { table: 'labels', key: ['id'] },
  { table: 'task_labels', key: ['task_id', 'label_id'] },
  // A task's history and discussion (migration 0012).
  { table: 'task_activity', key: ['id'] },
  { table: 'task_comments', key: ['id'] },
  // Attachments' rows (migration 0024); their files are in a file store, which migrate-data moves
  // only when given --files-from and --files-to (attachments/copy-files.ts, through beforeCommit).
  { table: 'attachments', key: ['id'] },
  // The outbox too, so clients resume their event streams across the move.
  // The lists' member snapshots that events name (migration 0020); which one is each list's
  // current snapshot is not copied (NOT_COPIED): the target makes its own.
  { table: 'list_audiences', key: ['id'] },
  { table: 'list_audience_members', key: ['audience_id', 'user_id'] },
  { table: 'events', key: ['id'] },
  { table: 'event_recipients', key: ['event_id', 'user_id'] },
  { table: 'event_audiences', key: ['event_id', 'audience_id'] },
  // Webhooks with their queue and log. Secrets stay sealed: the target's servers need the same
  // WEBHOOK_SECRET_KEY to sign with them.
  { table: 'webhooks', key: ['id'] },
  { table: 'webhook_event_types', key: ['webhook_id', 'type'] },
  { table: 'webhook_deliveries', key: ['id'] },
  { table: 'webhook_attempts', key: ['id'] },
  // Saved views (migration 0019).
  { table: 'views', key: ['id'] },
  // Notifications, followers and mentions (migration 0021).
  { table: 'mentions', key: ['id'] },
  { table: 'task_followers', key: ['task_id', 'user_id'] },
  { table: 'notifications', key: ['id'] },
  // Notification preferences, the mail queue (what is still to be sent, and its log) and the
  // unsubscribe links' tokens, hashed, so links in mail already sent keep working (migration 0022).
  { table: 'notification_preferences', key: ['user_id', 'kind'] },
  { table: 'mail_queue', key: ['id'] },
  { table: 'mail_unsubscribe_tokens', key: ['token_hash'] },
  { table: 'reminder_settings', key: ['user_id'] },
  { table: 'scheduled_jobs', key: ['id'] },
  // Imports (migration 0026): their plans and rows (an import may be applied after the move), and
  // the source refs that make a second apply of the same file change nothing.
  { table: 'imports', key: ['id'] },
  { table: 'import_rows', key: ['import_id', 'seq'] },
  { table: 'import_objects', key: ['team_id', 'ref'] },
  // OAuth clients that registered themselves (migration 0029): their tokens are api_keys rows,
  // copied above, and the clients keep their client_id across the move.
  { table: 'oauth_clients', key: ['id'] },
  // So that a client retrying a POST across the move gets its first answer, not a second write.
  { table: 'idempotency_keys', key: ['credential', 'team_id', 'key_hash'] },
];

/**
 * The tables deliberately left behind, and why. A source holding any table in neither list is
 * refused, and test/migrate-data.test.ts holds both lists against a migrated database's catalog.
 */
export const NOT_COPIED: Readonly<Record<string, string>> = {
  kysely_migration: 'written by migrating the target, which runs the same migrations as the source has',
  kysely_migration_lock: 'written by migrating the target',
  // Migration 0007: UNLOGGED, so PostgreSQL itself empties it after a crash. Leaving it behind
  // forgives at most one window of requests, exactly as a crash does.
  rate_limit_counters: 'ephemeral by design',
  // Migration 0020: a pointer to the snapshot that equals a list's members, which the target's
  // own triggers would delete as its list members are copied in; the target makes its own.
  list_current_audiences: 'derived: made again by the first change of each list',
  // Migration 0022: refreshed by every process that sends mail, within seconds of its start.
  mail_senders: "ephemeral: the target's own sending processes write it",
  // Migration 0025: requests for export files, which live in the source's exports store for a week.
  // Migration 0029: a code lives ten minutes; a client mid-consent across the move starts again.
  oauth_codes: 'ephemeral: ten minutes at most, single use',
  exports: 'ephemeral: an export is made again on the target in minutes; its file is not moved',
  // Migration 0011, SQLite: the titles' FTS5 index and its shadow tables, derived from tasks.
  // The target's own triggers index each task as it is copied in.
  ...Object.fromEntries(
    ['', '_data', '_idx', '_config'].map((suffix) => [
      `tasks_title_fts${suffix}`,
      "derived: filled by the target's triggers",
    ]),
  ),
  // Migration 0018, SQLite: the full-text indexes of tasks and comments, derived the same way.
  ...Object.fromEntries(
    ['tasks_fts', 'task_comments_fts'].flatMap((table) =>
      ['', '_data', '_idx', '_config'].map((suffix) => [
        `${table}${suffix}`,
        "derived: filled by the target's triggers",
      ]),
    ),
  ),
};

/** Rows read and written per statement: memory stays flat however large the tables. */
const BATCH = 500;

export interface CopyProgress {
  table: string;
  phase: 'copying' | 'verifying';
  /** Rows of this table done so far in this phase, out of `total`. */
  rows: number;
  total: number;
}

export interface CopyReport {
  /** Rows per table. */
  copied: Record<string, number>;
  /** Per table with rows, the first 16 hex digits of the checksum both sides agreed on (table-checksum.ts). */
  checksums: Record<string, string>;
}

/** The operator's mistake or a source this release cannot copy: nothing was begun. */
class Refusal extends Error {}

/** Pages of a table's rows in primary-key order, each read after the last key of the one before. */
async function* pages(
  db: Kysely<any>,
  table: string,
  key: readonly string[],
): AsyncGenerator<Record<string, unknown>[]> {
  let last: Record<string, unknown> | undefined;
  for (;;) {
    let query = db.selectFrom(table).selectAll();
    if (last) {
      const after = last;
      // A row-value comparison, (a, b) > (x, y): both engines compare it in the key's own order.
      const keys = sql.join(key.map((column) => sql.ref(column)));
      query = query.where(sql<SqlBool>`(${keys}) > (${sql.join(key.map((column) => after[column]))})`);
    }
    for (const column of key) query = query.orderBy(column);
    const rows = (await query.limit(BATCH).execute()) as Record<string, unknown>[];
    if (rows.length === 0) return;
    yield rows;
    last = rows[rows.length - 1];
  }
}

async function countRows(db: Kysely<any>, table: string): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Refuses a source that is not at exactly this release's schema (migrate-data never migrates its
 * source) or that holds a table this release neither copies nor knowingly leaves behind.
 */
export async function checkSource(source: Snapshot): Promise<void> {
  const tables = await listTables(source.db, source.dialect);
  if (!tables.includes('kysely_migration')) {
    throw new Refusal('the source database holds no tasklane schema (it has no migration records)');
  }
  const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(source.db);
  const applied = new Set(rows.map((row) => row.name));
  const known = migrationNames(source.dialect);
  const unknown = [...applied].filter((name) => !known.includes(name)).sort();
  if (unknown.length > 0) {
    throw new Refusal(
      `the source database was migrated by a newer release of tasklane (migration ${unknown.join(', ')} ` +
        'is unknown to this one); copy it with that release',
    );
  }
  const missing = known.filter((name) => !applied.has(name));
  if (missing.length > 0) {
    throw new Refusal(
      `the source database's schema is older than this release (migration ${missing.join(', ')} has not run on it), ` +
        'and migrate-data never changes its source: start this release\'s "tasklane serve" on it once ' +
        '(it migrates as it starts), then run migrate-data again',
    );
  }
  const unlisted = tables.filter(
    (table) => !COPIED_TABLES.some((t) => t.table === table) && !Object.hasOwn(NOT_COPIED, table),
  );
  if (unlisted.length > 0) {
    throw new Refusal(
      `this release neither copies nor knowingly leaves behind table ${unlisted.join(', ')} (a bug: please report it)`,
    );
  }
}

/** Refuses a target that holds any row: the copy must not merge two workspaces. */
async function checkTargetEmpty(trx: Kysely<any>): Promise<void> {
  for (const { table } of COPIED_TABLES) {
    const rows = await countRows(trx, table);
    if (rows > 0) {
      throw new Refusal(
        `the target database is not empty (${table} holds ${rows} row${rows === 1 ? '' : 's'}); copy into a fresh database`,
      );
    }
  }
}

function sameColumns(table: string, source: CatalogColumn[], target: CatalogColumn[]): void {
  const names = (columns: CatalogColumn[]) => columns.map((column) => column.name).join(', ');
  if (names(source) !== names(target)) {
    throw new Error(`table ${table} has columns (${names(source)}) in the source but (${names(target)}) in the target`);
  }
}

/**
 * Copies `source` into `target`: migrates the target, then in one transaction refuses it unless
 * empty, copies every table of COPIED_TABLES, reads each back and compares, and carries every
 * generated id's high-water mark over. Any failure rolls the whole copy back.
 *
 * `beforeCommit` runs inside that transaction once every table is verified: work that must
 * succeed for the copy to count (migrate-data copies the attachments' files there), so that its
 * failure, too, leaves the target without rows.
 */
export async function copyDatabase(
  source: Snapshot,
  target: Store,
  onProgress: (progress: CopyProgress) => void = () => {},
  beforeCommit: () => Promise<void> = async () => {},
): Promise<CopyReport> {
  await checkSource(source);
  await migrateToLatest(target);
  const serialTables = (await listSerialTables(source.db, source.dialect)).filter((table) =>
    COPIED_TABLES.some((t) => t.table === table),
  );
  // Read within the snapshot on SQLite; a PostgreSQL sequence is outside any snapshot and may be
  // ahead of it, which only skips ids.
  const highWater = await readSerialHighWater(source.db, source.dialect, serialTables);

  try {
    return await target.transaction(async (trx) => {
      await checkTargetEmpty(trx);
      const sums = new Map<string, TableChecksum>();
      for (const { table, key } of COPIED_TABLES) {
        const columns = await listColumns(source.db, source.dialect, table);
        sameColumns(table, columns, await listColumns(trx, target.dialect, table));
        const total = await countRows(source.db, table);
        const sum = new TableChecksum(columns);
        onProgress({ table, phase: 'copying', rows: 0, total });
        for await (const rows of pages(source.db, table, key)) {
          await trx
            .insertInto(table)
            .values(rows as never)
            .execute();
          for (const row of rows) sum.add(row);
          onProgress({ table, phase: 'copying', rows: sum.rows, total });
        }
        sums.set(table, sum);
      }

      const report: CopyReport = { copied: {}, checksums: {} };
      for (const { table, key } of COPIED_TABLES) {
        const copied = sums.get(table)!;
        // The target's own catalog decides how its values read: each side is normalised by its own.
        const back = new TableChecksum(await listColumns(trx, target.dialect, table));
        onProgress({ table, phase: 'verifying', rows: 0, total: copied.rows });
        for await (const rows of pages(trx, table, key)) {
          for (const row of rows) back.add(row);
          onProgress({ table, phase: 'verifying', rows: back.rows, total: copied.rows });
        }
        if (back.rows !== copied.rows || back.digest() !== copied.digest()) {
          throw new Error(
            `table ${table} differs after the copy: the source has ${copied.rows} rows (checksum ` +
              `${copied.digest().slice(0, 16)}), the target ${back.rows} (checksum ${back.digest().slice(0, 16)})`,
          );
        }
        report.copied[table] = copied.rows;
        if (copied.rows > 0) report.checksums[table] = copied.digest().slice(0, 16);
      }

      await beforeCommit();

      // Last, once all else is verified: PostgreSQL's setval is not undone by a rollback.
      await setSerialHighWater(trx, target.dialect, highWater);
      const carried = await readSerialHighWater(trx, target.dialect, serialTables);
      for (const [table, mark] of highWater) {
        if (carried.get(table)! < mark) {
          throw new Error(`${table} would hand out id ${carried.get(table)! + 1} again (the source reached ${mark})`);
        }
      }
      return report;
    });
  } catch (error) {
    if (error instanceof Refusal || !(error instanceof Error)) throw error;
    throw new Error(`${error.message}; the copy was rolled back and the target holds no rows`, { cause: error });
  }
}
