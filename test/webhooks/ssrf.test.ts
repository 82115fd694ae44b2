/**
 * The SSRF guard in the running server: private addresses are refused when a webhook is created
 * and again at every attempt (a webhook that was allowed is refused once it no longer is), hosts
 * in WEBHOOK_ALLOW_HOSTS may use http and private addresses, and an attempt connects to the very
 * address that was checked, whatever a second DNS lookup would say. A refusal never tells a
 * member what a name resolves to, or how resolving it failed (that would map the server's
 * internal DNS); the server's log does.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { post } from '../../src/webhooks/delivery/send.js';
import { createTestTeam } from '../factories.js';
import {
  Client,
  expectError,
  expectStatus,
  startTestServer,
  TEST_STORE,
  TEST_WEBHOOK_ENV,
  tempDatabase,
} from '../harness.js';
import { serve, type Serving } from '../processes.js';
import { createWebhook, deliveriesOf, FAST_RETRIES, startReceiver, waitFor, webhookServer } from './support.js';

/** The refusal of a host name whose address is not allowed: it says no more than that. */
const NAME_REFUSED = (host: string) =>
  new RegExp(`^${host} resolves to an address that webhooks may not reach: only public addresses are allowed\\.$`);

/** A refusal names no IP address and no resolver error code (ENOTFOUND, EAI_AGAIN, …). */
function assertTellsNoResolution(message: string): void {
  assert.doesNotMatch(message, /\d+\.\d+\.\d+\.\d+|[0-9a-f]*:[0-9a-f]*:/i, 'the message names an address');
  assert.doesNotMatch(message, /\bE[A-Z_]{3,}\b/, 'the message names a resolver error');
}

/** The server's JSON log lines. */
const logLines = (stdout: string): any[] =>
  stdout.split('\n').flatMap((line) => {
    try {
      return [JSON.parse(line)];
    } catch {
      return [];
    }
  });

const receiver = await startReceiver();
after(() => receiver.close());
const port = new URL(receiver.url).port;

