/**
 * Per-endpoint order and bounds: deliveries to one endpoint go in event order, at most
 * WEBHOOK_MAX_IN_FLIGHT at a time, and a slow endpoint never holds up another.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { TestServer } from '../harness.js';
import { createTestTeam } from '../factories.js';
import { expectStatus, TEST_STORE } from '../harness.js';
import { createWebhook, mostAtOnce, startReceiver, waitFor, webhookServer, type Receiver } from './support.js';

const servers: TestServer[] = [];
const receivers: Receiver[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await Promise.all(receivers.map((r) => r.close()));
});

async function started<T extends TestServer | Receiver>(thing: Promise<T>): Promise<T> {
  const value = await thing;
  if ('store' in value) servers.push(value);
  else receivers.push(value);
  return value;
}

describe(`delivery order and bounds (${TEST_STORE})`, () => {
  test('with one in flight (the default), an endpoint gets its deliveries one at a time, in event order', async () => {
    const server = await started(webhookServer());
    const receiver = await started(startReceiver(() => ({ status: 200, delayMs: 20 })));
    const { owner } = await createTestTeam(server);
    await createWebhook(owner.api, `${receiver.url}/ordered`);
    const task = expectStatus(await owner.api.post('/v1/tasks', { title: 'Order 0' }), 201);
    // Concurrent patches: the commit order decides the event order, and so the delivery order.
    await Promise.all(
      Array.from({ length: 12 }, (_, n) => owner.api.patch(`/v1/tasks/${task.id}`, { title: `Order ${n + 1}` })),
    );
    await waitFor('13 deliveries', () => receiver.requests.length === 13, 20_000);
    const ids = receiver.requests.map((r) => Number(r.webhookId.slice(4)));
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => a - b),
      'arrived in event order',
    );
    assert.equal(mostAtOnce(receiver.requests), 1);
  });

  test('WEBHOOK_MAX_IN_FLIGHT bounds the attempts in flight to one endpoint', async () => {
    const server = await started(webhookServer({ WEBHOOK_MAX_IN_FLIGHT: '3' }));
    const receiver = await started(startReceiver(() => ({ status: 200, delayMs: 150 })));
    const { owner } = await createTestTeam(server);
    await createWebhook(owner.api, `${receiver.url}/bounded`);
    for (let n = 0; n < 12; n++) expectStatus(await owner.api.post('/v1/tasks', { title: `Bounded ${n}` }), 201);
    await waitFor('12 deliveries', () => receiver.requests.filter((r) => r.endedAt).length === 12, 20_000);
    const most = mostAtOnce(receiver.requests);
    assert.ok(most <= 3, `${most} at once: never more than three`);
    assert.ok(most >= 2, `${most} at once: more than one at a time`);
  });

  test('a slow endpoint never delays another: the fast one has everything while the slow one is still on its first', async () => {
    const server = await started(webhookServer());
    // Slow, but within the default 10 s timeout: its first attempt is neither cut nor retried here.
    const slow = await started(startReceiver(() => ({ status: 200, delayMs: 8000 })));
    const fast = await started(startReceiver());
    const { owner } = await createTestTeam(server);
    await createWebhook(owner.api, `${slow.url}/slow`);
    await createWebhook(owner.api, `${fast.url}/fast`);
    for (let n = 0; n < 5; n++) expectStatus(await owner.api.post('/v1/tasks', { title: `Race ${n}` }), 201);
    await waitFor('all five at the fast endpoint', () => fast.requests.length === 5, 7000);
    // Read off the slow receiver itself, not a clock: its first request is still unanswered.
    assert.equal(slow.requests.length, 1, 'the slow endpoint has only its first');
    assert.equal(slow.requests[0]!.endedAt, undefined, 'the slow endpoint has not answered its first yet');
  });
});
