/**
 * A signed-in user's own account: sign-out, password change (other sessions end), profile.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { upsertMember } from '../../src/team/teams.repository.js';
import { findUser } from '../../src/team/users.repository.js';
import { expectSignInRefused, PASSWORD, sessionCookie, signedInOwner, signIn, WRONG_CREDENTIALS } from '../browser.js';
import { createTestTeam } from '../factories.js';
import { expectError, expectStatus, startTestServer, type TestServer } from '../harness.js';

describe('web sessions', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  describe('POST /auth/sign-out', () => {
    test('ends the session (the old cookie then gets 401) and clears the cookie', async () => {
      const { browser } = await signedInOwner(server);
      const stolen = browser.clone();
      const response = await browser.post('/auth/sign-out', undefined, browser.csrf());
      assert.deepEqual(expectStatus(response, 200), { signedOut: true });

      const cleared = sessionCookie(response);
      assert.equal(cleared.value, '', 'the cookie must be emptied');
      const attributes = cleared.attributes.map((a) => a.toLowerCase());
      assert.ok(attributes.includes('max-age=0'), `the cookie is not expired: ${cleared.attributes.join('; ')}`);
      assert.ok(attributes.includes('path=/'), 'the clearing cookie must have the same Path');
      assert.equal(browser.sessionToken, undefined);

      // Whoever still holds the old cookie is signed out too: the session is gone on the server.
      expectError(await stolen.get('/v1/me'), 401);
      expectError(await stolen.get('/auth/session'), 401);
      expectError(await stolen.post('/v1/lists', { name: 'x' }, stolen.csrf()), 401);
      expectError(await stolen.post('/auth/sign-out', undefined, stolen.csrf()), 401);
      expectError(await browser.get('/v1/me'), 401);
    });

    test('ends only this session: the user’s other sessions stay signed in', async () => {
      const { team, browser } = await signedInOwner(server);
      const { browser: other } = await signIn(server, team.owner.email);
      expectStatus(await browser.post('/auth/sign-out', undefined, browser.csrf()), 200);
      expectStatus(await other.get('/v1/me'), 200);
    });
  });

  describe('POST /auth/password', () => {
    test('needs the right current password and a new one of at least 8 characters; a refusal changes nothing', async () => {
      const { team, browser } = await signedInOwner(server);
      const hashBefore = (await findUser(server.store.db, team.owner.userId))!.passwordHash;
      const change = (body: unknown) => browser.post('/auth/password', body, browser.csrf());

      expectError(await change({ currentPassword: 'not my password', newPassword: 'a brand new password' }), 400);
      expectError(await change({ newPassword: 'a brand new password' }), 400);
      expectError(await change({ currentPassword: PASSWORD, newPassword: 'short12' }), 400, /newPassword/);
      expectError(await change({ currentPassword: PASSWORD, newPassword: '' }), 400, /newPassword/);
      expectError(await change({ currentPassword: PASSWORD, newPassword: 'x'.repeat(201) }), 400, /newPassword/);
      expectError(await change({ currentPassword: PASSWORD, newPassword: PASSWORD }), 400);

      assert.equal((await findUser(server.store.db, team.owner.userId))!.passwordHash, hashBefore);
      await signIn(server, team.owner.email, PASSWORD);
      expectStatus(await browser.get('/v1/me'), 200);
    });

    test('after a change the old password fails, the new one works, and the user’s other sessions are signed out', async () => {
      const { team, browser } = await signedInOwner(server);
      const { browser: otherSession } = await signIn(server, team.owner.email);
      const elsewhere = await createTestTeam(server);
      await upsertMember(server.store.db, elsewhere.id, team.owner.userId, 'member');
      const { browser: otherTeamSession } = await signIn(server, team.owner.email, PASSWORD, elsewhere.id);
      const stranger = await signedInOwner(server); // someone else's session is left alone

      const newPassword = 'a much better passphrase';
      assert.deepEqual(
        expectStatus(
          await browser.post('/auth/password', { currentPassword: PASSWORD, newPassword }, browser.csrf()),
          200,
        ),
        { changed: true },
      );

      expectStatus(await browser.get('/v1/me'), 200); // the session that changed it stays
      expectError(await otherSession.get('/v1/me'), 401);
      expectError(await otherTeamSession.get('/v1/me'), 401);
      expectStatus(await stranger.browser.get('/v1/me'), 200);
      expectStatus(await team.owner.api.get('/v1/me'), 200); // API keys are not sessions

      await expectSignInRefused(server, { email: team.owner.email, password: PASSWORD }, 401, WRONG_CREDENTIALS);
      await signIn(server, team.owner.email, newPassword);
    });

    test('an API key gets 403 on every /auth endpoint: only a signed-in session changes a password', async () => {
      const team = await createTestTeam(server);
      const api = team.owner.api;
      expectError(await api.get('/auth/session'), 403);
      expectError(
        await api.post('/auth/password', { currentPassword: 'anything', newPassword: 'a new password' }),
        403,
      );
      expectError(await api.patch('/auth/profile', { name: 'By key' }), 403);
      expectError(await api.post('/auth/team', { teamId: team.id }), 403);
      expectError(await api.post('/auth/sign-out'), 403);
      assert.equal((await findUser(server.store.db, team.owner.userId))!.passwordHash, null);
      assert.equal(expectStatus(await api.get('/v1/me'), 200).user.name, team.owner.name);
    });
  });

  describe('PATCH /auth/profile', () => {
    test('a new display name shows in the answer, in /v1/me and to the user’s API key', async () => {
      const { team, browser } = await signedInOwner(server);
      const info = expectStatus(await browser.patch('/auth/profile', { name: 'Olivia Renamed' }, browser.csrf()), 200);
      assert.equal(info.user.name, 'Olivia Renamed');
      assert.equal(expectStatus(await browser.get('/v1/me'), 200).user.name, 'Olivia Renamed');
      assert.equal(expectStatus(await team.owner.api.get('/v1/me'), 200).user.name, 'Olivia Renamed');

      for (const name of ['', '   ', 'x'.repeat(201)]) {
        expectError(await browser.patch('/auth/profile', { name }, browser.csrf()), 400, /name/);
      }
      assert.equal(expectStatus(await browser.get('/v1/me'), 200).user.name, 'Olivia Renamed');

      // Unknown fields are dropped (as everywhere): the profile cannot change the sign-in email.
      const renamed = expectStatus(
        await browser.patch('/auth/profile', { name: 'Olivia', email: 'new@example.test' }, browser.csrf()),
        200,
      );
      assert.equal(renamed.user.email, team.owner.email);
      assert.deepEqual(expectStatus(await browser.get('/v1/me'), 200).user, {
        id: team.owner.userId,
        name: 'Olivia',
        email: team.owner.email,
      });
    });
  });
});
