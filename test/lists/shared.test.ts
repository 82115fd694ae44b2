/**
 * Lists shared with the whole team (issue 28): `sharedWithTeam` on POST/PATCH /v1/lists makes
 * every member of the team a member of the list, and everyone who joins later too, in the
 * join's transaction; access itself stays list membership.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PASSWORD } from '../browser.js';
import { latestSeq, live, TIMEOUT } from '../events/support.js';
import { createTestTeam, type Actor } from '../factories.js';
import { expectFixedError } from '../fixed-errors.js';
import { expectError, expectStatus, startTestServer, type Response, type TestServer } from '../harness.js';
import { openStream } from '../sse/stream.js';
import { closeAllStreams } from '../sse/stream.js';
import { accept, invite, newEmail } from '../team/support.js';
import { together } from '../together.js';
import { setMembership } from '../../src/membership/members.service.js';
import { insertUser } from '../../src/team/users.repository.js';

let server: TestServer;
before(async () => {
  server = await startTestServer({ EVENTS_HEARTBEAT_SECONDS: '1' });
});
after(async () => {
  await closeAllStreams();
  await server.close();
});

const idsOf = (rows: { id: number | string }[]) => rows.map((row) => row.id).sort();

/** Ids of the lists GET /v1/lists shows `actor` (anything that can GET: a key's client, a browser). */
async function listIdsOf(actor: { api: { get(path: string): Promise<Response> } }): Promise<number[]> {
  return idsOf(expectStatus(await actor.api.get('/v1/lists'), 200)) as number[];
}

async function memberIdsOf(actor: Actor, listId: number): Promise<string[]> {
  return idsOf(expectStatus(await actor.api.get(`/v1/lists/${listId}/members`), 200)) as string[];
}

/** A newcomer who accepts an invitation from `by`, with a browser signed in to the team. */
async function joinByInvitation(by: Actor, name = 'Nora Newcomer') {
  const made = await invite(by);
  const { browser, response } = await accept(server, {
    token: made.token,
    name,
    email: newEmail(),
    password: PASSWORD,
  });
  const info = expectStatus(response, 200);
  return { userId: info.user.id as string, browser, api: { get: (path: string) => browser.get(path) } };
}

