/**
 * A web session in several teams: the default team, teamId at sign-in, POST /auth/team.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { upsertMember } from '../../src/team/teams.repository.js';
import { expectSignInRefused, PASSWORD, signIn, teamWithPassword } from '../browser.js';
import { createTestTeam } from '../factories.js';
import { expectError, expectStatus, startTestServer, type TestServer } from '../harness.js';

describe('web sessions', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

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
});
