/**
 * POST /auth/email (issue 28): an owner or admin changes their own email, their sign-in, from
 * Settings → Profile, confirmed with their password. A plain member is told to ask the operator
 * (who keeps `admin user set-email`); a taken email is a 409 that says so; nothing else changes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Browser, PASSWORD, setPassword, signIn, signedInOwner } from '../browser.js';
import { createTestTeam } from '../factories.js';
import { expectError, expectStatus, startTestServer, type TestServer } from '../harness.js';
import { snapshotDatabase } from '../snapshot.js';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

const change = (browser: Browser, body: Record<string, unknown>) => browser.post('/auth/email', body, browser.csrf());
let emails = 0;
const freshEmail = () => `Moved.${process.pid}.${++emails}@Example.test`;

describe('POST /auth/email', () => {
  test('an owner changes their email with their password: the answer is the session, stored in lower case, and the new email signs in', async () => {
    const { browser, team } = await signedInOwner(server);
    const email = freshEmail();
    const answer = expectStatus(await change(browser, { email, currentPassword: PASSWORD }), 200);
    assert.equal(answer.user.email, email.toLowerCase());
    assert.equal(answer.csrfToken, browser.csrfToken);
    assert.equal(expectStatus(await team.owner.api.get('/v1/me'), 200).user.email, email.toLowerCase());
    await signIn(server, email, PASSWORD);
    // The session it was made with goes on: the password did not change.
    expectStatus(await browser.get('/auth/session'), 200);
  });

  test('an admin may change theirs; a plain member gets 403 and nothing changes', async () => {
    const team = await createTestTeam(server);
    const admin = await team.member({ role: 'admin' });
    const plain = await team.member();
    await setPassword(server, admin);
    await setPassword(server, plain);
    const asAdmin = await signIn(server, admin.email);
    expectStatus(await change(asAdmin.browser, { email: freshEmail(), currentPassword: PASSWORD }), 200);
    const asMember = await signIn(server, plain.email);
    const before = await snapshotDatabase(server.store.db);
    expectError(
      await change(asMember.browser, { email: freshEmail(), currentPassword: PASSWORD }),
      403,
      "Only the team's owners and admins can change their own email; the server's operator can change yours.",
    );
    assert.deepEqual(await snapshotDatabase(server.store.db), before);
  });

  test('a wrong password is 400, an email another account has is 409 saying so, bad fields 400; none changes anything', async () => {
    const { browser } = await signedInOwner(server);
    const other = await createTestTeam(server);
    const before = await snapshotDatabase(server.store.db);
    expectError(
      await change(browser, { email: freshEmail(), currentPassword: 'not my password' }),
      400,
      'The current password is wrong.',
    );
    expectError(
      await change(browser, { email: other.owner.email.toUpperCase(), currentPassword: PASSWORD }),
      409,
      `${other.owner.email} is already the email of another account.`,
    );
    expectError(
      await change(browser, { email: 'nope', currentPassword: PASSWORD }),
      400,
      'email must be an email address.',
    );
    expectError(await change(browser, { email: freshEmail() }), 400, 'currentPassword is required.');
    const after = await snapshotDatabase(server.store.db);
    assert.deepEqual(after.tables.users, before.tables.users);
  });

  test('its own email again (in another case) is no conflict', async () => {
    const { browser, team } = await signedInOwner(server);
    const answer = expectStatus(
      await change(browser, { email: team.owner.email.toUpperCase(), currentPassword: PASSWORD }),
      200,
    );
    assert.equal(answer.user.email, team.owner.email);
  });

  test('an API key cannot change an email (403)', async () => {
    const team = await createTestTeam(server);
    expectError(
      await team.owner.api.post('/auth/email', { email: freshEmail(), currentPassword: PASSWORD }),
      403,
      /needs a signed-in web session/,
    );
  });
});
