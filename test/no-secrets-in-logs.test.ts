/**
 * Nothing ever logs a key or a password. The real `tasklane serve` runs at LOG_LEVEL=trace (its
 * most talkative) while keys and passwords go through every path that handles them: admin
 * commands (success and failure), password sign-in (right, wrong, malformed JSON, too long),
 * requests with a valid, unknown, mistyped and revoked key, key creation and revocation through
 * the web app API and the CLI, webhook secrets made, rotated and signed with (and the server's
 * sealing key), invitation links made (API and CLI), read, guessed and accepted with a new
 * password, a password change, a request that is not valid HTTP, and requests
 * that fail with a 500 while carrying a key or a password. Then no secret may appear in the
 * server's stdout or stderr, or in any admin command's stderr (or stdout, apart from
 * `key create` and `invitation create`, whose output is the one place a key or link is shown),
 * as text or encoded.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { generateApiKey } from '../src/keys/key-format.js';
import { insertKey } from '../src/keys/keys.repository.js';
import { openStore, type Store } from '../src/storage/database.js';
import { migrateToLatest } from '../src/storage/migrate.js';
import { upsertMember } from '../src/team/teams.repository.js';
import { createTeam } from '../src/membership/accounts.service.js';
import { tempDatabase, TEST_WEBHOOK_ENV, type TempDatabase } from './harness.js';
import { cliEnv, killAll, runCli, serve, TIMEOUT, type Run, type Serving } from './processes.js';

const PASSWORD = `first ${randomBytes(9).toString('base64url')}`;
const NEW_PASSWORD = `second ${randomBytes(9).toString('base64url')}`;
const WRONG_PASSWORD = `wrong ${randomBytes(9).toString('base64url')}`;
const OTHER_PASSWORD = `other ${randomBytes(9).toString('base64url')}`;
const NEWCOMER_PASSWORD = `newcomer ${randomBytes(9).toString('base64url')}`;
const EMAIL = 'logs@example.test';

/** The ways a secret could show up in a log line: as is, or encoded (a Buffer serialises to its bytes). */
function encodings(secret: string): string[] {
  const bytes = Buffer.from(secret);
  return [secret, bytes.toString('base64'), bytes.toString('base64url'), bytes.toString('hex'), [...bytes].join(',')];
}

/** Parts of a key to look for: all of it, and a stretch of the part listings never show. */
const keyParts = (key: string) => [key, key.slice(14, 30)];

interface Output {
  label: string;
  text: string;
}

