/**
 * Webhooks cost nothing where they are not used: a change of a team without webhooks wakes no
 * delivery worker, and while no delivery is pending the worker reads nothing at all (no poll).
 * With a webhook, the same change wakes the worker at once. The worker is the only reader of the
 * delivery queue here (the housekeeping prune deletes, and is not counted), so a read of
 * `webhook_deliveries` is the worker's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestTeam } from '../factories.js';
import { expectStatus, tempDatabase, TEST_STORE, type TempDatabase } from '../harness.js';
import { sqliteStatements, startCountedApp, type CountedApp, type Statement } from '../statement-log.js';
import { createWebhook, FAST_RETRIES, startReceiver, waitFor, type Receiver } from './support.js';

/** Longer than the worker's poll interval (1 s) twice over: a poll in this window would be seen. */
const QUIET_MS = 2_500;

const readsQueue = (s: Statement) => s.kind === 'SelectQueryNode' && s.tables.includes('webhook_deliveries');

describe(`an idle webhook worker (${TEST_STORE})`, () => {
  let database: TempDatabase;
  let app: CountedApp;
  let receiver: Receiver;

  before(async () => {
    database = await tempDatabase();
    receiver = await startReceiver();
    app = await startCountedApp(database.url, { WEBHOOK_DELIVERY: 'on', ...FAST_RETRIES });
    // The worker looks once when it starts (due work, then anything pending): let that be done.
    await waitFor('the start-up look', () => app.log.statements.filter(readsQueue).length >= 2);
  });
  after(async () => {
    await app.close();
    await receiver.close();
    await database.remove();
  });

  test('changes of a team without webhooks, and the seconds after them, cost no read of the delivery queue', async () => {
    const team = await createTestTeam(app);
    const api = app.client(team.owner.key);
    const start = app.log.statements.length;
    for (let i = 0; i < 10; i++) {
      const task = expectStatus(await api.post('/v1/tasks', { title: `Quiet ${i}` }), 201);
      expectStatus(await api.patch(`/v1/tasks/${task.id}`, { title: `Still quiet ${i}` }), 200);
    }
    await sleep(QUIET_MS);
    const reads = app.log.statements.slice(start).filter(readsQueue);
    assert.deepEqual(reads, [], 'the worker read the delivery queue with nothing to deliver');
  });

  test(
    'on SQLite, a change of a team without an enabled webhook runs no statement on the delivery queue; with one, it does',
    { skip: TEST_STORE === 'postgres' && "PostgreSQL writes a change's deliveries within its one statement" },
    async () => {
      const team = await createTestTeam(app);
      const api = app.client(team.owner.key);
      const writesQueue = (texts: string[]) => texts.filter((sql) => /insert into "webhook_deliveries"/.test(sql));
      const changes = async () => {
        const recorded = sqliteStatements();
        try {
          const task = expectStatus(await api.post('/v1/tasks', { title: 'Counted' }), 201);
          expectStatus(await api.patch(`/v1/tasks/${task.id}`, { title: 'Counted again' }), 200);
        } finally {
          recorded.stop();
        }
        return writesQueue(recorded.texts);
      };
      assert.deepEqual(await changes(), [], 'a team without webhooks wrote to the delivery queue');
      const webhook = await createWebhook(api, `${receiver.url}/${team.id}`);
      expectStatus(await api.patch(`/v1/webhooks/${webhook.id}`, { enabled: false }), 200);
      assert.deepEqual(await changes(), [], 'a team whose only webhook is disabled wrote to the delivery queue');
      expectStatus(await api.patch(`/v1/webhooks/${webhook.id}`, { enabled: true }), 200);
      assert.equal((await changes()).length, 2, 'each change of a team with a webhook queues its deliveries');
    },
  );

  test('a change of a team with a webhook wakes the worker, which delivers it at once', async () => {
    const team = await createTestTeam(app);
    const api = app.client(team.owner.key);
    const path = `/${team.id}`;
    await createWebhook(api, receiver.url + path);
    expectStatus(await api.post('/v1/tasks', { title: 'Heard' }), 201);
    await waitFor('the delivery', () => receiver.requests.some((r) => r.path === path), 5_000);
  });
});
