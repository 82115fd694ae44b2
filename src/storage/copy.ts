/**
 * Copies a whole tasklane database into an empty one (SQLite → PostgreSQL, or any pair):
 * every table, ids and key hashes included, in one transaction on the target, then checks
 * that every table holds the same number of rows on both sides.
 */
import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { Store } from './database.js';
import { readSerialHighWater, setSerialHighWater } from './dialect.js';
import type { Tables } from './schema.js';

/** Parents before children, so foreign keys hold at every insert. */
const TABLES_IN_ORDER: { table: keyof Tables; orderBy: string[] }[] = [
  { table: 'teams', orderBy: ['id'] },
  { table: 'users', orderBy: ['id'] },
  { table: 'team_members', orderBy: ['team_id', 'user_id'] },
  { table: 'api_keys', orderBy: ['id'] },
  { table: 'sessions', orderBy: ['id'] },
  { table: 'task_statuses', orderBy: ['id'] },
  { table: 'task_lists', orderBy: ['id'] },
  { table: 'list_members', orderBy: ['list_id', 'user_id'] },
  // A parent task is always older (smaller id) than its subtasks: it had to exist first.
  { table: 'tasks', orderBy: ['id'] },
  { table: 'task_assignees', orderBy: ['task_id', 'user_id'] },
  { table: 'task_list_items', orderBy: ['task_id', 'list_id'] },
  // The outbox too, so clients resume their event streams across the move.
  { table: 'events', orderBy: ['id'] },
  { table: 'event_recipients', orderBy: ['event_id', 'user_id'] },
];

const SERIAL_TABLES = ['task_statuses', 'task_lists', 'tasks', 'events'] as const;
const BATCH = 500;

/** Rows whose key (one or two columns) sorts after `last`'s. */
function afterKey(eb: ExpressionBuilder<any, any>, key: string[], last: Record<string, unknown>): Expression<SqlBool> {
  const [first, second] = key as [string, string | undefined];
  if (second === undefined) return eb(first, '>', last[first]);
  return eb.or([eb(first, '>', last[first]), eb.and([eb(first, '=', last[first]), eb(second, '>', last[second])])]);
}

export type CopyReport = Record<keyof Tables, number>;

async function countRows(store: Store, table: keyof Tables): Promise<number> {
  const row = await store.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function copyDatabase(from: Store, to: Store): Promise<CopyReport> {
  if ((await countRows(to, 'teams')) > 0 || (await countRows(to, 'users')) > 0) {
    throw new Error('the target database is not empty; copy into a fresh database');
  }
  const copied = {} as CopyReport;
  await to.transaction(async (trx) => {
    for (const { table, orderBy } of TABLES_IN_ORDER) {
      copied[table] = 0;
      // Keyset pagination (after the last key copied) keeps memory and time flat on large databases.
      let last: Record<string, unknown> | undefined;
      for (;;) {
        let query = from.db.selectFrom(table).selectAll();
        if (last) query = query.where((eb) => afterKey(eb, orderBy, last!));
        for (const column of orderBy) query = query.orderBy(column as never);
        const rows = (await query.limit(BATCH).execute()) as Record<string, unknown>[];
        if (rows.length === 0) break;
        await trx
          .insertInto(table)
          .values(rows as never)
          .execute();
        copied[table] += rows.length;
        last = rows[rows.length - 1];
      }
    }
    await setSerialHighWater(trx, to.dialect, await readSerialHighWater(from.db, from.dialect, SERIAL_TABLES));
  });

  for (const { table } of TABLES_IN_ORDER) {
    const [source, target] = await Promise.all([countRows(from, table), countRows(to, table)]);
    if (source !== target || target !== copied[table]) {
      throw new Error(`row counts differ for ${table}: source ${source}, target ${target}`);
    }
  }
  return copied;
}
