/**
 * Rate limiting (RATE_LIMIT_PER_MINUTE), on the store under test:
 *
 * - every /v1 answer carries RateLimit-Limit / -Remaining / -Reset, counting down per credential
 *   (2xx, 4xx and the event stream's head alike);
 * - past the limit: 429 {"error"} with Retry-After;
 * - budgets are per API key (and per web session), and per client address for requests without
 *   a valid key, however many different invalid keys they send;
 * - failed authentication has a stricter budget per address, shared by API keys and web sign-in,
 *   which never locks out a valid key behind the same address;
 * - RATE_LIMIT_PER_MINUTE=0 turns all of it off.
 *
 * The servers trust the loopback proxy (TRUST_PROXY=127.0.0.1), so each test speaks from its own
 * client address and the tests cannot spend each other's per-address budgets.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { hashPassword } from '../src/team/passwords.js';
import { setPasswordHash } from '../src/team/users.repository.js';
import { createTestTeam, type Actor } from './factories.js';
import { expectError, expectStatus, show, startTestServer, type Response, type TestServer } from './harness.js';

const LIMIT = 5;
let addresses = 0;

/** Headers that make the request come from a client address no other test uses. */
function newAddress(): Record<string, string> {
  addresses += 1;
  return { 'x-forwarded-for': `198.51.100.${addresses}` };
}

/** A key in the right shape that belongs to nobody: a new one for every request. */
const randomKey = () => `tl_${randomBytes(32).toString('base64url')}`;

/** Asserts the RateLimit-* headers: this limit, this many left, a reset within the minute. */
function expectBudget(response: Response, limit: number, remaining: number): void {
  const headers = response.headers;
  assert.equal(headers.get('ratelimit-limit'), String(limit), `RateLimit-Limit on ${show(response)}`);
  assert.equal(headers.get('ratelimit-remaining'), String(remaining), `RateLimit-Remaining on ${show(response)}`);
  const reset = Number(headers.get('ratelimit-reset'));
  assert.ok(reset >= 1 && reset <= 60, `RateLimit-Reset is not 1..60 seconds: ${headers.get('ratelimit-reset')}`);
}

/** Asserts a 429 {"error"} whose Retry-After (whole seconds) matches RateLimit-Reset. */
function expectRefused(response: Response, message: RegExp = /Too many requests/): void {
  expectError(response, 429, message);
  const retryAfter = response.headers.get('retry-after');
  assert.match(retryAfter ?? '', /^\d+$/, `Retry-After must be whole seconds: ${show(response)}`);
  assert.ok(Number(retryAfter) >= 1 && Number(retryAfter) <= 60, `Retry-After out of range: ${retryAfter}`);
  assert.equal(response.headers.get('ratelimit-remaining'), '0');
  assert.equal(response.headers.get('ratelimit-reset'), retryAfter);
}

/** Opens GET /v1/events and returns its status and headers, then hangs up. */
async function eventStreamHead(server: TestServer, key: string): Promise<{ status: number; headers: Headers }> {
  const abort = new AbortController();
  const res = await fetch(`${server.url}/v1/events`, { headers: { 'x-api-key': key }, signal: abort.signal });
  abort.abort();
  return { status: res.status, headers: res.headers };
}

/** Gives the actor a password and signs in; returns the Cookie header of the new session. */
async function signIn(server: TestServer, actor: Actor, from: Record<string, string>): Promise<string> {
  const password = 'a long enough password';
  await setPasswordHash(server.store.db, actor.userId, await hashPassword(password));
  const res = await server.client().post('/auth/sign-in', { email: actor.email, password }, from);
  expectStatus(res, 200);
  const cookie = res.headers.get('set-cookie')?.split(';')[0];
  assert.ok(cookie, `no session cookie: ${show(res)}`);
  return cookie;
}

