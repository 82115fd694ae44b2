/**
 * The PostgreSQL event bus (PostgreSQL only, a *.pg.test file): its LISTEN connection is ended by
 * close() even when close() comes while that connection is still being opened, as it does when
 * a server stops right after starting, or while the bus reconnects after an outage.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { createEventBus } from '../../src/changes/bus.js';
import { openStore, type Store } from '../../src/storage/database.js';
import { tempDatabase, type TempDatabase } from '../harness.js';

let database: TempDatabase;
let store: Store;
let admin: pg.Client;
before(async () => {
  database = await tempDatabase();
  store = openStore(database.url);
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
});
after(async () => {
  await admin.end();
  await store.close();
  await database.remove();
});

/** Backends connected under `name` (the bus's connection carries it as its application_name). */
async function connections(name: string): Promise<number> {
  const { rows } = await admin.query('select count(*)::int as n from pg_stat_activity where application_name = $1', [
    name,
  ]);
  return rows[0].n;
}

test('a bus closed while its LISTEN connection is still opening leaves no connection behind', async () => {
  for (let attempt = 0; attempt < 5; attempt++) {
    const name = `bus_${randomBytes(4).toString('hex')}`;
    const url = new URL(database.url);
    url.searchParams.set('application_name', name);
    const bus = createEventBus(store, url.toString());
    await bus.close(); // the constructor has begun connecting; nothing has answered yet
    await sleep(500);
    const left = await connections(name);
    if (left > 0)
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1', [name]);
    assert.equal(left, 0, `attempt ${attempt}: the LISTEN connection outlived close()`);
  }
});

test('a bus that is listening ends its connection on close', async () => {
  const name = `bus_${randomBytes(4).toString('hex')}`;
  const url = new URL(database.url);
  url.searchParams.set('application_name', name);
  const bus = createEventBus(store, url.toString());
  for (const deadline = Date.now() + 5_000; (await connections(name)) === 0; await sleep(20)) {
    assert.ok(Date.now() < deadline, 'the bus never connected');
  }
  await bus.close();
  for (const deadline = Date.now() + 5_000; (await connections(name)) > 0; await sleep(20)) {
    assert.ok(Date.now() < deadline, 'the LISTEN connection outlived close()');
  }
});
