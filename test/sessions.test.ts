/**
 * Web sign-in, end to end over HTTP with a hand-kept cookie jar (what a browser does):
 *
 * - POST /auth/sign-in: the session cookie (HttpOnly, SameSite=Strict, Path=/), the answer,
 *   one message for every failure, users without a password
 * - the session on /v1 reads; CSRF: every change made with a session needs x-csrf-token
 * - several teams: the default team, teamId at sign-in, POST /auth/team
 * - sign-out, password change (other sessions end), profile
 * - API keys in settings: list / create (secret once) / revoke, session only
 * - access ends: removal from the team, event streams after sign-out
 * - storage: argon2id password hashes only, session ids are hashes of the cookie's secret
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { deleteMember, upsertMember } from '../src/team/teams.repository.js';
import { findUser } from '../src/team/users.repository.js';
import {
  Browser,
  COOKIE,
  expectSignInRefused,
  PASSWORD,
  sessionCookie,
  setPassword,
  signedInOwner,
  signIn,
  teamWithPassword,
} from './browser.js';
import { createTestTeam } from './factories.js';
import { expectError, expectStatus, show, startTestServer, type TestServer } from './harness.js';

const CSRF_MESSAGE = /CSRF/;
const WRONG_CREDENTIALS = 'Wrong email or password.';

// ---------------------------------------------------------------------------------------------
// An event stream read with fetch
// ---------------------------------------------------------------------------------------------

interface OpenStream {
  status: number;
  contentType: string | null;
  /** Everything received so far. */
  text(): string;
  /** Resolves with the time the server ended the stream (never rejects). */
  ended: Promise<number>;
  close(): void;
}

async function openEventStream(browser: Browser): Promise<OpenStream> {
  const controller = new AbortController();
  const cookie = [...browser.jar].map(([name, value]) => `${name}=${value}`).join('; ');
  const res = await fetch(`${browser.baseUrl}/v1/events`, { headers: { cookie }, signal: controller.signal });
  let received = '';
  const decoder = new TextDecoder();
  const reader = res.body!.getReader();
  let sawFirstChunk: () => void = () => {};
  const firstChunk = new Promise<void>((resolve) => (sawFirstChunk = resolve));
  const ended = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return Date.now();
        received += decoder.decode(value, { stream: true });
        sawFirstChunk();
      }
    } catch {
      return Date.now(); // aborted by close() or the connection was cut
    } finally {
      sawFirstChunk();
    }
  })();
  if (res.status === 200) await firstChunk; // the stream is attached to the hub once ": connected" is out
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    text: () => received,
    ended,
    close: () => controller.abort(),
  };
}

/** The end time of the stream, or null if it is still open after `ms`. */
async function endWithin(stream: OpenStream, ms: number): Promise<number | null> {
  return Promise.race([stream.ended, sleep(ms).then(() => null)]);
}

