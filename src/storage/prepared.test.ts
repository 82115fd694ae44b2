import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql, type KyselyPlugin, type PluginTransformQueryArgs, type PluginTransformResultArgs } from 'kysely';
import { tempDatabase, TEST_STORE, type TempDatabase } from '../../test/harness.js';
import { openStore, type Store } from './database.js';
import { migrateToLatest } from './migrate.js';
import { prepared, statementName } from './prepared.js';
import type { Db } from './schema.js';

const userName = prepared((db, p: { id: string; email: string }) =>
  db.selectFrom('users').select('name').where('id', '=', p.id).where('email', '=', p.email),
);

describe(`prepared queries (${TEST_STORE})`, () => {
  let database: TempDatabase;
  let store: Store;

  before(async () => {
    database = await tempDatabase();
    store = openStore(database.url);
    await migrateToLatest(store);
    const user = (id: string, name: string) => ({
      id,
      name,
      email: `${name}@example.com`,
      password_hash: null,
      created_at: new Date().toISOString(),
    });
    await store.db
      .insertInto('users')
      .values([
        user('00000000-0000-4000-8000-00000000000a', 'ada'),
        user('00000000-0000-4000-8000-00000000000b', 'bob'),
      ])
      .execute();
  });
  after(async () => {
    await store.close();
    await database.remove();
  });

  test('each call runs with its own values, never those of the call that compiled it', async () => {
    const ada = { id: '00000000-0000-4000-8000-00000000000a', email: 'ada@example.com' };
    const bob = { id: '00000000-0000-4000-8000-00000000000b', email: 'bob@example.com' };
    assert.deepEqual(await userName(store.db, ada), [{ name: 'ada' }]);
    assert.deepEqual(await userName(store.db, bob), [{ name: 'bob' }]);
    assert.deepEqual(await userName(store.db, { ...bob, email: 'ada@example.com' }), []);
    assert.deepEqual(
      await store.transaction((trx) => userName(trx, ada)),
      [{ name: 'ada' }],
      'and inside a transaction',
    );
  });

  test('a database with plugins compiles every call, so each plugin sees each query', async () => {
    let seen = 0;
    const counter: KyselyPlugin = {
      transformQuery: ({ node }: PluginTransformQueryArgs) => (seen++, node),
      transformResult: async ({ result }: PluginTransformResultArgs) => result,
    };
    const db = store.db.withPlugin(counter);
    const bob = { id: '00000000-0000-4000-8000-00000000000b', email: 'bob@example.com' };
    assert.deepEqual(await userName(db, bob), [{ name: 'bob' }]);
    assert.deepEqual(await userName(db, bob), [{ name: 'bob' }]);
    assert.equal(seen, 2);
  });

  test('on PostgreSQL the statement is prepared on the server once per connection, then reused', async (t) => {
    if (store.dialect !== 'postgres') return t.skip('PostgreSQL only');
    const ada = { id: '00000000-0000-4000-8000-00000000000a', email: 'ada@example.com' };
    const runs = (trx: Db, name: string) =>
      sql<{ runs: string }>`select generic_plans + custom_plans as runs from pg_prepared_statements
        where name = ${name}`
        .execute(trx)
        .then((r) => r.rows.map((row) => Number(row.runs)));
    await store.transaction(async (trx) => {
      await userName(trx, ada);
      const compiled = trx.selectFrom('users').select('name').where('id', '=', ada.id).where('email', '=', ada.email);
      const name = statementName(compiled.compile().sql);
      assert.ok(name, 'the compiled text has a statement name');
      const [before] = await runs(trx, name);
      await userName(trx, ada);
      await userName(trx, ada);
      assert.deepEqual(await runs(trx, name), [before! + 2], 'one statement on this connection, run twice more');
    });
  });

  test('statements of the write path are named; reads whose plan depends on their values are not', () => {
    const db = store.db;
    const named = (query: { compile(): { sql: string } }) => statementName(query.compile().sql) !== undefined;
    assert.ok(named(db.updateTable('users').set({ name: 'x' }).where('id', '=', 'y')), 'an update');
    assert.ok(named(db.insertInto('users').values({ id: 'a', name: 'b', email: 'c', created_at: 'd' })), 'an insert');
    assert.ok(named(db.deleteFrom('users').where('id', '=', 'y')), 'a delete');
    assert.ok(named(db.selectFrom('users').select('id').where('id', '=', 'y').forUpdate()), 'a locking read');
    assert.ok(!named(db.selectFrom('users').select('id').where('name', 'like', '%y%')), 'a read built per call');
    assert.equal(statementName('start transaction isolation level read committed'), undefined, 'transaction control');
  });
});
