/**
 * PostgreSQL prepares each statement with parameters once per connection and reuses it
 * (database.ts, prepareStatementsOnce): planning tasklane's statements costs more than running
 * them. A connection keeps a bounded number of them, and statements without parameters stay unnamed.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { tempDatabase, type TempDatabase } from '../../test/harness.js';
import { openStore, type Store } from './database.js';
import type { Db } from './schema.js';

let database: TempDatabase;
let store: Store;
before(async () => {
  database = await tempDatabase();
  store = openStore(database.url, { poolSize: 1 });
});
after(async () => {
  await store.close();
  await database.remove();
});

const prepared = async (db: Db, like: string) =>
  Number(
    (
      await sql<{ n: string }>`select count(*) as n from pg_prepared_statements where statement like ${like}`.execute(
        db,
      )
    ).rows[0]!.n,
  );

test('a statement with parameters is prepared once on its connection and reused, with new values each run', async () => {
  const answers: number[] = [];
  for (const value of [1, 2, 3]) {
    const { rows } = await sql<{ v: number }>`select ${value}::int + 40 as v /* reuse-probe */`.execute(store.db);
    answers.push(rows[0]!.v);
  }
  assert.deepEqual(answers, [41, 42, 43]);
  assert.equal(await prepared(store.db, '%reuse-probe%'), 1);
});

test('statements without parameters stay unnamed', async () => {
  await sql`select 1 as v /* unnamed-probe */`.execute(store.db);
  assert.equal(await prepared(store.db, '%unnamed-probe%'), 0);
});

test('a connection keeps at most 256 prepared statements; later texts still run, unnamed', async () => {
  for (let i = 0; i < 300; i++) {
    const { rows } = await sql<{ v: number }>`select ${i}::int as v /* ${sql.raw(`cap-probe-${i}`)} */`.execute(
      store.db,
    );
    assert.equal(rows[0]!.v, i);
  }
  const all = Number(
    (await sql<{ n: string }>`select count(*) as n from pg_prepared_statements`.execute(store.db)).rows[0]!.n,
  );
  assert.equal(all, 256);
});
