/**
 * The receiver answers 500 for a while, then recovers: the retries follow the (compressed)
 * schedule, doubling with jitter, and once it is back every event arrives, in order, none lost.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { createTestTeam } from '../factories.js';
import { expectStatus, TEST_STORE } from '../harness.js';
import { createWebhook, deliveriesOf, startReceiver, verify, waitFor, webhookServer } from './support.js';

const FIRST = 200;
const server = await webhookServer({
  WEBHOOK_RETRY_FIRST_DELAY_MS: String(FIRST),
  WEBHOOK_RETRY_MAX_DELAY_MS: '1600',
  WEBHOOK_RETRY_FOR_MS: '60000',
});
const OUTAGE_MS = 2500;
let upAt = Infinity;
const receiver = await startReceiver(() => (Date.now() < upAt ? { status: 500, body: 'down' } : { status: 200 }));
after(async () => {
  await server.close();
  await receiver.close();
});

describe(`a receiver that is down for a while (${TEST_STORE})`, () => {
  test('retries follow the schedule (doubling from the first delay, ±20% jitter), and after recovery every event arrives once, in order', async () => {
    const { owner } = await createTestTeam(server);
    const webhook = await createWebhook(owner.api, `${receiver.url}/down`);
    upAt = Date.now() + OUTAGE_MS;
    const tasks = [];
    for (let n = 0; n < 5; n++)
      tasks.push(expectStatus(await owner.api.post('/v1/tasks', { title: `During ${n}` }), 201));

    const deliveries = await waitFor(
      'every delivery to succeed',
      async () => {
        const found = await deliveriesOf(owner.api, webhook.id);
        return found.length === 5 && found.every((d) => d.status === 'succeeded') && found;
      },
      30_000,
    );

    // The first delivery bore the outage: its attempts are spaced as the schedule says.
    const head = deliveries.at(-1);
    const times = head.attempts.map((a: any) => Date.parse(a.attemptedAt)).reverse();
    assert.ok(times.length >= 4, `retried through the outage: ${times.length} attempts`);
    for (let n = 1; n < times.length; n++) {
      const planned = Math.min(FIRST * 2 ** (n - 1), 1600);
      const gap = times[n] - times[n - 1];
      assert.ok(
        // Never early; late only by what a busy machine adds.
        gap >= planned * 0.8 - 5 && gap <= planned * 1.2 + 1500,
        `retry ${n} came ${gap} ms after the one before; the schedule says ${planned} ms ±20%`,
      );
    }
    for (const attempt of head.attempts.slice(1)) {
      assert.equal(attempt.status, 500);
      assert.ok(attempt.nextAttemptAt, 'each failed attempt logged its next retry');
    }
    assert.equal(head.attempts[0].status, 200);

    // Nothing lost: each task's creation arrived, successfully, in order; the failures only on the first.
    const succeeded = receiver.requests.filter((r) => r.path === '/down' && r.startedAt >= upAt);
    const bodies = succeeded.map((r) => verify(webhook.secret, r));
    assert.deepEqual(
      bodies.map((b) => b.data.id),
      tasks.map((t) => t.id),
    );
    assert.equal(new Set(succeeded.map((r) => r.webhookId)).size, 5);
  });
});
