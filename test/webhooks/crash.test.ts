/**
 * Durability of webhook deliveries on the store under test: `tasklane serve` (a child process) is
 * killed with SIGKILL in the middle of a burst of changes while a receiver is taking deliveries.
 * After a restart on the same database every event of the outbox arrives at the receiver with a
 * 2xx, and each delivery's webhook-id arrives at least once: a delivery is written in its change's
 * transaction, so whatever committed is delivered, and an attempt the kill cut short is made again.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import { openStore } from '../../src/storage/database.js';
import { messageIdOf } from '../../src/webhooks/delivery/signing.js';
import { Client, expectStatus, TEST_STORE, TEST_WEBHOOK_ENV, tempDatabase } from '../harness.js';
import { killAll, printedKey, serve } from '../processes.js';
import { startReceiver, verify, waitFor } from './support.js';

const WRITERS = 8;
const ENV = {
  ...TEST_WEBHOOK_ENV,
  WEBHOOK_DELIVERY: 'on',
  // A short deadline, so the killed process's leases (deadline + 10 s) run out soon after the restart.
  WEBHOOK_TIMEOUT_MS: '1000',
  WEBHOOK_MAX_IN_FLIGHT: '4',
  WEBHOOK_RETRY_FIRST_DELAY_MS: '100',
  WEBHOOK_RETRY_MAX_DELAY_MS: '500',
  RATE_LIMIT_PER_MINUTE: '0',
  LOG_LEVEL: 'error',
};

test(
  `${TEST_STORE}: after SIGKILL during a burst of changes and a restart, every committed event is delivered and each webhook-id arrives at least once`,
  { timeout: 120_000 },
  async (t) => {
    const database = await tempDatabase();
    const receiver = await startReceiver(() => ({ status: 200, delayMs: 3 }));
    try {
      let server = await serve(database.url, ENV);
      const { key } = printedKey(server.stdout());
      let api = new Client(server.url, key);
      const webhook = expectStatus(await api.post('/v1/webhooks', { url: `${receiver.url}/crash` }), 201);

      // The burst: writers create tasks until the server is gone; it is killed after 60 answers.
      let acknowledged: number[] = [];
      const killed = server;
      const exited = once(killed.child, 'exit');
      const writers = Array.from({ length: WRITERS }, async (_, w) => {
        for (let n = 0; ; n++) {
          const response = await api.post('/v1/tasks', { title: `Burst ${w}.${n}` }).catch(() => undefined);
          if (!response) return;
          if (response.status === 201) acknowledged.push(response.body.id);
          if (acknowledged.length >= 60 && killed.child.exitCode === null && killed.child.signalCode === null) {
            killed.child.kill('SIGKILL');
          }
        }
      });
      await Promise.all(writers);
      await exited;
      assert.equal(killed.child.signalCode, 'SIGKILL');
      const heardBeforeRestart = receiver.requests.length;

      server = await serve(database.url, ENV);
      api = new Client(server.url, key);
      const store = openStore(database.url, { poolSize: 1 });
      try {
        const events = await store.db
          .selectFrom('events')
          .select(['type', 'data'])
          .where('type', 'like', 'task.%')
          .execute();
        const committed = events.map((e) => `${e.type} ${JSON.parse(e.data).taskId}`).sort();
        const deliveryIds = (await store.db.selectFrom('webhook_deliveries').select('id').execute()).map((d) =>
          messageIdOf(d.id),
        );
        assert.equal(deliveryIds.length, committed.length, 'one delivery written per committed event');
        t.diagnostic(
          `${acknowledged.length} writes acknowledged, ${committed.length} committed; ` +
            `${heardBeforeRestart} requests reached the receiver before the restart`,
        );

        const delivered = () => {
          const ok = receiver.requests.filter((r) => r.endedAt !== undefined);
          return new Set(ok.map((r) => r.webhookId));
        };
        await waitFor(
          'every delivery to arrive after the restart',
          () => deliveryIds.every((id) => delivered().has(id)),
          60_000,
        );
        const received = new Set(
          receiver.requests.map((r) => {
            const body = verify(webhook.secret, r);
            return `${body.type} ${body.data.id}`;
          }),
        );
        assert.deepEqual([...received].sort(), [...new Set(committed)].sort(), 'every committed event, nothing else');
        acknowledged = acknowledged.filter((id) => !received.has(`task.created ${id}`));
        assert.deepEqual(acknowledged, [], 'acknowledged creations that never arrived');
      } finally {
        await store.close();
      }
      assert.equal(await server.stop(), 0, server.stderr());
    } finally {
      killAll();
      await receiver.close();
      await database.remove();
    }
  },
);
