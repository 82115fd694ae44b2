/**
 * Headers that carry a credential (Cookie, x-api-key, x-csrf-token) are read without throwing,
 * whatever a client puts in them: a bad one is a 401 (or, for a wrong CSRF token beside a valid
 * session, the usual 403) with an exact {"error"} body, changes nothing, and leaves no error in
 * the server's log. Run against the real `tasklane serve` so its whole output can be read.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { rawRequest, showRaw, type RawResponse } from './raw-request.js';
import { tempDatabase, type TempDatabase } from './harness.js';
import { killAll, printedKey, serve, type Serving } from './processes.js';

let database: TempDatabase;
let server: Serving;
let key: string;
before(async () => {
  database = await tempDatabase();
  server = await serve(database.url, { LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0' });
  key = printedKey(server.stdout()).key;
});
after(async () => {
  await server?.stop();
  killAll();
  await database?.remove();
});

const BAD_COOKIES = [
  'tasklane_session=%',
  'tasklane_session=%E0%A4%A',
  'tasklane_session=%zz',
  '__Host-tasklane_session=%',
  'tasklane_session',
  'tasklane_session=',
  'tasklane_session="unterminated',
  '=;;;=',
  'tasklane_session=\u00e9\u00ff',
  `tasklane_session=${'%'.repeat(4000)}`,
];
const BAD_KEYS = ['%', 'tlk_%%%', '\u00e9\u00ff', 'tlk_' + 'A'.repeat(6000), ' ', 'Bearer tlk_x'];
const ROUTES = [
  ['GET', '/v1/me'],
  ['GET', '/v1/lists'],
  ['POST', '/v1/tasks'],
  ['GET', '/v1/events'],
  ['GET', '/auth/session'],
] as const;

function expectExactError(response: RawResponse, status: number): void {
  assert.equal(response.status, status, showRaw(response));
  assert.deepEqual(Object.keys(response.body ?? {}), ['error'], showRaw(response));
  assert.equal(typeof response.body.error, 'string', showRaw(response));
}

/** The server's log lines at level error (50) or fatal (60). */
function errorLines(): string[] {
  return `${server.stdout()}\n${server.stderr()}`
    .split('\n')
    .filter((line) => /"level":\s*(50|60)\b/.test(line) || /\bat .+\(.+:\d+:\d+\)/.test(line));
}

describe('credential headers that cannot be parsed', () => {
  test('a malformed session cookie is a 401 {"error"} on every kind of route', async () => {
    for (const cookie of BAD_COOKIES) {
      for (const [method, path] of ROUTES) {
        const body = method === 'POST' ? '{"title":"Never created"}' : undefined;
        const headers = { cookie, ...(body ? { 'content-type': 'application/json' } : {}) };
        expectExactError(await rawRequest(server.url, { method, path, headers, body, timeoutMs: 5000 }), 401);
      }
    }
  });

  test('a malformed or repeated x-api-key is a 401 {"error"}', async () => {
    for (const bad of BAD_KEYS) {
      for (const [method, path] of ROUTES.filter(([, p]) => p.startsWith('/v1/'))) {
        expectExactError(await rawRequest(server.url, { method, path, headers: { 'x-api-key': bad } }), 401);
      }
    }
    // A repeated header: the first value is the one read (a bad one here), never a crash.
    const repeated = await rawRequest(server.url, {
      method: 'GET',
      path: '/v1/me',
      headers: { 'x-api-key': ['%', key] },
    });
    expectExactError(repeated, 401);
  });

  test('a malformed or repeated x-csrf-token beside a valid session is a 403 {"error"} and creates nothing', async () => {
    const email = /web sign-in:\s+(\S+) \/ (.+)$/m.exec(server.stdout());
    assert.ok(email, `no sign-in line in:\n${server.stdout()}`);
    const signedIn = await rawRequest(server.url, {
      method: 'POST',
      path: '/auth/sign-in',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: email[1], password: email[2] }),
    });
    assert.equal(signedIn.status, 200, showRaw(signedIn));
    const cookie = /tasklane_session=[^;]+/.exec(String(signedIn.headers['set-cookie']))![0];
    for (const token of ['%', '\u00e9', '', 'x'.repeat(5000), [signedIn.body.csrfToken, 'other']]) {
      const response = await rawRequest(server.url, {
        method: 'POST',
        path: '/v1/lists',
        headers: { cookie, 'x-csrf-token': token, 'content-type': 'application/json' },
        body: '{"name":"Never created"}',
      });
      expectExactError(response, 403);
    }
    const lists = await rawRequest(server.url, { method: 'GET', path: '/v1/lists', headers: { 'x-api-key': key } });
    assert.deepEqual(lists.body, [], 'a refused request created a list');
  });

  test('none of it left an error or a stack trace in the server log', () => {
    assert.deepEqual(errorLines(), []);
  });
});