describe('sharedWithTeam', () => {
  test('every list shows sharedWithTeam, false unless asked for', async () => {
    const { owner } = await createTestTeam(server);
    const list = expectStatus(await owner.api.post('/v1/lists', { name: 'Private' }), 201);
    assert.equal(list.sharedWithTeam, false);
    assert.equal(expectStatus(await owner.api.get(`/v1/lists/${list.id}`), 200).sharedWithTeam, false);
    assert.deepEqual(
      expectStatus(await owner.api.get('/v1/lists'), 200).map((l: { sharedWithTeam: boolean }) => l.sharedWithTeam),
      [false],
    );
  });

  test(
    'a list shared at creation has every member of the team as a member, and each hears taskList.created',
    TIMEOUT,
    async () => {
      const team = await createTestTeam(server);
      const member = await team.member({ name: 'Mia Member' });
      const admin = await team.member({ role: 'admin', name: 'Ada Admin' });
      const stream = await live(server, member, 'member');
      const list = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Team', sharedWithTeam: true }), 201);
      assert.equal(list.sharedWithTeam, true);
      assert.deepEqual(await memberIdsOf(team.owner, list.id), [team.owner.userId, member.userId, admin.userId].sort());
      for (const who of [member, admin]) {
        assert.deepEqual(await listIdsOf(who), [list.id]);
        expectStatus(await who.api.post('/v1/tasks', { title: 'Mine too', taskListIds: [list.id] }), 201);
      }
      const event = await stream.waitFor((e) => e.type === 'taskList.created');
      assert.deepEqual(JSON.parse(event.data), { listId: list.id });
    },
  );

  test(
    'a newcomer who accepts an invitation is a member of every shared list on arrival, not of the others, and gets their events',
    TIMEOUT,
    async () => {
      const team = await createTestTeam(server);
      const member = await team.member();
      const shared = expectStatus(
        await team.owner.api.post('/v1/lists', { name: 'Shared', sharedWithTeam: true }),
        201,
      );
      const privateList = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Owner only' }), 201);
      const memberStream = await live(server, member, 'member');

      const newcomer = await joinByInvitation(team.owner);
      assert.deepEqual(await listIdsOf(newcomer), [shared.id]);
      expectError(
        await newcomer.browser.get(`/v1/lists/${privateList.id}`),
        403,
        'You do not have access to this list.',
      );
      // The list's members hear that it changed (its members did), as when one is added by hand.
      const joined = await memberStream.waitFor((e) => e.type === 'taskList.updated');
      assert.deepEqual(JSON.parse(joined.data), { listId: shared.id });

      const newcomerStream = await openStream(server, undefined, {
        headers: { cookie: `tasklane_session=${newcomer.browser.sessionToken}` },
        lastEventId: String(await latestSeq(server, team.id)),
        label: 'newcomer',
      });
      assert.equal(newcomerStream.status, 200);
      expectStatus(await team.owner.api.patch(`/v1/lists/${shared.id}`, { name: 'Shared, renamed' }), 200);
      const renamed = await newcomerStream.waitFor((e) => e.type === 'taskList.updated');
      assert.deepEqual(JSON.parse(renamed.data), { listId: shared.id });
    },
  );

  test(
    'PATCH sharedWithTeam true adds every member (who hear taskList.updated); false keeps them all and stops adding newcomers',
    TIMEOUT,
    async () => {
      const team = await createTestTeam(server);
      const member = await team.member();
      const list = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Later shared' }), 201);
      assert.deepEqual(await listIdsOf(member), []);
      const stream = await live(server, member, 'member');

      const shared = expectStatus(await team.owner.api.patch(`/v1/lists/${list.id}`, { sharedWithTeam: true }), 200);
      assert.deepEqual(shared, { ...list, sharedWithTeam: true });
      assert.deepEqual(await listIdsOf(member), [list.id]);
      const event = await stream.waitFor((e) => e.type === 'taskList.updated');
      assert.deepEqual(JSON.parse(event.data), { listId: list.id });

      const first = await joinByInvitation(team.owner, 'First');
      const unshared = expectStatus(await member.api.patch(`/v1/lists/${list.id}`, { sharedWithTeam: false }), 200);
      assert.equal(unshared.sharedWithTeam, false);
      assert.deepEqual(await memberIdsOf(team.owner, list.id), [team.owner.userId, member.userId, first.userId].sort());
      const second = await joinByInvitation(team.owner, 'Second');
      assert.deepEqual(await listIdsOf(second), []);
    },
  );

  test('PATCH with the sharing the list already has changes nothing: same ETag', async () => {
    const { owner } = await createTestTeam(server);
    const created = await owner.api.post('/v1/lists', { name: 'As is', sharedWithTeam: true });
    const list = expectStatus(created, 201);
    const again = await owner.api.patch(`/v1/lists/${list.id}`, { sharedWithTeam: true });
    assert.deepEqual(expectStatus(again, 200), list);
    assert.equal(again.headers.get('etag'), created.headers.get('etag'));
  });

  test('removing a member from a shared list is refused with 409 and changes nothing; once unshared it works', async () => {
    const team = await createTestTeam(server);
    const member = await team.member();
    const list = expectStatus(await team.owner.api.post('/v1/lists', { name: 'All of us', sharedWithTeam: true }), 201);
    for (const [who, userId] of [
      [team.owner, member.userId],
      [member, member.userId],
    ] as const) {
      expectError(
        await who.api.delete(`/v1/lists/${list.id}/members/${userId}`),
        409,
        `List ${list.id} is shared with the whole team, so every member of the team is one of its members: stop sharing it first.`,
      );
    }
    assert.deepEqual(await listIdsOf(member), [list.id]);
    expectStatus(await team.owner.api.patch(`/v1/lists/${list.id}`, { sharedWithTeam: false }), 200);
    expectStatus(await team.owner.api.delete(`/v1/lists/${list.id}/members/${member.userId}`), 200);
    assert.deepEqual(await listIdsOf(member), []);
  });

  test('a sharedWithTeam that is not true or false is a 400 that creates and changes nothing', async () => {
    const { owner } = await createTestTeam(server);
    for (const value of ['true', 1, null, {}]) {
      expectFixedError(
        await owner.api.post('/v1/lists', { name: 'Bad', sharedWithTeam: value }),
        'Invalid input.',
        'sharedWithTeam must be true or false.',
      );
    }
    assert.deepEqual(await listIdsOf(owner), []);
    const list = expectStatus(await owner.api.post('/v1/lists', { name: 'Good' }), 201);
    for (const value of ['true', 0, null]) {
      expectError(
        await owner.api.patch(`/v1/lists/${list.id}`, { name: 'Renamed', sharedWithTeam: value }),
        400,
        'sharedWithTeam must be true or false.',
      );
    }
    assert.deepEqual(expectStatus(await owner.api.get(`/v1/lists/${list.id}`), 200), list);
  });

  test('only a member of the list may share it; a list that is not shared stays private to its members', async () => {
    const team = await createTestTeam(server);
    const admin = await team.member({ role: 'admin' });
    const list = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Mine' }), 201);
    expectError(
      await admin.api.patch(`/v1/lists/${list.id}`, { sharedWithTeam: true }),
      403,
      'You do not have access to this list.',
    );
    expectError(await admin.api.get(`/v1/lists/${list.id}`), 403, 'You do not have access to this list.');
    assert.deepEqual(await listIdsOf(admin), []);
    assert.deepEqual(await memberIdsOf(team.owner, list.id), [team.owner.userId]);
  });

  test("another team's shared list gives nothing to this team's members", async () => {
    const team = await createTestTeam(server);
    const other = await createTestTeam(server);
    const outsider = await other.member();
    const list = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Ours', sharedWithTeam: true }), 201);
    assert.deepEqual(await listIdsOf(outsider), []);
    expectError(await outsider.api.get(`/v1/lists/${list.id}`), 404, `List ${list.id} not found.`);
  });

  test(
    'a join racing a list being shared, at creation or by PATCH, still makes the newcomer a member of both',
    TIMEOUT,
    async () => {
      const team = await createTestTeam(server);
      for (let round = 0; round < 5; round++) {
        const existing = expectStatus(await team.owner.api.post('/v1/lists', { name: `Later ${round}` }), 201);
        const user = await insertUser(server.store.db, {
          email: newEmail(),
          name: `Racer ${round}`,
          passwordHash: null,
        });
        const [created, patched] = await together(
          server.url,
          [
            {
              method: 'POST',
              path: '/v1/lists',
              key: team.owner.key,
              body: { name: `New ${round}`, sharedWithTeam: true },
            },
            { method: 'PATCH', path: `/v1/lists/${existing.id}`, key: team.owner.key, body: { sharedWithTeam: true } },
          ],
          // What `admin member add` runs, in the same moment.
          () => setMembership(server.store, team.id, user.id, 'member'),
        );
        assert.equal(created!.status, 201, created!.text);
        assert.equal(patched!.status, 200, patched!.text);
        for (const listId of [created!.body.id, existing.id]) {
          assert.ok((await memberIdsOf(team.owner, listId)).includes(user.id), `round ${round}: not in list ${listId}`);
        }
      }
    },
  );
});
