/**
 * The change publisher: what subscribers get, and that the outbox publishes a change exactly when
 * the transaction that recorded it commits (on the store the suite runs on).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { tempDatabase, type TempDatabase } from '../../test/harness.js';
import { openStore, type Store } from '../storage/database.js';
import { migrateToLatest } from '../storage/migrate.js';
import { createTeam } from '../membership/accounts.service.js';
import { NO_AUDIENCE, recordEvent } from './outbox.js';
import { ChangePublisher, committedChanges, type CommittedChange } from './publisher.js';

describe('ChangePublisher', () => {
  test('every subscriber gets each change, in the order they subscribed, until it unsubscribes', () => {
    const publisher = new ChangePublisher();
    const heard: string[] = [];
    const stopFirst = publisher.subscribe(({ teamId }) => heard.push(`first ${teamId}`));
    publisher.subscribe(({ teamId }) => heard.push(`second ${teamId}`));
    publisher.publish({ teamId: 'a' });
    stopFirst();
    publisher.publish({ teamId: 'b' });
    assert.deepEqual(heard, ['first a', 'second a', 'second b']);
  });

  test('a subscriber that throws neither reaches the publisher nor keeps the change from the others', async () => {
    const publisher = new ChangePublisher();
    const heard: string[] = [];
    const warned = new Promise<Error>((resolve) => process.once('warning', resolve));
    publisher.subscribe(() => {
      throw new Error('subscriber bug');
    });
    publisher.subscribe(({ teamId }) => heard.push(teamId));
    assert.doesNotThrow(() => publisher.publish({ teamId: 'a' }));
    assert.deepEqual(heard, ['a']);
    assert.equal((await warned).message, 'subscriber bug', 'the failure is reported as a process warning');
  });
});

describe('the outbox publishes committed changes', () => {
  let database: TempDatabase;
  let store: Store;
  let teamId: string;
  const heard: CommittedChange[] = [];
  let unsubscribe: () => void;
  before(async () => {
    database = await tempDatabase();
    store = openStore(database.url);
    await migrateToLatest(store);
    teamId = (await createTeam(store.db, 'Publishers')).id;
    unsubscribe = committedChanges.subscribe((change) => heard.push(change));
  });
  after(async () => {
    unsubscribe();
    await store.close();
    await database.remove();
  });

  const event = () => ({ teamId, type: 'task.created' as const, data: { taskId: 1 }, audience: NO_AUDIENCE });

  test('a change is published once its transaction has committed, not while it is still open', async () => {
    heard.length = 0;
    await store.transaction(async (trx) => {
      await recordEvent(trx, event());
      await recordEvent(trx, event());
      assert.deepEqual(heard, [], 'nothing is published before the commit');
    });
    assert.ok(heard.length > 0, 'published after the commit');
    assert.ok(heard.every((change) => change.teamId === teamId));
  });

  test('a transaction that rolls back publishes nothing', async () => {
    heard.length = 0;
    await assert.rejects(
      store.transaction(async (trx) => {
        await recordEvent(trx, event());
        throw new Error('rolled back');
      }),
      /rolled back/,
    );
    assert.deepEqual(heard, []);
  });
});
