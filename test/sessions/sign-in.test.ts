/**
 * POST /auth/sign-in, over HTTP with a hand-kept cookie jar (what a browser does): the session
 * cookie (HttpOnly, SameSite=Strict, Path=/), the answer, one message for every failure, users
 * without a password.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  expectSignInRefused,
  PASSWORD,
  sessionCookie,
  signIn,
  teamWithPassword,
  WRONG_CREDENTIALS,
} from '../browser.js';
import { createTestTeam } from '../factories.js';
import { expectStatus, startTestServer, type TestServer } from '../harness.js';

describe('web sessions', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  describe('POST /auth/sign-in', () => {
    test('sets an HttpOnly, SameSite=Strict, Path=/ session cookie and answers user, team, role, teams and csrfToken', async () => {
      const team = await teamWithPassword(server);
      const { browser, info, response } = await signIn(server, team.owner.email);

      const cookie = sessionCookie(response);
      assert.ok(cookie.value.length >= 32, `the session secret is too short: ${cookie.value}`);
      const attributes = cookie.attributes.map((a) => a.toLowerCase());
      assert.ok(attributes.includes('httponly'), `not HttpOnly: ${cookie.attributes.join('; ')}`);
      assert.ok(attributes.includes('samesite=strict'), `not SameSite=Strict: ${cookie.attributes.join('; ')}`);
      assert.ok(attributes.includes('path=/'), `not Path=/: ${cookie.attributes.join('; ')}`);
      const maxAge = attributes.find((a) => a.startsWith('max-age='));
      assert.ok(maxAge && Number(maxAge.slice('max-age='.length)) > 0, 'the cookie must outlive the browser tab');

      assert.deepEqual(Object.keys(info).sort(), ['csrfToken', 'role', 'setupRequired', 'team', 'teams', 'user']);
      assert.equal(info.setupRequired, false);
      assert.deepEqual(info.user, { id: team.owner.userId, name: team.owner.name, email: team.owner.email });
      assert.deepEqual(info.team, { id: team.id, name: team.name });
      assert.equal(info.role, 'owner');
      assert.deepEqual(info.teams, [{ id: team.id, name: team.name, role: 'owner' }]);
      assert.equal(typeof info.csrfToken, 'string');
      assert.ok(info.csrfToken.length >= 16, 'the CSRF token is too short');
      assert.notEqual(info.csrfToken, cookie.value, 'the CSRF token must not be the cookie secret');
      assert.ok(!response.text.includes(cookie.value), 'the body must not carry the HttpOnly secret');
      assert.ok(!/password|scrypt/i.test(response.text), `the answer mentions the password: ${response.text}`);

      // GET /auth/session answers the same for the web app after a reload.
      assert.deepEqual(expectStatus(await browser.get('/auth/session'), 200), info);
    });

    test('the email is matched case-insensitively and around whitespace', async () => {
      const team = await teamWithPassword(server);
      const { info } = await signIn(server, `  ${team.owner.email.toUpperCase()} `);
      assert.equal(info.user.id, team.owner.userId);
    });

    test('a wrong password and an unknown email both answer 401 with the same message and set no cookie', async () => {
      const team = await teamWithPassword(server);
      await expectSignInRefused(
        server,
        { email: team.owner.email, password: 'wrong password' },
        401,
        WRONG_CREDENTIALS,
      );
      await expectSignInRefused(
        server,
        { email: team.owner.email, password: PASSWORD.toUpperCase() },
        401,
        WRONG_CREDENTIALS,
      );
      await expectSignInRefused(
        server,
        { email: 'nobody.at.all@example.test', password: PASSWORD },
        401,
        WRONG_CREDENTIALS,
      );
    });

    test('a user without a password cannot sign in, whatever password is sent', async () => {
      const team = await createTestTeam(server); // factory users have no password
      for (const password of ['x', PASSWORD, 'null', 'undefined']) {
        await expectSignInRefused(server, { email: team.owner.email, password }, 401, WRONG_CREDENTIALS);
      }
    });

    test('a missing or malformed body is a 400 and sets no cookie', async () => {
      const team = await teamWithPassword(server);
      await expectSignInRefused(server, { email: team.owner.email }, 400);
      await expectSignInRefused(server, { password: PASSWORD }, 400);
      await expectSignInRefused(server, { email: team.owner.email, password: '' }, 400);
      await expectSignInRefused(server, { email: team.owner.email, password: PASSWORD, teamId: 'nope' }, 400);
    });
  });
});
