/**
 * The SSRF guard in the running server: private addresses are refused when a webhook is created
 * and again at every attempt (a webhook that was allowed is refused once it no longer is), hosts
 * in WEBHOOK_ALLOW_HOSTS may use http and private addresses, and an attempt connects to the very
 * address that was checked, whatever a second DNS lookup would say.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { post } from '../../src/webhooks/delivery/send.js';
import { createTestTeam } from '../factories.js';
import { expectError, expectStatus, startTestServer, TEST_STORE, tempDatabase } from '../harness.js';
import { createWebhook, deliveriesOf, startReceiver, waitFor, webhookServer } from './support.js';

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
      expectError(
        await owner.api.post('/v1/webhooks', { url: `https://localhost:${port}/x` }),
        400,
        /^localhost resolves to (127\.0\.0\.1|::1), which is a loopback address/,
      );
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

  test('the address is checked again at every attempt: a webhook allowed when created is refused once it is not', async () => {
    const database = await tempDatabase();
    try {
      const before = await startTestServer({ DATABASE_URL: database.url, WEBHOOK_DELIVERY: 'off' });
      const { owner } = await createTestTeam(before);
      const webhook = await createWebhook(owner.api, `https://127.0.0.1:${port}/rechecked`);
      await before.close();

      const after = await webhookServer({ DATABASE_URL: database.url, WEBHOOK_ALLOW_HOSTS: '' });
      try {
        const api = after.client(owner.key);
        expectStatus(await api.post('/v1/tasks', { title: 'Refused at delivery' }), 201);
        const [delivery] = await waitFor('a logged attempt', async () => {
          const found = await deliveriesOf(api, webhook.id);
          return found[0]?.attempts.length > 0 && found;
        });
        assert.equal(delivery.attempts.at(-1).error, '127.0.0.1 is a loopback address, which webhooks may not reach.');
        assert.equal(delivery.attempts.at(-1).status, null);
        assert.equal(receiver.requests.filter((r) => r.path === '/rechecked').length, 0);
      } finally {
        await after.close();
      }
    } finally {
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
