/**
 * Budgets for password guessing, under concurrency: every attempt is counted before its
 * password is hashed, so a burst sent at once is held to the budget exactly:
 * - per address: min(RATE_LIMIT_PER_MINUTE, 60) failed authentications a minute;
 * - per account, from every address together: 10 wrong passwords a minute;
 * - a right password gives its count back; a wrong current password on a password change spends
 *   the same budgets; an old scrypt hash signs in and is upgraded to argon2id.
 * The server trusts 127.0.0.1 as its proxy, so each test speaks from addresses of its own.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { findUser, setPasswordHash } from '../src/team/users.repository.js';
import { Browser, legacyScryptHash, PASSWORD, signIn, teamWithPassword } from './browser.js';
import { expectError, expectStatus, startTestServer, type Response, type TestServer } from './harness.js';

const ACCOUNT_LIMIT = 10;
const ADDRESS_LIMIT = 60;
const ACCOUNT_REFUSAL = /^Too many failed sign-ins for this account\. Try again in \d+ seconds\.$/;
const ADDRESS_REFUSAL = /^Too many failed authentication attempts from your address\. Try again in \d+ seconds\.$/;

let server: TestServer;
before(async () => {
  server = await startTestServer({ RATE_LIMIT_PER_MINUTE: '1200', TRUST_PROXY: '127.0.0.1' });
});
after(() => server.close());

let addresses = 0;
/** An address no other test uses, as the trusted proxy reports it. */
const newAddress = () => `198.51.100.${++addresses}`;

function signInFrom(address: string, body: Record<string, unknown>): Promise<Response> {
  return new Browser(server.url, { 'x-forwarded-for': address }).post('/auth/sign-in', body);
}

/** How many responses had each status, e.g. { 401: 10, 429: 190 }. */
function statusCounts(responses: Response[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const response of responses) counts[response.status] = (counts[response.status] ?? 0) + 1;
  return counts;
}

