/**
 * Using a web session: the cookie alone reads /v1, a missing, unknown or replayed cookie is 401,
 * and every change made with the session needs its own x-csrf-token (an API key needs none).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { upsertMember } from '../../src/team/teams.repository.js';
import { findUser } from '../../src/team/users.repository.js';
import { Browser, COOKIE, PASSWORD, signedInOwner, signIn } from '../browser.js';
import { createTestTeam } from '../factories.js';
import { expectError, expectStatus, show, startTestServer, type TestServer } from '../harness.js';

const CSRF_MESSAGE = /CSRF/;

describe('web sessions', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  describe('using the session', () => {
    test('the session cookie alone reads /v1 (GET /v1/me, /v1/lists) without a CSRF token', async () => {
      const { team, browser } = await signedInOwner(server);
      const list = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Made with the key' }), 201);

      assert.deepEqual(expectStatus(await browser.get('/v1/me'), 200), {
        user: { id: team.owner.userId, name: team.owner.name, email: team.owner.email },
        team: { id: team.id, name: team.name },
        role: 'owner',
      });
      assert.deepEqual(expectStatus(await browser.get('/v1/lists'), 200), [list]);
      assert.deepEqual(expectStatus(await browser.get(`/v1/lists/${list.id}`), 200), list);
    });

    test('without a cookie, with an unknown cookie, or with the stored session id as cookie the answer is 401', async () => {
      const { team } = await signedInOwner(server);
      expectError(await new Browser(server.url).get('/v1/me'), 401);
      expectError(await new Browser(server.url).get('/auth/session'), 401);

      const forged = new Browser(server.url);
      forged.jar.set(COOKIE, 'not-a-session');
      expectError(await forged.get('/v1/me'), 401);

      // A stolen database yields nothing usable: the id column cannot be replayed as a cookie.
      const rows = await server.store.db
        .selectFrom('sessions')
        .select('id')
        .where('user_id', '=', team.owner.userId)
        .execute();
      assert.equal(rows.length, 1);
      const replayed = new Browser(server.url);
      replayed.jar.set(COOKIE, rows[0]!.id);
      expectError(await replayed.get('/v1/me'), 401);
    });

    test('every change made with the session but without the right x-csrf-token is 403 and changes nothing', async () => {
      const { team, browser, info } = await signedInOwner(server);
      const otherTeam = await createTestTeam(server);
      await upsertMember(server.store.db, otherTeam.id, team.owner.userId, 'member');
      // Another session of the same user has its own token, which is no good for this one.
      const { browser: otherTab } = await signIn(server, team.owner.email);
      assert.notEqual(otherTab.csrfToken, browser.csrfToken, 'every session needs its own CSRF token');

      const list = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Keep me' }), 201);
      const task = expectStatus(await team.owner.api.post('/v1/tasks', { title: 'Keep me too' }), 201);
      const keyToRevoke = expectStatus(await browser.post('/v1/api-keys', { name: 'keep' }, browser.csrf()), 201);
      const hashBefore = (await findUser(server.store.db, team.owner.userId))!.passwordHash;

      const snapshot = async () => ({
        lists: expectStatus(await team.owner.api.get('/v1/lists'), 200),
        list: expectStatus(await team.owner.api.get(`/v1/lists/${list.id}`), 200),
        task: expectStatus(await team.owner.api.get(`/v1/tasks/${task.id}`), 200),
        keys: expectStatus(await browser.get('/v1/api-keys'), 200),
        session: expectStatus(await browser.get('/auth/session'), 200),
        me: expectStatus(await browser.get('/v1/me'), 200),
      });
      const before = await snapshot();
      assert.equal(before.session.team.id, team.id);

      const changes: [string, string, unknown][] = [
        ['POST', '/v1/lists', { name: 'Forged' }],
        ['PATCH', `/v1/lists/${list.id}`, { name: 'Forged' }],
        ['POST', `/v1/lists/${list.id}/archive`, undefined],
        ['POST', '/v1/tasks', { title: 'Forged' }],
        ['PATCH', `/v1/tasks/${task.id}`, { title: 'Forged' }],
        ['DELETE', `/v1/tasks/${task.id}`, undefined],
        ['POST', '/v1/api-keys', { name: 'Forged' }],
        ['DELETE', `/v1/api-keys/${keyToRevoke.id}`, undefined],
        ['POST', '/auth/sign-out', undefined],
        ['POST', '/auth/team', { teamId: otherTeam.id }],
        ['PATCH', '/auth/profile', { name: 'Forged' }],
        ['POST', '/auth/password', { currentPassword: PASSWORD, newPassword: 'forged password' }],
      ];
      const badTokens: [string, Record<string, string>][] = [
        ['no x-csrf-token', {}],
        ['an empty x-csrf-token', { 'x-csrf-token': '' }],
        ['a wrong x-csrf-token', { 'x-csrf-token': 'wrong' }],
        [
          'a token one character off',
          { 'x-csrf-token': info.csrfToken.slice(0, -1) + (info.csrfToken.endsWith('A') ? 'B' : 'A') },
        ],
        ['another session’s token', otherTab.csrf()],
        ['the cookie secret as token', { 'x-csrf-token': browser.sessionToken! }],
      ];
      for (const [method, path, body] of changes) {
        for (const [what, headers] of badTokens) {
          const response = await browser.request(method, path, body, headers);
          assert.equal(response.status, 403, `${method} ${path} with ${what}: expected 403, got ${show(response)}`);
          expectError(response, 403, CSRF_MESSAGE);
          assert.deepEqual(response.setCookies, [], `${method} ${path} with ${what} touched the cookie`);
        }
      }

      assert.deepEqual(await snapshot(), before, 'a refused change changed something');
      assert.equal((await findUser(server.store.db, team.owner.userId))!.passwordHash, hashBefore);
      expectStatus(await server.client(keyToRevoke.key).get('/v1/me'), 200);
      assert.ok(browser.sessionToken, 'the cookie must survive refused changes');

      // The same changes with the right token go through.
      const created = expectStatus(await browser.post('/v1/lists', { name: 'Real' }, browser.csrf()), 201);
      assert.equal(created.name, 'Real');
      assert.equal(
        expectStatus(await browser.patch(`/v1/lists/${list.id}`, { name: 'Renamed' }, browser.csrf()), 200).name,
        'Renamed',
      );
      expectStatus(await browser.patch(`/v1/tasks/${task.id}`, { title: 'Retitled' }, browser.csrf()), 200);
      expectStatus(await browser.delete(`/v1/tasks/${task.id}`, browser.csrf()), 200);
      expectError(await team.owner.api.get(`/v1/tasks/${task.id}`), 404);
      expectStatus(await browser.post('/v1/api-keys', { name: 'Real key' }, browser.csrf()), 201);
      expectStatus(await browser.delete(`/v1/api-keys/${keyToRevoke.id}`, browser.csrf()), 200);
      expectStatus(await browser.patch('/auth/profile', { name: 'Real Name' }, browser.csrf()), 200);
      expectStatus(await browser.post('/auth/sign-out', undefined, browser.csrf()), 200);
      expectError(await browser.clone().get('/v1/me'), 401);
    });

    test('an API key needs no CSRF token, even when a session cookie is sent along', async () => {
      const { team, browser } = await signedInOwner(server);
      const response = await browser.post('/v1/lists', { name: 'By key' }, { 'x-api-key': team.owner.key });
      expectStatus(response, 201);
    });
  });
});
