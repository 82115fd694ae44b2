/**
 * A webhook's delivery log read in pages bounded by size (docs/api.md, "Page sizes"): the log
 * lists summaries (no bodies, the newest attempt), at most MAX_PAGE_BYTES a page, with a Link
 * header to the rest; GET …/deliveries/{deliveryId} has one delivery whole, for its owner alone.
 *
 * Test servers send nothing (WEBHOOK_DELIVERY=off): what a worker writes when it sends (the body,
 * the attempts) is written here directly, as large as it can be.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MAX_PAGE_BYTES } from '../../src/contract/index.js';
import { MAX_ATTEMPTS_SHOWN } from '../../src/webhooks/deliveries.repository.js';
import { createTestTeam } from '../factories.js';
import { expectError, expectStatus, startTestServer, TEST_STORE, type Response, type TestServer } from '../harness.js';
import { createWebhook } from './support.js';

/** The 4 KB an attempt keeps of an answer, in the bytes JSON writes largest (`\u0001`: 6 each). */
const LARGEST_EXCERPT = '\u0001'.repeat(4096);

describe(`webhook delivery log (${TEST_STORE})`, () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  /** Logs `count` failed attempts of the delivery, each with the largest excerpt of the answer. */
  async function logAttempts(deliveryId: number, count: number): Promise<void> {
    const at = (i: number) => new Date(Date.UTC(2030, 0, 1, 0, 0, i)).toISOString();
    await server.store.db
      .insertInto('webhook_attempts')
      .values(
        Array.from({ length: count }, (_, i) => ({
          delivery_id: deliveryId,
          attempted_at: at(i),
          duration_ms: 100 + i,
          status_code: 500,
          response_body: LARGEST_EXCERPT,
          error: `Attempt ${i} failed.`,
          next_attempt_at: at(i + 1),
        })),
      )
      .execute();
  }

  test('the log lists summaries without bodies, at most 1 MiB a page, and its Link header leads through every delivery once, newest first', async () => {
    const { owner } = await createTestTeam(server);
    const hook = await createWebhook(owner.api, 'http://127.0.0.1:9/log');
    const queued: number[] = [];
    for (let i = 0; i < 60; i++)
      queued.push(expectStatus(await owner.api.post(`/v1/webhooks/${hook.id}/test`), 202).id);
    const body = JSON.stringify({ type: 'webhook.test', data: { padding: 'x'.repeat(300_000) } });
    await server.store.db
      .updateTable('webhook_deliveries')
      .set({ payload: body })
      .where('webhook_id', '=', hook.id)
      .execute();
    for (const id of queued) await logAttempts(id, 3);

    const seen: any[] = [];
    const pageSizes: number[] = [];
    let next: string | undefined = `/v1/webhooks/${hook.id}/deliveries?limit=100`;
    while (next !== undefined) {
      const response: Response = await owner.api.get(next);
      const page: any[] = expectStatus(response, 200);
      const bytes = Buffer.byteLength(response.text);
      assert.ok(bytes <= MAX_PAGE_BYTES, `a page of ${bytes} bytes (${page.length} deliveries) from ${next}`);
      seen.push(...page);
      pageSizes.push(page.length);
      const link: string | null = response.headers.get('link');
      next = link === null ? undefined : /^<([^<>]+)>; rel="next"$/.exec(link)![1];
      if (next) assert.equal(next, `/v1/webhooks/${hook.id}/deliveries?limit=100&before=${page.at(-1).id}`);
    }
    assert.ok(
      pageSizes.length >= 2 && pageSizes[0]! < 60,
      `the first page is cut by its size: ${pageSizes.join(', ')}`,
    );
    assert.deepEqual(
      seen.map((d) => d.id),
      [...queued].reverse(),
      'every delivery once, newest first',
    );
    for (const summary of seen) {
      assert.deepEqual(Object.keys(summary).sort(), [
        'attemptCount',
        'finishedAt',
        'id',
        'lastAttempt',
        'messageId',
        'nextAttemptAt',
        'occurredAt',
        'status',
        'type',
      ]);
      assert.equal(summary.attemptCount, 3);
      assert.equal(summary.lastAttempt.error, 'Attempt 2 failed.', 'the newest attempt');
      assert.equal(summary.lastAttempt.responseBody, LARGEST_EXCERPT);
    }

    const whole = expectStatus(await owner.api.get(`/v1/webhooks/${hook.id}/deliveries/${queued[0]}`), 200);
    const { payload, attempts, ...summary } = whole;
    assert.deepEqual(summary, seen.at(-1), 'the delivery read has the summary the log lists');
    assert.equal(payload, body, 'and the body as sent');
    assert.deepEqual(
      attempts.map((a: any) => a.error),
      ['Attempt 2 failed.', 'Attempt 1 failed.', 'Attempt 0 failed.'],
      'and every attempt, newest first',
    );
  });

  test('a delivery read shows its newest 100 attempts, and attemptCount counts them all; one not yet tried has no body and no attempt', async () => {
    const { owner } = await createTestTeam(server);
    const hook = await createWebhook(owner.api, 'http://127.0.0.1:9/many');
    const retried = expectStatus(await owner.api.post(`/v1/webhooks/${hook.id}/test`), 202);
    await logAttempts(retried.id, MAX_ATTEMPTS_SHOWN + 5);
    const fresh = expectStatus(await owner.api.post(`/v1/webhooks/${hook.id}/test`), 202);

    const whole = expectStatus(await owner.api.get(`/v1/webhooks/${hook.id}/deliveries/${retried.id}`), 200);
    assert.equal(whole.attemptCount, MAX_ATTEMPTS_SHOWN + 5);
    assert.equal(whole.attempts.length, MAX_ATTEMPTS_SHOWN);
    assert.equal(whole.attempts[0].error, `Attempt ${MAX_ATTEMPTS_SHOWN + 4} failed.`);
    assert.deepEqual(whole.lastAttempt, whole.attempts[0]);

    const [newest, older] = expectStatus(await owner.api.get(`/v1/webhooks/${hook.id}/deliveries`), 200);
    assert.equal(older.attemptCount, MAX_ATTEMPTS_SHOWN + 5);
    const { payload, attempts, ...freshSummary } = fresh;
    assert.deepEqual([payload, attempts, freshSummary.lastAttempt], [null, [], null]);
    assert.deepEqual(newest, freshSummary);
    assert.deepEqual(expectStatus(await owner.api.get(`/v1/webhooks/${hook.id}/deliveries/${fresh.id}`), 200), fresh);
  });

  test("a delivery is read by its webhook's owner alone: the team's owners and admins get 403 as for the log, anyone else 404; another webhook's delivery and a malformed id are refused", async () => {
    const team = await createTestTeam(server);
    const owner = await team.member({ name: 'Hook Owner' });
    const admin = await team.member({ role: 'admin', name: 'Ada Admin' });
    const mate = await team.member();
    const stranger = (await createTestTeam(server)).owner;
    const hook = await createWebhook(owner.api, 'http://127.0.0.1:9/mine');
    const other = await createWebhook(owner.api, 'http://127.0.0.1:9/other');
    const delivery = expectStatus(await owner.api.post(`/v1/webhooks/${hook.id}/test`), 202);
    const path = `/v1/webhooks/${hook.id}/deliveries/${delivery.id}`;

    expectStatus(await owner.api.get(path), 200);
    const only =
      "Only the webhook's owner can do this; the team's owners and admins may only list, disable and delete it.";
    for (const manager of [team.owner, admin]) {
      expectError(await manager.api.get(`/v1/webhooks/${hook.id}/deliveries`), 403, only);
      expectError(await manager.api.get(path), 403, only);
    }
    for (const reader of [mate, stranger])
      expectError(await reader.api.get(path), 404, `Webhook ${hook.id} not found.`);
    expectError(await server.client().get(path), 401);
    expectError(
      await owner.api.get(`/v1/webhooks/${other.id}/deliveries/${delivery.id}`),
      404,
      `Delivery ${delivery.id} not found.`,
    );
    expectError(await owner.api.get(`/v1/webhooks/${hook.id}/deliveries/x1`), 400, 'deliveryId must be a number.');
  });
});
