/**
 * The invitation link's endpoints spend the sign-in budgets (test/sign-in-budgets.test.ts), under
 * concurrency: a token is counted against the address's failed-authentication budget before it
 * is looked up (a real one gives its count back), and an existing account's password against the
 * address's and the account's, exactly as at sign-in, also when it comes in a newcomer's form.
 * The server trusts 127.0.0.1 as its proxy, so each test speaks from addresses of its own.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Browser, PASSWORD, setPassword } from '../browser.js';
import { createTestTeam } from '../factories.js';
import { expectError, expectStatus, startTestServer, type Response, type TestServer } from '../harness.js';
import { invite, newEmail } from './support.js';

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
const newAddress = () => `203.0.113.${++addresses}`;

const from = (address: string, path: string, body: Record<string, unknown>) =>
  new Browser(server.url, { 'x-forwarded-for': address }).post(path, body);

function statusCounts(responses: Response[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const response of responses) counts[response.status] = (counts[response.status] ?? 0) + 1;
  return counts;
}

describe('invitation links spend the sign-in budgets', () => {
  for (const path of ['/auth/invitation', '/auth/accept-invitation']) {
    test(`${path}: 100 unknown tokens sent at once from one address are held to the address budget of 60`, async () => {
      const address = newAddress();
      const responses = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          from(address, path, { token: `tli_guess${i}`, name: 'N', email: newEmail(), password: PASSWORD }),
        ),
      );
      assert.deepEqual(statusCounts(responses), { 404: ADDRESS_LIMIT, 429: 100 - ADDRESS_LIMIT });
      for (const response of responses.filter((r) => r.status === 429)) {
        expectError(response, 429, ADDRESS_REFUSAL);
        assert.match(response.headers.get('retry-after') ?? '', /^\d+$/);
      }
    });
  }

  test('a real token gives its count back: 80 reads of one link from one address all answer', async () => {
    const team = await createTestTeam(server);
    const made = await invite(team.owner);
    const address = newAddress();
    for (let i = 0; i < 80; i++) expectStatus(await from(address, '/auth/invitation', { token: made.token }), 200);
  });

  // A newcomer's form with an email that has an account is that account's sign-in (invitations.service.ts).
  for (const [form, extra] of [
    ['an account sign-in', {}],
    ["a newcomer's form", { name: 'Newcomer' }],
  ] as const) {
    test(`wrong passwords for an existing account, in ${form}, spend the account's budget, shared with sign-in`, async () => {
      const team = await createTestTeam(server);
      const home = await createTestTeam(server);
      await setPassword(server, home.owner);
      const made = await invite(team.owner);
      const responses = await Promise.all(
        Array.from({ length: 30 }, () =>
          from(newAddress(), '/auth/accept-invitation', {
            token: made.token,
            ...extra,
            email: home.owner.email,
            password: 'wrong guess',
          }),
        ),
      );
      assert.deepEqual(statusCounts(responses), { 401: ACCOUNT_LIMIT, 429: 30 - ACCOUNT_LIMIT });
      for (const response of responses.filter((r) => r.status === 429)) expectError(response, 429, ACCOUNT_REFUSAL);
      // The account's minute is spent for signing in too, and the invitation is still there.
      expectError(
        await from(newAddress(), '/auth/sign-in', { email: home.owner.email, password: PASSWORD }),
        429,
        ACCOUNT_REFUSAL,
      );
      expectStatus(await from(newAddress(), '/auth/invitation', { token: made.token }), 200);
    });
  }
});