describe('sign-in budgets under concurrency', () => {
  test('200 wrong passwords for one account sent at once from one address: exactly 10 are checked, the rest get 429 by the account or address budget', async () => {
    const team = await teamWithPassword(server);
    const address = newAddress();
    const responses = await Promise.all(
      Array.from({ length: 200 }, () => signInFrom(address, { email: team.owner.email, password: 'wrong guess' })),
    );
    assert.deepEqual(statusCounts(responses), { 401: ACCOUNT_LIMIT, 429: 200 - ACCOUNT_LIMIT });
    // The first 60 pass the address budget, and 10 of them the account's.
    const refusals = responses.filter((r) => r.status === 429);
    for (const response of refusals) {
      expectError(response, 429, new RegExp(`${ACCOUNT_REFUSAL.source}|${ADDRESS_REFUSAL.source}`));
      assert.match(response.headers.get('retry-after') ?? '', /^\d+$/);
    }
    const byAccount = refusals.filter((r) => ACCOUNT_REFUSAL.test(r.body.error)).length;
    assert.deepEqual([byAccount, refusals.length - byAccount], [ADDRESS_LIMIT - ACCOUNT_LIMIT, 200 - ADDRESS_LIMIT]);
    // The right password is refused too while the account's minute lasts: the budget is the account's.
    expectError(await signInFrom(newAddress(), { email: team.owner.email, password: PASSWORD }), 429, ACCOUNT_REFUSAL);
  });

  test('guesses spread over many addresses are held to the account budget', async () => {
    const team = await teamWithPassword(server);
    const responses = await Promise.all(
      Array.from({ length: 30 }, () => signInFrom(newAddress(), { email: team.owner.email, password: 'wrong guess' })),
    );
    assert.deepEqual(statusCounts(responses), { 401: ACCOUNT_LIMIT, 429: 30 - ACCOUNT_LIMIT });
  });

  test('guesses at many accounts from one address are held to the address budget of 60', async () => {
    const address = newAddress();
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        signInFrom(address, { email: `nobody-${i}-${address}@example.test`, password: 'wrong guess' }),
      ),
    );
    assert.deepEqual(statusCounts(responses), { 401: ADDRESS_LIMIT, 429: 100 - ADDRESS_LIMIT });
    for (const response of responses.filter((r) => r.status === 429)) expectError(response, 429, ADDRESS_REFUSAL);
  });

  test('an unknown email is budgeted like a real account, so the answers never tell which exist', async () => {
    const address = newAddress();
    const responses = await Promise.all(
      Array.from({ length: 15 }, () =>
        signInFrom(address, { email: `nobody-${address}@example.test`, password: 'wrong guess' }),
      ),
    );
    assert.deepEqual(statusCounts(responses), { 401: ACCOUNT_LIMIT, 429: 15 - ACCOUNT_LIMIT });
  });

  test('a right password gives its count back: 15 sign-ins in a row with the right password all succeed', async () => {
    const team = await teamWithPassword(server);
    const address = newAddress();
    for (let i = 0; i < 15; i++) {
      expectStatus(await signInFrom(address, { email: team.owner.email, password: PASSWORD }), 200);
    }
    // …and only the failures spend: 9 wrong ones still leave the right one through.
    for (let i = 0; i < ACCOUNT_LIMIT - 1; i++) {
      expectError(await signInFrom(address, { email: team.owner.email, password: 'wrong guess' }), 401);
    }
    expectStatus(await signInFrom(address, { email: team.owner.email, password: PASSWORD }), 200);
  });

  test('a wrong current password on a password change spends the account budget, and then sign-in is refused too', async () => {
    const team = await teamWithPassword(server);
    const browser = new Browser(server.url, { 'x-forwarded-for': newAddress() });
    const signedIn = expectStatus(
      await browser.post('/auth/sign-in', { email: team.owner.email, password: PASSWORD }),
      200,
    );
    browser.csrfToken = signedIn.csrfToken;
    const change = () =>
      browser.post(
        '/auth/password',
        { currentPassword: 'not my password', newPassword: 'a brand new password' },
        browser.csrf(),
      );
    const responses = await Promise.all(Array.from({ length: 20 }, change));
    assert.deepEqual(statusCounts(responses), { 400: ACCOUNT_LIMIT, 429: 20 - ACCOUNT_LIMIT });
    expectError(await signInFrom(newAddress(), { email: team.owner.email, password: PASSWORD }), 429, ACCOUNT_REFUSAL);
    // Nothing changed: the password is still the old one (checked on the stored row, the budget being spent).
    const row = await findUser(server.store.db, team.owner.userId);
    assert.ok(row?.passwordHash?.startsWith('$argon2id$'));
  });
});

describe('password hashes from earlier releases', () => {
  test('an old scrypt hash signs in, and that sign-in replaces it with an argon2id hash of the same password', async () => {
    const team = await teamWithPassword(server);
    const old = await legacyScryptHash(PASSWORD);
    await setPasswordHash(server.store.db, team.owner.userId, old);
    await signIn(server, team.owner.email);
    const upgraded = (await findUser(server.store.db, team.owner.userId))!.passwordHash!;
    assert.match(upgraded, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    await signIn(server, team.owner.email); // the new hash verifies the same password
    expectError(
      await new Browser(server.url).post('/auth/sign-in', { email: team.owner.email, password: 'wrong guess' }),
      401,
    );
  });

  test('a wrong password against an old hash leaves the old hash in place', async () => {
    const team = await teamWithPassword(server);
    const old = await legacyScryptHash(PASSWORD);
    await setPasswordHash(server.store.db, team.owner.userId, old);
    expectError(
      await new Browser(server.url).post('/auth/sign-in', { email: team.owner.email, password: 'wrong guess' }),
      401,
    );
    assert.equal((await findUser(server.store.db, team.owner.userId))!.passwordHash, old);
  });
});