describe(`the SSRF guard (${TEST_STORE})`, () => {
  test('without the allow list, a loopback receiver is refused at creation, by IP or by a name that resolves to it', async () => {
    const server = await webhookServer({ WEBHOOK_ALLOW_HOSTS: '' });
    try {
      const { owner } = await createTestTeam(server);
      expectError(await owner.api.post('/v1/webhooks', { url: `https://127.0.0.1:${port}/x` }), 400, /loopback/);
      expectError(await owner.api.post('/v1/webhooks', { url: `https://[::1]:${port}/x` }), 400, /loopback/);
      const named = await owner.api.post('/v1/webhooks', { url: `https://localhost:${port}/x` });
      expectError(named, 400, NAME_REFUSED('localhost'));
      assertTellsNoResolution(named.body.error);
      expectError(await owner.api.post('/v1/webhooks', { url: `http://127.0.0.1:${port}/x` }), 400, /https/);
    } finally {
      await server.close();
    }
  });

  test('a host in WEBHOOK_ALLOW_HOSTS may use http and resolve to loopback', async () => {
    const server = await webhookServer({ WEBHOOK_ALLOW_HOSTS: 'localhost' });
    try {
      const { owner } = await createTestTeam(server);
      await createWebhook(owner.api, `http://localhost:${port}/named`);
      expectError(await owner.api.post('/v1/webhooks', { url: `http://127.0.0.1:${port}/x` }), 400, /https/);
    } finally {
      await server.close();
    }
  });

  test('a refusal tells its caller only that the address is not allowed or cannot be resolved; the server logs what it resolved to, at the default level', async () => {
    const database = await tempDatabase();
    let served: Serving | undefined;
    try {
      // Both webhooks are made while their hosts are allowed, then the server is restarted without.
      const before = await startTestServer({
        DATABASE_URL: database.url,
        WEBHOOK_ALLOW_HOSTS: '127.0.0.1,localhost',
      });
      const { owner } = await createTestTeam(before);
      const byAddress = await createWebhook(owner.api, `https://127.0.0.1:${port}/by-address`);
      const byName = await createWebhook(owner.api, `https://localhost:${port}/by-name`);
      await before.close();

      // The real `tasklane serve` at its default LOG_LEVEL, so that the test reads its real log.
      served = await serve(database.url, {
        ...TEST_WEBHOOK_ENV,
        ...FAST_RETRIES,
        WEBHOOK_DELIVERY: 'on',
        WEBHOOK_ALLOW_HOSTS: '',
      });
      const api = new Client(served.url, owner.key);
      const logged = (match: (line: any) => boolean) => logLines(served!.stdout()).filter(match);

      const named = await api.post('/v1/webhooks', { url: `https://localhost:${port}/x` });
      expectError(named, 400, NAME_REFUSED('localhost'));
      assertTellsNoResolution(named.body.error);
      const unknown = await api.post('/v1/webhooks', { url: 'https://tasklane-no-such-host.invalid/x' });
      expectError(unknown, 400, 'tasklane-no-such-host.invalid cannot be resolved.');
      assertTellsNoResolution(unknown.body.error);

      // The child's log reaches its stdout pipe a moment after the answer: wait for each line.
      const loopback = await waitFor(
        'the log line of the refusal',
        () => logged((line) => line.detail?.host === 'localhost' && line.reqId !== undefined)[0],
      );
      assert.match(loopback.detail.address, /^(127\.0\.0\.1|::1)$/);
      assert.equal(loopback.detail.reason, 'loopback');
      const unresolved = await waitFor(
        'the log line of the failed lookup',
        () => logged((line) => line.detail?.host === 'tasklane-no-such-host.invalid')[0],
      );
      assert.ok(typeof unresolved.detail.cause === 'string' && unresolved.detail.cause !== '');
      assert.ok(!unknown.body.error.includes(unresolved.detail.cause));

      // Every attempt checks again: both webhooks are refused now, and nothing reaches the receiver.
      expectStatus(await api.post('/v1/tasks', { title: 'Refused at delivery' }), 201);
      const lastError = async (webhookId: string) =>
        waitFor('a logged attempt', async () => (await deliveriesOf(api, webhookId))[0]?.attempts.at(-1));
      const addressAttempt = await lastError(byAddress.id);
      assert.equal(addressAttempt.error, '127.0.0.1 is a loopback address, which webhooks may not reach.');
      assert.equal(addressAttempt.status, null);
      const nameAttempt = await lastError(byName.id);
      assert.match(nameAttempt.error, NAME_REFUSED('localhost'));
      assertTellsNoResolution(nameAttempt.error);
      assert.equal(nameAttempt.status, null);
      const attemptLogged = await waitFor('the attempt in the log', () => {
        return logged((line) => line.webhookId === byName.id && line.detail?.host === 'localhost')[0];
      });
      assert.match(attemptLogged.detail.address, /^(127\.0\.0\.1|::1)$/);
      assert.equal(receiver.requests.filter((r) => /^\/by-/.test(r.path)).length, 0);
    } finally {
      await served?.stop();
      await database.remove();
    }
  });

  test('an attempt connects to the address that was checked, not to what the name would resolve to now', async () => {
    // The name cannot resolve at all: only the checked address, handed to the socket, reaches the receiver.
    const url = new URL(`http://rebound.tasklane.invalid:${port}/pinned`);
    const outcome = await post({ url, address: '127.0.0.1', family: 4 }, { 'content-type': 'application/json' }, '{}', {
      ms: 5000,
      timeoutMs: 5000,
    });
    assert.equal(outcome.error, null);
    assert.equal(outcome.status, 204);
    const [arrived] = receiver.requests.filter((r) => r.path === '/pinned');
    assert.equal(arrived?.headers.host, `rebound.tasklane.invalid:${port}`);
  });
});