// ---------------------------------------------------------------------------------------------

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

      assert.deepEqual(Object.keys(info).sort(), ['csrfToken', 'role', 'team', 'teams', 'user']);
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

  describe('several teams', () => {
    /** A user who joined team one first, then team two (as admin). */
    async function userInTwoTeams() {
      const one = await teamWithPassword(server);
      const two = await createTestTeam(server);
      await sleep(5); // memberships are ordered by when they were made
      await upsertMember(server.store.db, two.id, one.owner.userId, 'admin');
      return { user: one.owner, one, two };
    }

    test('signs into the first team joined by default and lists every team with its role', async () => {
      const { user, one, two } = await userInTwoTeams();
      const { browser, info } = await signIn(server, user.email);
      assert.deepEqual(info.team, { id: one.id, name: one.name });
      assert.equal(info.role, 'owner');
      assert.deepEqual(info.teams, [
        { id: one.id, name: one.name, role: 'owner' },
        { id: two.id, name: two.name, role: 'admin' },
      ]);
      assert.equal(expectStatus(await browser.get('/v1/me'), 200).team.id, one.id);
    });

    test('signs into the team named by teamId; a team the user is not in is 403 and sets no cookie', async () => {
      const { user, two } = await userInTwoTeams();
      const { browser, info } = await signIn(server, user.email, PASSWORD, two.id);
      assert.deepEqual(info.team, { id: two.id, name: two.name });
      assert.equal(info.role, 'admin');
      const me = expectStatus(await browser.get('/v1/me'), 200);
      assert.deepEqual(me.team, { id: two.id, name: two.name });
      assert.equal(me.role, 'admin');

      const stranger = await createTestTeam(server);
      await expectSignInRefused(server, { email: user.email, password: PASSWORD, teamId: stranger.id }, 403);
    });

    test('POST /auth/team switches the session to another of the user’s teams; /v1 then acts in that team', async () => {
      const { user, one, two } = await userInTwoTeams();
      const { browser } = await signIn(server, user.email);
      const listInOne = expectStatus(await browser.post('/v1/lists', { name: 'In one' }, browser.csrf()), 201);

      const switched = expectStatus(await browser.post('/auth/team', { teamId: two.id }, browser.csrf()), 200);
      assert.deepEqual(switched.team, { id: two.id, name: two.name });
      assert.equal(switched.role, 'admin');
      assert.equal(switched.csrfToken, browser.csrfToken, 'the session (and its token) stays the same');

      const me = expectStatus(await browser.get('/v1/me'), 200);
      assert.deepEqual(me.team, { id: two.id, name: two.name });
      assert.equal(me.role, 'admin');
      assert.equal(expectStatus(await browser.get('/auth/session'), 200).team.id, two.id);
      assert.deepEqual(expectStatus(await browser.get('/v1/lists'), 200), []);
      expectError(await browser.get(`/v1/lists/${listInOne.id}`), 404);

      const listInTwo = expectStatus(await browser.post('/v1/lists', { name: 'In two' }, browser.csrf()), 201);
      assert.deepEqual(expectStatus(await two.owner.api.get('/v1/lists'), 200), []); // private to its members
      assert.deepEqual(
        expectStatus(await one.owner.api.get('/v1/lists'), 200).map((l: any) => l.id),
        [listInOne.id],
      );

      // And back again.
      expectStatus(await browser.post('/auth/team', { teamId: one.id }, browser.csrf()), 200);
      assert.equal(expectStatus(await browser.get('/v1/me'), 200).team.id, one.id);
      assert.deepEqual(
        expectStatus(await browser.get('/v1/lists'), 200).map((l: any) => l.id),
        [listInOne.id],
      );
      assert.notEqual(listInTwo.id, listInOne.id);
    });

    test('switching to a team the user is not in is 403 and leaves the session where it was', async () => {
      const { user, one } = await userInTwoTeams();
      const stranger = await createTestTeam(server);
      const { browser } = await signIn(server, user.email);
      expectError(await browser.post('/auth/team', { teamId: stranger.id }, browser.csrf()), 403);
      expectError(
        await browser.post('/auth/team', { teamId: '00000000-0000-4000-8000-000000000000' }, browser.csrf()),
        403,
      );
      expectError(await browser.post('/auth/team', { teamId: 'not-a-uuid' }, browser.csrf()), 400);
      assert.equal(expectStatus(await browser.get('/v1/me'), 200).team.id, one.id);
    });
  });

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

  describe('API keys in settings', () => {
    test('the list shows name, prefix, createdAt and lastUsedAt of the user’s keys and never a secret', async () => {
      const { team, browser } = await signedInOwner(server);
      const colleague = await team.member();

      let keys = expectStatus(await browser.get('/v1/api-keys'), 200);
      assert.equal(keys.length, 1, 'only the user’s own keys: ' + JSON.stringify(keys));
      const [factoryKey] = keys;
      assert.deepEqual(Object.keys(factoryKey).sort(), [
        'createdAt',
        'expiresAt',
        'id',
        'lastUsedAt',
        'name',
        'prefix',
      ]);
      assert.equal(factoryKey.id, team.owner.keyId);
      assert.equal(factoryKey.name, 'test');
      assert.ok(team.owner.key.startsWith(factoryKey.prefix), 'the prefix is the start of the key');
      assert.ok(factoryKey.prefix.length < team.owner.key.length / 2, 'the prefix must not reveal the key');
      assert.ok(!Number.isNaN(Date.parse(factoryKey.createdAt)), `createdAt is not a time: ${factoryKey.createdAt}`);
      assert.equal(factoryKey.lastUsedAt, null, 'a key never used has lastUsedAt null');

      const before = Date.now();
      expectStatus(await team.owner.api.get('/v1/me'), 200);
      keys = expectStatus(await browser.get('/v1/api-keys'), 200);
      assert.equal(typeof keys[0].lastUsedAt, 'string');
      assert.ok(Date.parse(keys[0].lastUsedAt) >= before - 1000, `lastUsedAt is stale: ${keys[0].lastUsedAt}`);

      const listing = await browser.get('/v1/api-keys');
      for (const secret of [team.owner.key, colleague.key])
        assert.ok(!listing.text.includes(secret), 'a secret leaked');
      assert.ok(!listing.text.includes(colleague.keyId), 'another user’s key is listed');
    });

    test('creating a key answers its secret once; the secret works as x-api-key and is never shown again', async () => {
      const { team, browser } = await signedInOwner(server);
      const response = await browser.post('/v1/api-keys', { name: 'CI pipeline' }, browser.csrf());
      const created = expectStatus(response, 201);
      assert.deepEqual(Object.keys(created).sort(), [
        'createdAt',
        'expiresAt',
        'id',
        'key',
        'lastUsedAt',
        'name',
        'prefix',
      ]);
      assert.equal(created.name, 'CI pipeline');
      assert.equal(created.lastUsedAt, null);
      assert.ok(created.key.startsWith(created.prefix));
      assert.ok(created.key.length >= 32, 'the secret is too short');

      const me = expectStatus(await server.client(created.key).get('/v1/me'), 200);
      assert.equal(me.user.id, team.owner.userId);
      assert.equal(me.team.id, team.id);

      const listing = await browser.get('/v1/api-keys');
      const keys = expectStatus(listing, 200);
      assert.deepEqual(keys.map((k: any) => k.name).sort(), ['CI pipeline', 'test']);
      assert.ok(!listing.text.includes(created.key), 'the list shows the secret again');
      assert.ok(!(await browser.get('/auth/session')).text.includes(created.key));

      // The secret is stored only as a hash.
      const row = await server.store.db
        .selectFrom('api_keys')
        .selectAll()
        .where('id', '=', created.id)
        .executeTakeFirstOrThrow();
      for (const [column, value] of Object.entries(row)) {
        assert.ok(!String(value).includes(created.key), `api_keys.${column} holds the secret`);
      }

      for (const name of ['', '   ', 'x'.repeat(101)]) {
        expectError(await browser.post('/v1/api-keys', { name }, browser.csrf()), 400, /name/);
      }
    });

    test('revoking a key makes it 401 at once and drops it from the list; revoking it again is 404', async () => {
      const { browser } = await signedInOwner(server);
      const created = expectStatus(await browser.post('/v1/api-keys', { name: 'Temporary' }, browser.csrf()), 201);
      const api = server.client(created.key);
      expectStatus(await api.get('/v1/lists'), 200);

      assert.deepEqual(expectStatus(await browser.delete(`/v1/api-keys/${created.id}`, browser.csrf()), 200), {
        id: created.id,
        revoked: true,
      });
      expectError(await api.get('/v1/lists'), 401);
      expectError(await api.get('/v1/me'), 401);
      const keys = expectStatus(await browser.get('/v1/api-keys'), 200);
      assert.ok(!keys.some((k: any) => k.id === created.id), 'a revoked key is still listed');
      expectError(await browser.delete(`/v1/api-keys/${created.id}`, browser.csrf()), 404);
      expectError(await browser.delete('/v1/api-keys/not-a-key-id', browser.csrf()), 404);
    });

    test('an API key cannot list, create or revoke keys (403), and nothing changes', async () => {
      const { team, browser } = await signedInOwner(server);
      const api = team.owner.api;
      const before = expectStatus(await browser.get('/v1/api-keys'), 200);

      expectError(await api.get('/v1/api-keys'), 403);
      expectError(await api.post('/v1/api-keys', { name: 'By a key' }), 403);
      expectError(await api.delete(`/v1/api-keys/${team.owner.keyId}`), 403);
      // Not even with a CSRF token, nor with the session's cookie and a key at once.
      expectError(await api.post('/v1/api-keys', { name: 'By a key' }, browser.csrf()), 403);
      expectError(await browser.get('/v1/api-keys', { 'x-api-key': team.owner.key }), 403);

      const after = expectStatus(await browser.get('/v1/api-keys'), 200);
      assert.deepEqual(
        after.map((k: any) => [k.id, k.name]),
        before.map((k: any) => [k.id, k.name]),
      );
      expectStatus(await api.get('/v1/me'), 200);
    });

    test('a user cannot revoke another user’s key (404), in the same team or another', async () => {
      const { team, browser } = await signedInOwner(server);
      const colleague = await team.member();
      const stranger = (await createTestTeam(server)).owner;

      expectError(await browser.delete(`/v1/api-keys/${colleague.keyId}`, browser.csrf()), 404);
      expectError(await browser.delete(`/v1/api-keys/${stranger.keyId}`, browser.csrf()), 404);
      expectStatus(await colleague.api.get('/v1/me'), 200);
      expectStatus(await stranger.api.get('/v1/me'), 200);
    });
  });

  describe('losing access', () => {
    test('removing the user from the team ends their session’s access at once', async () => {
      const { team, browser } = await signedInOwner(server);
      const member = await team.member();
      await setPassword(server, member);
      const { browser: session } = await signIn(server, member.email);
      expectStatus(await session.get('/v1/me'), 200);

      assert.equal(await deleteMember(server.store.db, team.id, member.userId), true);

      const me = await session.get('/v1/me');
      assert.ok(me.status === 401 || me.status === 404, `GET /v1/me: expected 401 or 404, got ${show(me)}`);
      expectError(me, me.status);
      expectError(await session.get('/v1/lists'), 401);
      expectError(await session.get('/auth/session'), 401);
      expectError(await session.post('/v1/lists', { name: 'After removal' }, session.csrf()), 401);
      expectError(await session.post('/v1/api-keys', { name: 'After removal' }, session.csrf()), 401);
      expectStatus(await browser.get('/v1/me'), 200); // the owner is unaffected
      // A user in no team at all cannot sign in again.
      await expectSignInRefused(server, { email: member.email, password: PASSWORD }, 403);
    });

    test('an event stream opened with the session cookie ends within ~7 s after sign-out', async () => {
      const { browser } = await signedInOwner(server);
      const stream = await openEventStream(browser);
      try {
        assert.equal(stream.status, 200, stream.text());
        assert.match(stream.contentType ?? '', /^text\/event-stream/);
        expectStatus(await browser.post('/auth/sign-out', undefined, browser.csrf()), 200);
        const signedOutAt = Date.now();
        const endedAt = await endWithin(stream, 7_500);
        assert.ok(endedAt !== null, 'the event stream is still open 7.5 s after sign-out');
        assert.ok(endedAt - signedOutAt <= 7_000, `the stream ended ${endedAt - signedOutAt} ms after sign-out`);
      } finally {
        stream.close();
      }
    });

    test('an event stream of the team a user was removed from ends, even after the session switched team', async () => {
      const one = await teamWithPassword(server);
      const two = await createTestTeam(server);
      await sleep(5);
      await upsertMember(server.store.db, two.id, one.owner.userId, 'member');
      const colleague = await one.member({ role: 'admin' });
      const { browser } = await signIn(server, one.owner.email);
      // A task the user created in team one: its events are addressed to its creator.
      const list = expectStatus(await browser.post('/v1/lists', { name: 'Shared' }, browser.csrf()), 201);
      expectStatus(
        await browser.post(`/v1/lists/${list.id}/members`, { userId: colleague.userId }, browser.csrf()),
        201,
      );
      const task = expectStatus(
        await browser.post('/v1/tasks', { title: 'Mine', taskListIds: [list.id] }, browser.csrf()),
        201,
      );

      const stream = await openEventStream(browser); // a stream of team one
      try {
        assert.equal(stream.status, 200, stream.text());
        expectStatus(await browser.post('/auth/team', { teamId: two.id }, browser.csrf()), 200);
        await deleteMember(server.store.db, one.id, one.owner.userId);

        const endedAt = await endWithin(stream, 7_500);
        if (endedAt === null) {
          // Show what staying open means: the team's events keep coming.
          expectStatus(await colleague.api.patch(`/v1/tasks/${task.id}`, { title: 'After removal' }), 200);
          await sleep(1_500);
          const leaked = stream.text().includes('task.updated');
          assert.fail(
            'the team-one event stream is still open 7.5 s after the user was removed from team one' +
              (leaked ? ', and it received task.updated of that team afterwards' : ''),
          );
        }
      } finally {
        stream.close();
      }
    });
  });

  describe('storage', () => {
    test('passwords are stored only as argon2id hashes (OWASP parameters or stronger): no column of users holds the password', async () => {
      const { team, browser } = await signedInOwner(server);
      const newPassword = 'Stored-Only-As-A-Hash 42';
      expectStatus(
        await browser.post('/auth/password', { currentPassword: PASSWORD, newPassword }, browser.csrf()),
        200,
      );
      const row = await server.store.db
        .selectFrom('users')
        .selectAll()
        .where('id', '=', team.owner.userId)
        .executeTakeFirstOrThrow();
      for (const [column, value] of Object.entries(row)) {
        const text = String(value);
        for (const secret of [newPassword, PASSWORD, newPassword.toLowerCase()]) {
          assert.ok(!text.includes(secret), `users.${column} holds the password`);
        }
        assert.ok(!text.includes(Buffer.from(newPassword).toString('base64')), `users.${column} holds it in base64`);
        assert.ok(!text.includes(Buffer.from(newPassword).toString('hex')), `users.${column} holds it in hex`);
      }
      // $argon2id$v=19$m=<KiB>,t=<passes>,p=<lanes>$<salt>$<hash>, salt and hash in unpadded base64.
      const [, scheme, , parameters, salt, hash] = row.password_hash!.split('$');
      assert.equal(scheme, 'argon2id', `not argon2id: ${row.password_hash}`);
      const { m, t, p } = Object.fromEntries(parameters!.split(',').map((pair) => pair.split('='))) as Record<
        string,
        string
      >;
      assert.ok(Number(m) >= 19_456 && Number(t) >= 2 && Number(p) >= 1, `below OWASP's minimum: m=${m} t=${t} p=${p}`);
      assert.ok(Buffer.from(salt!, 'base64').length >= 16, 'the salt is too short');
      assert.ok(Buffer.from(hash!, 'base64').length >= 32, 'the hash is too short');

      // Two users with the same password get different hashes (salted).
      const other = await team.member();
      await setPassword(server, other, newPassword);
      const otherRow = await findUser(server.store.db, other.userId);
      assert.match(otherRow!.passwordHash ?? '', /^\$argon2id\$/);
      assert.notEqual(otherRow!.passwordHash, row.password_hash);
      await signIn(server, other.email, newPassword);
    });

    test('the session cookie’s secret is not stored: sessions ids are its sha256, and no column holds it', async () => {
      const { team, browser } = await signedInOwner(server);
      const token = browser.sessionToken!;
      const rows = await server.store.db
        .selectFrom('sessions')
        .selectAll()
        .where('user_id', '=', team.owner.userId)
        .execute();
      assert.equal(rows.length, 1);
      const row = rows[0]!;
      assert.notEqual(row.id, token);
      assert.equal(row.id, createHash('sha256').update(token).digest('hex'));
      for (const [column, value] of Object.entries(row)) {
        assert.ok(!String(value).includes(token), `sessions.${column} holds the cookie secret`);
      }
      assert.equal(row.team_id, team.id);
      assert.ok(Date.parse(row.expires_at) > Date.now(), 'the session must expire in the future');

      expectStatus(await browser.post('/auth/sign-out', undefined, browser.csrf()), 200);
      const left = await server.store.db
        .selectFrom('sessions')
        .select('id')
        .where('user_id', '=', team.owner.userId)
        .execute();
      assert.deepEqual(left, [], 'sign-out must delete the session row');
    });
  });
});