describe(`rate limiting with RATE_LIMIT_PER_MINUTE=${LIMIT}`, () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ RATE_LIMIT_PER_MINUTE: String(LIMIT), TRUST_PROXY: '127.0.0.1' });
  });
  after(() => server.close());

  test('every /v1 answer to a key carries RateLimit-Limit, -Remaining and -Reset, counting down across 200, 400, 404 and the event stream', async () => {
    const { owner } = await createTestTeam(server);
    expectBudget(await owner.api.get('/v1/me'), LIMIT, 4);
    const invalid = await owner.api.post('/v1/lists', { name: 42 });
    expectError(invalid, 400);
    expectBudget(invalid, LIMIT, 3);
    const missing = await owner.api.get('/v1/tasks/999999');
    expectError(missing, 404);
    expectBudget(missing, LIMIT, 2);
    const stream = await eventStreamHead(server, owner.key);
    assert.equal(stream.status, 200);
    assert.match(stream.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(stream.headers.get('ratelimit-limit'), String(LIMIT));
    assert.equal(stream.headers.get('ratelimit-remaining'), '1');
    expectBudget(await owner.api.get('/v1/lists'), LIMIT, 0);
  });

  test('past the limit a key gets 429 {"error"} with Retry-After on every route, and nothing is done', async () => {
    const { owner } = await createTestTeam(server);
    for (let i = 0; i < LIMIT; i++) expectStatus(await owner.api.get('/v1/me'), 200);
    expectRefused(await owner.api.get('/v1/me'));
    expectRefused(await owner.api.post('/v1/lists', { name: 'Refused' }));
    const lists = await server.store.db
      .selectFrom('task_lists')
      .select('id')
      .where('team_id', '=', owner.teamId)
      .execute();
    assert.deepEqual(lists, [], 'a refused request created a list');
  });

  test('each key has its own budget: one spent key leaves another key from the same address untouched', async () => {
    const team = await createTestTeam(server);
    const mate = await team.member();
    for (let i = 0; i < LIMIT; i++) expectStatus(await team.owner.api.get('/v1/me'), 200);
    expectRefused(await team.owner.api.get('/v1/me'));
    const res = await mate.api.get('/v1/me');
    expectStatus(res, 200);
    expectBudget(res, LIMIT, LIMIT - 1);
  });

  test('a web session is counted as its own credential, apart from the same user’s key', async () => {
    const { owner } = await createTestTeam(server);
    const cookie = await signIn(server, owner, newAddress());
    for (let i = 0; i < LIMIT; i++) expectStatus(await owner.api.get('/v1/me'), 200);
    const bySession = await server.client().get('/v1/me', { cookie });
    expectStatus(bySession, 200);
    expectBudget(bySession, LIMIT, LIMIT - 1);
  });

  test('requests without a valid key share their address’s budget, however many different invalid keys they send', async () => {
    const from = newAddress();
    const unknownPath = await server.client().get('/v1/nope', from);
    expectError(unknownPath, 404);
    expectBudget(unknownPath, LIMIT, 4);
    expectBudget(await server.client().get('/v1/nope', from), LIMIT, 3);
    for (const remaining of [2, 1, 0]) {
      const res = await server.client(randomKey()).get('/v1/lists', from);
      expectError(res, 401);
      expectBudget(res, LIMIT, remaining);
    }
    // Three failed authentications so far: the address budget refuses, not the failed-auth one.
    expectRefused(await server.client(randomKey()).get('/v1/lists', from));
    expectRefused(await server.client().get('/v1/me', from));
    expectError(await server.client(randomKey()).get('/v1/lists', newAddress()), 401);
  });

  test('a valid key behind an address refused for failed authentication keeps its own full budget', async () => {
    const { owner } = await createTestTeam(server);
    const from = newAddress();
    for (let i = 0; i < LIMIT; i++) expectError(await server.client(randomKey()).get('/v1/me', from), 401);
    expectRefused(await server.client(randomKey()).get('/v1/me', from));
    const res = await owner.api.get('/v1/me', from);
    expectStatus(res, 200);
    expectBudget(res, LIMIT, LIMIT - 1);
  });
});

describe('the failed-authentication budget', () => {
  const limit = 100;
  const failedLimit = 60;
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ RATE_LIMIT_PER_MINUTE: String(limit), TRUST_PROXY: '127.0.0.1' });
  });
  after(() => server.close());

  test('is min(RATE_LIMIT_PER_MINUTE, 60) failures a minute per address, shared by API keys and web sign-in, and leaves the address its other requests', async () => {
    const { owner } = await createTestTeam(server);
    const from = newAddress();
    for (let i = 0; i < failedLimit - 1; i++) {
      const res = await server.client(randomKey()).get('/v1/me', from);
      expectError(res, 401);
      // The headers show the budget nearest its end: here the stricter one.
      expectBudget(res, failedLimit, failedLimit - 1 - i);
    }
    const wrongPassword = { email: owner.email, password: 'not the password' };
    expectError(await server.client().post('/auth/sign-in', wrongPassword, from), 401);
    expectRefused(await server.client(randomKey()).get('/v1/me', from), /failed authentication/);
    expectRefused(await server.client().post('/auth/sign-in', wrongPassword, from), /failed authentication/);
    // Only failures are refused: the address's ordinary budget still has room for its 64th request.
    const unknownPath = await server.client().get('/v1/nope', from);
    expectError(unknownPath, 404);
    expectBudget(unknownPath, limit, limit - (failedLimit - 1) - 4);
  });
});

describe('RATE_LIMIT_PER_MINUTE=0', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ RATE_LIMIT_PER_MINUTE: '0' });
  });
  after(() => server.close());

  test('turns every budget off: no 429 and no RateLimit headers, failed authentication included', async () => {
    const { owner } = await createTestTeam(server);
    const responses: Response[] = [];
    for (let i = 0; i < 30; i++) responses.push(await owner.api.get('/v1/me'));
    for (let i = 0; i < 70; i++) responses.push(await server.client(randomKey()).get('/v1/me'));
    for (let i = 0; i < 3; i++) {
      const res = await server.client().post('/auth/sign-in', { email: owner.email, password: 'wrong password' });
      expectError(res, 401);
    }
    responses.push(await owner.api.get('/v1/me'));
    for (const res of responses) {
      assert.ok(res.status === 200 || res.status === 401, `limited although limiting is off: ${show(res)}`);
      assert.equal(res.headers.get('ratelimit-limit'), null, 'RateLimit-Limit sent although limiting is off');
    }
    expectStatus(responses.at(-1)!, 200);
  });
});
