/**
 * How deliveries fail: a 410 disables the endpoint; so do continuous failures for
 * WEBHOOK_DISABLE_AFTER_MS (5 days, compressed here), and the owner sees why; redirects are not
 * followed; an attempt has a deadline; the log keeps the first 4 KB of an answer; a webhook whose
 * owner left the team stops.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { createTestTeam } from '../factories.js';
import { expectStatus, TEST_STORE, type Client } from '../harness.js';
import { deleteMember } from '../../src/team/teams.repository.js';
import { insertTestDelivery } from '../../src/webhooks/deliveries.repository.js';
import { createWebhook, deliveriesOf, startReceiver, waitFor, webhookServer, type Receiver } from './support.js';

const server = await webhookServer({ WEBHOOK_DISABLE_AFTER_MS: '1500', WEBHOOK_TIMEOUT_MS: '800' });
const receivers: Receiver[] = [];
after(async () => {
  await server.close();
  await Promise.all(receivers.map((r) => r.close()));
});

async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const started = await startReceiver(...args);
  receivers.push(started);
  return started;
}

/** The webhook as its owner reads it, once `check` holds. */
async function webhookWhen(api: Client, id: string, what: string, check: (webhook: any) => boolean): Promise<any> {
  return waitFor(what, async () => {
    const webhook = expectStatus(await api.get(`/v1/webhooks/${id}`), 200);
    return check(webhook) && webhook;
  });
}

