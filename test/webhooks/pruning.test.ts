/**
 * The delivery log keeps each attempt for 30 days: a starting server (and every hour after)
 * deletes attempts older than that, and finished deliveries as old; a pending delivery is never
 * deleted, however old, and neither is anything younger.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { openStore } from '../../src/storage/database.js';
import { createTestTeam } from '../factories.js';
import { expectStatus, TEST_STORE, tempDatabase } from '../harness.js';
import { createWebhook, deliveriesOf, startReceiver, waitFor, webhookServer } from './support.js';

const DAY = 24 * 60 * 60 * 1000;
const receiver = await startReceiver();
after(() => receiver.close());

describe(`pruning the webhook delivery log (${TEST_STORE})`, () => {
  test('attempts and finished deliveries older than 30 days go; younger ones and pending deliveries stay', async () => {
    const database = await tempDatabase();
    try {
      const first = await webhookServer({ DATABASE_URL: database.url });
      const { owner } = await createTestTeam(first);
      const webhook = await createWebhook(owner.api, `${receiver.url}/pruned`);
      for (const title of ['Old', 'Recent', 'Waiting']) {
        expectStatus(await owner.api.post('/v1/tasks', { title }), 201);
      }
      const [waiting, recent, old] = await waitFor('three finished deliveries', async () => {
        const found = await deliveriesOf(owner.api, webhook.id);
        return found.length === 3 && found.every((d) => d.status === 'succeeded') && found;
      });
      await first.close();

      const store = openStore(database.url, { poolSize: 1 });
      const { db } = store;
      const longAgo = new Date(Date.now() - 31 * DAY).toISOString();
      const aWhileAgo = new Date(Date.now() - 29 * DAY).toISOString();
      await db
        .updateTable('webhook_attempts')
        .set({ attempted_at: longAgo })
        .where('delivery_id', '=', old.id)
        .execute();
      await db.updateTable('webhook_deliveries').set({ finished_at: longAgo }).where('id', '=', old.id).execute();
      await db
        .updateTable('webhook_attempts')
        .set({ attempted_at: aWhileAgo })
        .where('delivery_id', '=', recent.id)
        .execute();
      await db.updateTable('webhook_deliveries').set({ finished_at: aWhileAgo }).where('id', '=', recent.id).execute();
      // An old attempt of a delivery still pending (its webhook disabled meanwhile): the delivery stays.
      await db
        .updateTable('webhook_deliveries')
        .set({ status: 'pending', finished_at: null, created_at: longAgo })
        .where('id', '=', waiting.id)
        .execute();
      await db
        .updateTable('webhook_attempts')
        .set({ attempted_at: longAgo })
        .where('delivery_id', '=', waiting.id)
        .execute();
      await db
        .updateTable('webhooks')
        .set({ enabled: 0, disabled_reason: 'test' })
        .where('id', '=', webhook.id)
        .execute();
      await store.close();

      const second = await webhookServer({ DATABASE_URL: database.url });
      try {
        const api = second.client(owner.key);
        // The log alone until the prune has run: reading each delivery of a log read mid-prune
        // would find the old one gone between the two reads (a 404 that says nothing wrong).
        await waitFor('the old log to be pruned', async () => {
          const log = expectStatus(await api.get(`/v1/webhooks/${webhook.id}/deliveries?limit=100`), 200);
          return log.length === 2;
        });
        const left = await deliveriesOf(api, webhook.id);
        assert.deepEqual(
          left.map((d: any) => d.id),
          [waiting.id, recent.id],
        );
        const [pending, kept] = left;
        assert.equal(pending.status, 'pending', 'a pending delivery is never pruned');
        assert.deepEqual(pending.attempts, [], 'its attempts older than 30 days are');
        assert.equal(kept.attempts.length, 1, 'an attempt of 29 days ago is kept');
      } finally {
        await second.close();
      }
    } finally {
      await database.remove();
    }
  });
});
