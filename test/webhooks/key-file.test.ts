/**
 * Webhooks out of the box: `tasklane serve` on SQLite without WEBHOOK_SECRET_KEY makes the key
 * that seals webhook secrets in a file beside the database (owner-only), says so once, and reads
 * it at every later start, so a webhook made before a restart still signs after it. On PostgreSQL
 * without the variable, the start-up output says webhooks are off and how to turn them on, and
 * the server says why to anyone who asks (GET /v1/webhook-availability).
 */
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { tempDatabase, TEST_STORE, type TempDatabase } from '../harness.js';
import { cliEnv, killAll, printedKey, serve, TIMEOUT, type Serving } from '../processes.js';
import { startReceiver, verify, waitFor, type Receiver } from './support.js';

const databases: TempDatabase[] = [];
let receiver: Receiver | undefined;
after(async () => {
  killAll();
  await receiver?.close();
  for (const database of databases) await database.remove();
});

/** `tasklane serve` on the database as an operator starts it: no WEBHOOK_SECRET_KEY in its environment. */
function serveWithoutKey(databaseUrl: string): Promise<Serving> {
  const env: Record<string, string> = { WEBHOOK_ALLOW_HOSTS: '127.0.0.1', WEBHOOK_DELIVERY: 'on' };
  const inherited = cliEnv(databaseUrl);
  assert.equal(inherited.WEBHOOK_SECRET_KEY, undefined, 'the test runs with WEBHOOK_SECRET_KEY set around it');
  return serve(databaseUrl, env);
}

async function call(server: Serving, key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(server.url + path, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

const CREATED_LINE = /^Created (\/\S+webhook-secret\.key), the key that seals webhook signing secrets/m;

test(
  'on SQLite the first start creates the webhook key file beside the database, owner-only (0600), and says so once; a second start reuses it, so a webhook made before still signs',
  {
    skip: TEST_STORE !== 'sqlite' && 'SQLite only: PostgreSQL deployments set WEBHOOK_SECRET_KEY',
    timeout: 3 * TIMEOUT,
  },
  async () => {
    const database = await tempDatabase();
    databases.push(database);
    receiver = await startReceiver();
    // As in a fresh checkout, the data folder does not exist yet.
    const url = `sqlite:${join(dirname(database.url.slice('sqlite:'.length)), 'data', 'tasklane.db')}`;
    const keyFile = join(dirname(url.slice('sqlite:'.length)), 'webhook-secret.key');

    const first = await serveWithoutKey(url);
    let secret: string;
    let webhookId: string;
    let key: string;
    try {
      const created = CREATED_LINE.exec(first.stdout());
      assert.ok(created, `the first start says it created the key file:\n${first.stdout()}`);
      assert.equal(created[1], keyFile);
      assert.equal(statSync(keyFile).mode & 0o777, 0o600, 'the key file is readable by its owner only');
      assert.match(readFileSync(keyFile, 'utf8'), /^[A-Za-z0-9+/]{43}=\n$/);
      assert.match(first.stdout(), /back it up separately/);

      key = printedKey(first.stdout()).key;
      assert.deepEqual((await call(first, key, 'GET', '/v1/webhook-availability')).body, {
        available: true,
        reason: null,
      });
      const made = await call(first, key, 'POST', '/v1/webhooks', { url: `${receiver.url}/hook` });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      secret = made.body.secret;
      webhookId = made.body.id;
    } finally {
      assert.equal(await first.stop(), 0);
    }
    const keyText = readFileSync(keyFile, 'utf8');

    const second = await serveWithoutKey(url);
    try {
      assert.doesNotMatch(second.stdout(), /webhook-secret\.key/, 'a later start says nothing about the key file');
      assert.equal(readFileSync(keyFile, 'utf8'), keyText, 'a later start reads the key, never replaces it');
      assert.equal((await call(second, key, 'POST', `/v1/webhooks/${webhookId}/test`)).status, 202);
      const [delivery] = await waitFor('the test delivery after the restart', () =>
        receiver!.requests.length > 0 ? receiver!.requests : false,
      );
      assert.equal(verify(secret, delivery!).type, 'webhook.test', 'signed with the secret made before the restart');
    } finally {
      assert.equal(await second.stop(), 0);
    }
  },
);

test(
  'on PostgreSQL without WEBHOOK_SECRET_KEY the start-up output says webhooks are off and how to turn them on, and the server tells its users why',
  { skip: TEST_STORE !== 'postgres' && 'PostgreSQL only: SQLite makes a key file', timeout: TIMEOUT },
  async () => {
    const database = await tempDatabase();
    databases.push(database);
    const server = await serveWithoutKey(database.url);
    try {
      const lines = server.stdout().split('\n');
      const off = lines.filter((line) => line.startsWith('Webhooks are off'));
      assert.deepEqual(off, [
        'Webhooks are off: WEBHOOK_SECRET_KEY is not set. To turn them on, set it on every process to the same ' +
          '32 random bytes in base64 (openssl rand -base64 32), and keep it outside the database and its backups.',
      ]);
      const { key } = printedKey(server.stdout());
      assert.deepEqual((await call(server, key, 'GET', '/v1/webhook-availability')).body, {
        available: false,
        reason: "Webhooks are off on this server: its operator has not set WEBHOOK_SECRET_KEY (see tasklane's README).",
      });
      const refused = await call(server, key, 'POST', '/v1/webhooks', { url: 'https://example.com/hook' });
      assert.equal(refused.status, 409);
      assert.deepEqual(refused.body, {
        error: "Webhooks are off on this server: its operator has not set WEBHOOK_SECRET_KEY (see tasklane's README).",
      });
    } finally {
      assert.equal(await server.stop(), 0);
    }
  },
);

test(
  'WEBHOOK_SECRET_KEY=off turns webhooks off on purpose: no key file is made, the start says so, and the server tells its users why',
  { skip: TEST_STORE !== 'sqlite' && 'the key file is SQLite’s', timeout: TIMEOUT },
  async () => {
    const database = await tempDatabase();
    databases.push(database);
    const keyFile = join(dirname(database.url.slice('sqlite:'.length)), 'webhook-secret.key');
    const server = await serve(database.url, { WEBHOOK_SECRET_KEY: 'off' });
    try {
      assert.match(server.stdout(), /^Webhooks are off \(WEBHOOK_SECRET_KEY=off\)\.$/m);
      assert.throws(() => statSync(keyFile), /ENOENT/);
      const { key } = printedKey(server.stdout());
      assert.deepEqual((await call(server, key, 'GET', '/v1/webhook-availability')).body, {
        available: false,
        reason: 'Webhooks are off on this server: its operator turned them off.',
      });
    } finally {
      assert.equal(await server.stop(), 0);
    }
  },
);
