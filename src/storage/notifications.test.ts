/**
 * Signals between the processes on one database (on the store the suite runs on): on PostgreSQL a
 * payload notified by one connection reaches every listener; SQLite has no other process to
 * reach, so notifying does nothing and a listener hears nothing.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { tempDatabase, TEST_STORE, type TempDatabase } from '../../test/harness.js';
import { openStore, type Store } from './database.js';
import { listenForNotifications, notifyListeners } from './notifications.js';

let database: TempDatabase;
let store: Store;
before(async () => {
  database = await tempDatabase();
  store = openStore(database.url);
});
after(async () => {
  await store.close();
  await database.remove();
});

test('a channel name that is not a plain identifier is refused before anything is opened', () => {
  assert.throws(() => listenForNotifications(store, database.url, 'bad; drop table x', () => {}), /not a channel name/);
});

test(
  'PostgreSQL: a payload notified on a channel reaches every listener on it, and only on it',
  { skip: TEST_STORE !== 'postgres' && 'PostgreSQL only' },
  async () => {
    const heard: string[] = [];
    const listeners = [
      listenForNotifications(store, database.url, 'test_channel', (payload) => heard.push(`one ${payload}`)),
      listenForNotifications(store, database.url, 'test_channel', (payload) => heard.push(`two ${payload}`)),
      listenForNotifications(store, database.url, 'other_channel', (payload) => heard.push(`other ${payload}`)),
    ];
    try {
      // A listener hears only what is sent after its LISTEN: keep sending until both have heard.
      for (const deadline = Date.now() + 5_000; heard.filter((h) => !h.startsWith('other')).length < 2;) {
        assert.ok(Date.now() < deadline, `not every listener heard the payload: ${JSON.stringify(heard)}`);
        heard.length = 0;
        await notifyListeners(store, 'test_channel', 'hello');
        await sleep(50);
      }
      assert.deepEqual(heard.sort(), ['one hello', 'two hello']);
    } finally {
      await Promise.all(listeners.map((listener) => listener.close()));
    }
  },
);

test(
  'SQLite: notifying does nothing and a listener opens nothing, so closing it is immediate',
  { skip: TEST_STORE !== 'sqlite' && 'SQLite only' },
  async () => {
    const heard: string[] = [];
    const listener = listenForNotifications(store, database.url, 'test_channel', (payload) => heard.push(payload));
    await notifyListeners(store, 'test_channel', 'hello');
    await sleep(20);
    await listener.close();
    assert.deepEqual(heard, []);
  },
);