describe(`failing webhook deliveries (${TEST_STORE})`, () => {
  test('410 Gone disables the webhook at once, with the reason; later changes are not sent to it', async () => {
    const gone = await receiver(() => ({ status: 410 }));
    const { owner } = await createTestTeam(server);
    const webhook = await createWebhook(owner.api, `${gone.url}/gone`);
    expectStatus(await owner.api.post('/v1/tasks', { title: 'Gone' }), 201);
    const disabled = await webhookWhen(owner.api, webhook.id, 'the webhook to be disabled', (w) => !w.enabled);
    assert.equal(disabled.disabledReason, 'The endpoint answered 410 Gone.');
    assert.ok(disabled.disabledAt);
    expectStatus(await owner.api.post('/v1/tasks', { title: 'Not sent' }), 201);
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(gone.requests.length, 1, 'nothing more was sent to a disabled endpoint');
  });

  test('an endpoint failing without a success for WEBHOOK_DISABLE_AFTER_MS is disabled, and says since when', async () => {
    const down = await receiver(() => ({ status: 503 }));
    const { owner } = await createTestTeam(server);
    const webhook = await createWebhook(owner.api, `${down.url}/down`);
    expectStatus(await owner.api.post('/v1/tasks', { title: 'Never arrives' }), 201);
    const disabled = await webhookWhen(owner.api, webhook.id, 'the webhook to be disabled', (w) => !w.enabled);
    assert.match(disabled.disabledReason, /^No attempt has succeeded since .*: disabled after 1500 ms of failures\.$/);
    assert.ok(down.requests.length >= 2, 'it was retried before being disabled');
    const [delivery] = await deliveriesOf(owner.api, webhook.id);
    assert.equal(delivery.status, 'pending', 'the delivery waits, not lost, for the webhook to be enabled again');
  });

  test('enabling a disabled webhook again clears its failures and sends what waited', async () => {
    let up = false;
    const flaky = await receiver(() => ({ status: up ? 200 : 410 }));
    const { owner } = await createTestTeam(server);
    const webhook = await createWebhook(owner.api, `${flaky.url}/flaky`);
    expectStatus(await owner.api.post('/v1/tasks', { title: 'Waits' }), 201);
    await webhookWhen(owner.api, webhook.id, 'the webhook to be disabled', (w) => !w.enabled);
    up = true;
    const enabled = expectStatus(await owner.api.patch(`/v1/webhooks/${webhook.id}`, { enabled: true }), 200);
    assert.equal(enabled.enabled, true);
    assert.equal(enabled.disabledReason, null);
    assert.equal(enabled.failingSince, null);
    await waitFor(
      'the waiting delivery',
      async () => (await deliveriesOf(owner.api, webhook.id))[0].status === 'succeeded',
    );
  });

  test('a redirect is not followed: the 3xx is a failed attempt and the target never hears of it', async () => {
    const target = await receiver();
    const redirecting = await receiver(() => ({ status: 307, headers: { location: `${target.url}/elsewhere` } }));
    const { owner } = await createTestTeam(server);
    const webhook = await createWebhook(owner.api, `${redirecting.url}/moved`);
    expectStatus(await owner.api.post('/v1/tasks', { title: 'Redirected' }), 201);
    const [delivery] = await waitFor('a logged attempt', async () => {
      const found = await deliveriesOf(owner.api, webhook.id);
      return found[0]?.attempts.length > 0 && found;
    });
    assert.equal(delivery.attempts.at(-1).status, 307);
    assert.ok(delivery.attempts.at(-1).nextAttemptAt, 'it will be retried');
    assert.equal(target.requests.length, 0);
  });

  test('an attempt that gets no answer within WEBHOOK_TIMEOUT_MS fails with that reason', async () => {
    const slow = await receiver(() => ({ status: 200, delayMs: 3000 }));
    const { owner } = await createTestTeam(server);
    const webhook = await createWebhook(owner.api, `${slow.url}/slow`);
    expectStatus(await owner.api.post('/v1/tasks', { title: 'Slow' }), 201);
    const [delivery] = await waitFor('a logged attempt', async () => {
      const found = await deliveriesOf(owner.api, webhook.id);
      return found[0]?.attempts.length > 0 && found;
    });
    const [attempt] = delivery.attempts;
    assert.equal(attempt.status, null);
    assert.equal(attempt.error, 'No answer within 0.8 s.');
    // Cut at its deadline, before the answer that comes after 3 s (on a busy machine a timer may
    // fire late, so the bound is the answer's time, not the deadline's).
    assert.ok(attempt.durationMs >= 700 && attempt.durationMs < 3000, `took ${attempt.durationMs} ms`);
  });

  test('the log keeps the first 4 KB of a response body', async () => {
    const chatty = await receiver(() => ({ status: 500, body: 'é'.repeat(5000) }));
    const { owner } = await createTestTeam(server);
    const webhook = await createWebhook(owner.api, `${chatty.url}/chatty`);
    expectStatus(await owner.api.post('/v1/tasks', { title: 'Chatty' }), 201);
    const [delivery] = await waitFor('a logged attempt', async () => {
      const found = await deliveriesOf(owner.api, webhook.id);
      return found[0]?.attempts.length > 0 && found;
    });
    const kept: string = delivery.attempts.at(-1).responseBody;
    assert.equal(Buffer.byteLength(kept), 4096, 'exactly 4 KB (2,048 two-byte characters)');
    assert.equal(kept, 'é'.repeat(2048));
  });

  test('a webhook whose owner left the team is disabled and sends nothing more', async () => {
    const hears = await receiver();
    const team = await createTestTeam(server);
    const leaver = await team.member({ role: 'member' });
    const webhook = await createWebhook(leaver.api, `${hears.url}/leaver`);
    await deleteMember(server.store.db, team.id, leaver.userId);
    // Queued as a change would queue it (the team's own changes no longer reach someone who left).
    await insertTestDelivery(server.store.db, {
      webhookId: webhook.id,
      type: 'webhook.test',
      data: JSON.stringify({ webhookId: webhook.id }),
      now: new Date().toISOString(),
    });
    const disabled = await waitFor('the webhook to be disabled', async () => {
      const row = await server.store.db
        .selectFrom('webhooks')
        .selectAll()
        .where('id', '=', webhook.id)
        .executeTakeFirstOrThrow();
      return row.enabled === 0 && row;
    });
    assert.equal(disabled.disabled_reason, 'Its owner is no longer a member of the team.');
    assert.equal(hears.requests.length, 0);
  });
});