/** An HTTP answer, read without the harness (which refuses 5xx: here they are provoked on purpose). */
async function call(
  baseUrl: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Headers; text: string; json: any }> {
  const headers = { ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(baseUrl + path, { method, headers, body: options.body });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** Sends raw bytes on a new connection and resolves with whatever comes back before it closes. */
function rawRequest(url: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(bytes));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe('no key or password in any log', { timeout: TIMEOUT }, () => {
  let database: TempDatabase;
  let server: Serving | undefined;
  let store: Store;

  before(async () => {
    database = await tempDatabase();
    store = openStore(database.url, { poolSize: 1 });
  });
  after(async () => {
    await server?.stop();
    killAll();
    await store?.close();
    await database?.remove();
  });

  test('a server at LOG_LEVEL=trace and the admin CLI print no key, session token or password', async () => {
    const outputs: Output[] = [];
    const keys: string[] = [];
    const otherSecrets: string[] = [PASSWORD, NEW_PASSWORD, WRONG_PASSWORD, OTHER_PASSWORD];
    const env = cliEnv(database.url, { LOG_LEVEL: 'trace' });

    /** Runs an admin command; its stderr (and stdout, unless it shows a new key) is checked later. */
    async function cli(expectSuccess: boolean, ...args: string[]): Promise<Run> {
      const run = await runCli(['admin', ...args], env);
      assert.equal(run.code === 0, expectSuccess, `admin ${args.join(' ')}: ${run.stdout}${run.stderr}`);
      outputs.push({ label: `admin ${args.slice(0, 2).join(' ')} stderr`, text: run.stderr });
      const showsSecret = (args[0] === 'key' || args[0] === 'invitation') && args[1] === 'create';
      if (!(showsSecret && expectSuccess)) {
        outputs.push({ label: `admin ${args.slice(0, 2).join(' ')} stdout`, text: run.stdout });
      }
      return run;
    }

    // The team exists before the server starts, so that it bootstraps nothing (the one-time print
    // of a starter workspace's secrets is by design). The admin commands that handle secrets run
    // as processes; the rest is set up directly.
    await migrateToLatest(store);
    const team = await store.transaction((trx) => createTeam(trx, 'Logs'));
    const user = JSON.parse(
      (await cli(true, 'user', 'create', '--email', EMAIL, '--name', 'Logs', '--password', PASSWORD)).stdout,
    );
    await cli(false, 'user', 'create', '--email', EMAIL, '--name', 'Again', '--password', OTHER_PASSWORD);
    await upsertMember(store.db, team.id, user.id, 'owner');
    const first = JSON.parse((await cli(true, 'key', 'create', '--org', team.id, '--user', user.id)).stdout);
    assert.equal(first.expiresAt, null, 'a key made without an expiry option never expires');
    const expiresAt = new Date(Date.now() + 2 * 86_400_000).toISOString();
    const second = await insertKey(store.db, { teamId: team.id, userId: user.id, name: 'second', expiresAt });
    keys.push(first.key, second.key);

    server = await serve(database.url, { LOG_LEVEL: 'trace', ...TEST_WEBHOOK_ENV, WEBHOOK_DELIVERY: 'on' });
    otherSecrets.push(TEST_WEBHOOK_ENV.WEBHOOK_SECRET_KEY);
    const url = server.url;

    // Password sign-in: wrong, malformed JSON, too long, right.
    const signIn = (body: string) => call(url, 'POST', '/auth/sign-in', { body });
    assert.equal((await signIn(JSON.stringify({ email: EMAIL, password: WRONG_PASSWORD }))).status, 401);
    assert.equal((await signIn(`{"email": "${EMAIL}", "password": "${PASSWORD}"`)).status, 400);
    assert.equal((await signIn(JSON.stringify({ email: EMAIL, password: PASSWORD.repeat(20) }))).status, 400);
    const signedIn = await signIn(JSON.stringify({ email: EMAIL, password: PASSWORD }));
    assert.equal(signedIn.status, 200, signedIn.text);
    const cookie = signedIn.headers
      .getSetCookie()
      .find((c) => c.startsWith('tasklane_session='))!
      .split(';')[0]!;
    otherSecrets.push(cookie.slice('tasklane_session='.length), signedIn.json.csrfToken);
    const session = { cookie, 'x-csrf-token': signedIn.json.csrfToken as string };

    // Keys: valid, unknown, mistyped.
    const withKey = (key: string, path = '/v1/me') => call(url, 'GET', path, { headers: { 'x-api-key': key } });
    assert.equal((await withKey(first.key)).status, 200);
    assert.equal((await withKey(first.key, '/v1/lists?limit=abc')).status < 500, true);
    const unknown = generateApiKey().key;
    const mistyped = first.key.slice(0, 20) + (first.key[20] === 'a' ? 'b' : 'a') + first.key.slice(21);
    keys.push(unknown, mistyped);
    assert.equal((await withKey(unknown)).status, 401);
    assert.equal((await withKey(mistyped)).status, 401);

    // Keys made and revoked through the web app API, and revoked with the CLI.
    const made = await call(url, 'POST', '/v1/api-keys', {
      headers: session,
      body: JSON.stringify({ name: 'web', expiresInDays: 3 }),
    });
    assert.equal(made.status, 201, made.text);
    keys.push(made.json.key);
    assert.equal((await withKey(made.json.key)).status, 200);
    assert.equal((await call(url, 'GET', '/v1/api-keys', { headers: session })).status, 200);
    assert.equal((await call(url, 'DELETE', `/v1/api-keys/${made.json.id}`, { headers: session })).status, 200);
    assert.equal((await withKey(made.json.key)).status, 401);
    // A webhook made with the session and a key, its secret rotated, and an attempt that fails.
    const hook = await call(url, 'POST', '/v1/webhooks', {
      headers: session,
      body: JSON.stringify({ url: 'http://127.0.0.1:9/logs' }),
    });
    assert.equal(hook.status, 201, hook.text);
    const rotated = await call(url, 'POST', `/v1/webhooks/${hook.json.id}/rotate-secret`, {
      headers: { 'x-api-key': second.key },
    });
    assert.equal(rotated.status, 200, rotated.text);
    for (const secret of [hook.json.secret, rotated.json.secret]) otherSecrets.push(secret, secret.slice(6));
    const tested = await call(url, 'POST', `/v1/webhooks/${hook.json.id}/test`, {
      headers: { 'x-api-key': second.key },
    });
    assert.equal(tested.status, 202, tested.text);
    for (let tries = 0; tries < 100; tries++) {
      const log = await call(url, 'GET', `/v1/webhooks/${hook.json.id}/deliveries`, { headers: session });
      if (log.json?.[0]?.lastAttempt) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const whole = await call(url, 'GET', `/v1/webhooks/${hook.json.id}/deliveries/${tested.json.id}`, {
      headers: session,
    });
    assert.equal(whole.status, 200, whole.text);
    await cli(true, 'key', 'revoke', '--id', first.id);
    assert.equal((await withKey(first.key)).status, 401);

    // Invitations: made over the API and with the CLI, read, accepted by a newcomer (with a
    // password), and a token that matches none.
    const invited = await call(url, 'POST', '/v1/invitations', { headers: session, body: '{"role":"member"}' });
    assert.equal(invited.status, 201, invited.text);
    const token = String(invited.json.link).split('#')[1]!;
    const byCli = JSON.parse((await cli(true, 'invitation', 'create', '--org', team.id, '--role', 'admin')).stdout);
    const cliToken = String(byCli.link).split('#')[1]!;
    const guessed = `tli_${'G'.repeat(43)}`;
    otherSecrets.push(token, cliToken, guessed, NEWCOMER_PASSWORD);
    assert.equal((await call(url, 'POST', '/auth/invitation', { body: JSON.stringify({ token }) })).status, 200);
    assert.equal(
      (await call(url, 'POST', '/auth/invitation', { body: JSON.stringify({ token: guessed }) })).status,
      404,
    );
    const joined = await call(url, 'POST', '/auth/accept-invitation', {
      body: JSON.stringify({ token: cliToken, name: 'New', email: 'new@example.test', password: NEWCOMER_PASSWORD }),
    });
    assert.equal(joined.status, 200, joined.text);
    otherSecrets.push(joined.json.csrfToken);

    // A password change, then a request that is not valid HTTP, carrying a key.
    const changed = await call(url, 'POST', '/auth/password', {
      headers: session,
      body: JSON.stringify({ currentPassword: PASSWORD, newPassword: NEW_PASSWORD }),
    });
    assert.equal(changed.status, 200, changed.text);
    const garbled = await rawRequest(
      url,
      `GET /v1/me HTTP/1.1\r\nHost: x\r\nx-api-key: ${second.key}\r\nthis is not a header\r\n\r\n`,
    );
    assert.match(garbled, /^HTTP\/1\.1 400/);

    // 500s while a key and a password are in flight: columns their lookups need are renamed under
    // the running server (and put back afterwards).
    try {
      await sql`alter table api_keys rename column expires_at to expires_at_gone`.execute(store.db);
      await sql`alter table users rename column email to email_gone`.execute(store.db);
      const failedKey = await withKey(second.key);
      const failedSignIn = await signIn(JSON.stringify({ email: EMAIL, password: NEW_PASSWORD }));
      for (const failed of [failedKey, failedSignIn]) {
        assert.equal(failed.status, 500, failed.text);
        assert.deepEqual(failed.json, { error: 'Internal server error.' });
      }
    } finally {
      await sql`alter table api_keys rename column expires_at_gone to expires_at`.execute(store.db);
      await sql`alter table users rename column email_gone to email`.execute(store.db);
    }
    assert.equal((await withKey(second.key)).status, 200);

    assert.equal(await server.stop(), 0);
    outputs.push({ label: 'server stdout', text: server.stdout() }, { label: 'server stderr', text: server.stderr() });

    // The logs did see the traffic, so a secret in them would have been found.
    const serverLog = server.stdout();
    assert.match(serverLog, /"msg":"incoming request"/);
    assert.match(serverLog, /"url":"\/auth\/sign-in"/);
    assert.ok((serverLog.match(/"level":50/g) ?? []).length >= 2, 'the two 500s were not logged as errors');

    const leaks: string[] = [];
    for (const secret of [...keys.flatMap(keyParts), ...otherSecrets]) {
      for (const form of encodings(secret)) {
        for (const { label, text } of outputs) if (text.includes(form)) leaks.push(`${label} holds ${form}`);
      }
    }
    assert.deepEqual(leaks, [], 'secrets were logged');
  });
});
