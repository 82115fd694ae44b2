/** Migration 0009: PostgreSQL samples tasks.title_search finely enough to estimate a search (BENCHMARKS.md). */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { tempDatabase, type TempDatabase } from '../../test/harness.js';
import { openStore, type Store } from './database.js';
import { migrateToLatest } from './migrate.js';

let database: TempDatabase;
let store: Store;
before(async () => {
  database = await tempDatabase();
  store = openStore(database.url);
  await migrateToLatest(store);
});
after(async () => {
  await store.close();
  await database.remove();
});

test('tasks.title_search keeps a statistics target of 1,000 (default 100), so the planner sees how common a searched word is', async () => {
  const { rows } = await sql<{ target: number }>`
    select attstattarget as target from pg_attribute
    where attrelid = 'tasks'::regclass and attname = 'title_search'
  `.execute(store.db);
  assert.equal(Number(rows[0]?.target), 1000);
});
