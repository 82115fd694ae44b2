/**
 * Behind a reverse proxy (TRUST_PROXY): the client address that per-address budgets count is
 * the one the trusted proxy saw, never one the client wrote into X-Forwarded-For; trusting
 * every hop is refused at start; over TLS the session cookie is `__Host-` and Secure.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.js';
import { Browser, COOKIE, PASSWORD, SECURE_COOKIE, sessionCookie, teamWithPassword } from './browser.js';
import { expectError, expectStatus, startTestServer, type TestServer } from './harness.js';
import { cliEnv, ROOT, runCli } from './processes.js';

const LIMIT = 5;
const servers: TestServer[] = [];
after(() => Promise.all(servers.map((server) => server.close())));

async function serverTrusting(trustProxy: string): Promise<TestServer> {
  const server = await startTestServer({ RATE_LIMIT_PER_MINUTE: String(LIMIT), TRUST_PROXY: trustProxy });
  servers.push(server);
  return server;
}

/** Unknown paths are counted by client address: the answers' statuses from one sender, in order. */
async function statusesOf(server: TestServer, forwardedFor: (i: number) => string, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${server.url}/v1/no-such-endpoint`, {
      headers: { 'x-forwarded-for': forwardedFor(i) },
    });
    await response.text();
    statuses.push(response.status);
  }
  return statuses;
}

const spentAfter = (limit: number, count: number) => [...Array(limit).fill(404), ...Array(count - limit).fill(429)];

describe('TRUST_PROXY', () => {
  test('TRUST_PROXY=true is refused at start, naming the safe settings', async () => {
    assert.throws(
      () => loadConfig({ TRUST_PROXY: 'true' }),
      (error: unknown) =>
        error instanceof ConfigError && /TRUST_PROXY=1/.test(error.message) && /127\.0\.0\.1/.test(error.message),
    );
    const run = await runCli(['serve'], cliEnv('sqlite::memory:', { TRUST_PROXY: 'true' }));
    assert.notEqual(run.code, 0, 'serve started with TRUST_PROXY=true');
    assert.match(run.stderr, /TRUST_PROXY=true would let any client choose its own address/);
  });

  test('hop counts and addresses/CIDRs are accepted; anything else is refused with the variable named', () => {
    assert.equal(loadConfig({ TRUST_PROXY: '1' }).trustProxy, 1);
    assert.deepEqual(loadConfig({ TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,::1,fd00::/8,loopback' }).trustProxy, [
      '127.0.0.1',
      '10.0.0.0/8',
      '::1',
      'fd00::/8',
      'loopback',
    ]);
    assert.equal(loadConfig({ TRUST_PROXY: 'false' }).trustProxy, false);
    for (const bad of ['0', '11', 'yes', '10.0.0.0/33', '300.1.1.1', 'example.com', '127.0.0.1/8/8', '::1/129']) {
      assert.throws(() => loadConfig({ TRUST_PROXY: bad }), /TRUST_PROXY/, bad);
    }
  });

  for (const trust of ['127.0.0.1', '1']) {
    test(`TRUST_PROXY=${trust}: a forged X-Forwarded-For entry does not move a request to another budget`, async () => {
      const server = await serverTrusting(trust);
      // What the client wrote comes first; the proxy appended the address it saw (203.0.113.7).
      const forged = await statusesOf(server, (i) => `192.0.2.${i}, 203.0.113.7`, LIMIT + 3);
      assert.deepEqual(forged, spentAfter(LIMIT, LIMIT + 3), 'new forged entries escaped the budget');
      // The budget is the real client's: another real address has its own, untouched.
      assert.deepEqual(await statusesOf(server, () => '192.0.2.1, 203.0.113.8', 1), [404]);
    });
  }

  test('without TRUST_PROXY, X-Forwarded-For is ignored: every sender is its socket address', async () => {
    const server = await startTestServer({ RATE_LIMIT_PER_MINUTE: String(LIMIT) });
    servers.push(server);
    assert.deepEqual(await statusesOf(server, (i) => `203.0.113.${i}`, LIMIT + 2), spentAfter(LIMIT, LIMIT + 2));
  });

  test('docs/deploy/nginx.conf sets X-Forwarded-For to the address nginx saw, never appending what the client sent', () => {
    const conf = readFileSync(join(ROOT, 'docs', 'deploy', 'nginx.conf'), 'utf8');
    const forwarded = conf.split('\n').filter((line) => /^\s*proxy_set_header\s+X-Forwarded-For\b/i.test(line));
    assert.ok(forwarded.length > 0, 'the proxy config sets no X-Forwarded-For');
    for (const line of forwarded) assert.match(line, /X-Forwarded-For\s+\$remote_addr;/, line);
  });
});

describe('the session cookie behind a TLS-terminating proxy', () => {
  async function signInOver(server: TestServer, headers: Record<string, string>) {
    const team = await teamWithPassword(server);
    const browser = new Browser(server.url, headers);
    const response = await browser.post('/auth/sign-in', { email: team.owner.email, password: PASSWORD });
    browser.csrfToken = expectStatus(response, 200).csrfToken;
    return { browser, response };
  }

  test('over HTTPS from a trusted proxy the cookie is __Host-tasklane_session: Secure, Path=/, no Domain; it works and the plain name does not', async () => {
    const server = await serverTrusting('127.0.0.1');
    const { browser, response } = await signInOver(server, { 'x-forwarded-proto': 'https' });
    const cookie = sessionCookie(response, SECURE_COOKIE);
    const attributes = cookie.attributes.map((a) => a.toLowerCase());
    for (const attribute of ['secure', 'httponly', 'samesite=strict', 'path=/']) {
      assert.ok(attributes.includes(attribute), `missing ${attribute}: ${cookie.attributes.join('; ')}`);
    }
    assert.ok(!attributes.some((a) => a.startsWith('domain=')), 'a __Host- cookie must not name a Domain');
    assert.ok(!response.setCookies.some((c) => c.startsWith(`${COOKIE}=`)), 'the plain cookie was set too');

    expectStatus(await browser.get('/v1/me'), 200);
    // The same secret under the plain name is not read on an HTTPS request (a plain-HTTP page could have planted it).
    const planted = { 'x-forwarded-proto': 'https', cookie: `${COOKIE}=${cookie.value}` };
    expectError(await server.client().get('/v1/me', planted), 401);
    // Signing out clears the secure cookie.
    const signedOut = await browser.post('/auth/sign-out', undefined, browser.csrf());
    expectStatus(signedOut, 200);
    assert.ok(
      signedOut.setCookies.some((c) => c.startsWith(`${SECURE_COOKIE}=;`)),
      signedOut.setCookies.join(' | '),
    );
  });

  test('X-Forwarded-Proto from a client that is not a trusted proxy is ignored: a plain, non-Secure cookie', async () => {
    const server = await startTestServer();
    servers.push(server);
    const { browser, response } = await signInOver(server, { 'x-forwarded-proto': 'https' });
    const attributes = sessionCookie(response, COOKIE).attributes.map((a) => a.toLowerCase());
    assert.ok(!attributes.includes('secure'), `Secure over plain HTTP: ${attributes.join('; ')}`);
    expectStatus(await browser.get('/v1/me'), 200);
    // A __Host- cookie arrives only over HTTPS; on a plain request it is not read.
    expectError(await server.client().get('/v1/me', { cookie: `${SECURE_COOKIE}=${browser.sessionToken}` }), 401);
  });
});
