/**
 * Issue 25, item 8: a member's removal can leave a private list with no members, which the list
 * endpoints then refuse to everyone. The team's owners and admins find such lists with
 * GET /v1/lists-without-members and join one with POST …/{listId}/join; the join never lets
 * anyone into a list that has members, and a plain member or another team gets nothing.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { createTestTeam, type Team } from './factories.js';
import { expectError, expectStatus, startTestServer, TEST_STORE } from './harness.js';
import { assertUnchanged, snapshotDatabase } from './snapshot.js';

const server = await startTestServer();
after(() => server.close());

const MANAGERS_ONLY = "Only the team's owners and admins can manage lists without members.";

/** A list only `leaver` is in, with a task on it; then `leaver` is removed from the team by its owner. */
async function listLeftWithoutMembers(team: Team, name = 'Private plans') {
  const leaver = await team.member({ name: 'Lee Leaver' });
  const list = expectStatus(await leaver.api.post('/v1/lists', { name, color: 'Purple' }), 201);
  const task = expectStatus(await leaver.api.post('/v1/tasks', { title: 'Secret step', taskListIds: [list.id] }), 201);
  expectStatus(await team.owner.api.delete(`/v1/members/${leaver.userId}`), 200);
  return { list, task };
}

describe(`lists without members (${TEST_STORE})`, () => {
  test('a removal leaves a private list without members: the owner finds it, joins it, and can then read it and its tasks', async () => {
    const team = await createTestTeam(server);
    const { list, task } = await listLeftWithoutMembers(team);
    expectError(await team.owner.api.get(`/v1/lists/${list.id}`), 403, 'You do not have access to this list.');
    expectError(
      await team.owner.api.post(`/v1/lists/${list.id}/members`, { userId: team.owner.userId }),
      403,
      'You do not have access to this list.',
    );

    assert.deepEqual(expectStatus(await team.owner.api.get('/v1/lists-without-members'), 200), [list]);
    const joined = await team.owner.api.post(`/v1/lists-without-members/${list.id}/join`);
    assert.deepEqual(expectStatus(joined, 200), list);
    assert.match(joined.headers.get('etag') ?? '', /^"v\d+"$/);

    assert.deepEqual(expectStatus(await team.owner.api.get(`/v1/lists/${list.id}`), 200), list);
    const members = expectStatus(await team.owner.api.get(`/v1/lists/${list.id}/members`), 200);
    assert.deepEqual(
      members.map((m: any) => m.id),
      [team.owner.userId],
    );
    const tasks = expectStatus(await team.owner.api.get(`/v1/tasks?taskListId=${list.id}`), 200);
    assert.deepEqual(
      tasks.map((t: any) => t.id),
      [task.id],
    );
    assert.ok(expectStatus(await team.owner.api.get('/v1/lists'), 200).some((l: any) => l.id === list.id));
    assert.deepEqual(expectStatus(await team.owner.api.get('/v1/lists-without-members'), 200), []);
  });

  test('an admin finds and joins one too; archived lists are listed, and only lists without members, oldest first', async () => {
    const team = await createTestTeam(server);
    const admin = await team.member({ role: 'admin' });
    expectStatus(await team.owner.api.post('/v1/lists', { name: 'Shared' }), 201);
    const first = (await listLeftWithoutMembers(team, 'First')).list;
    const leaver = await team.member();
    const archived = expectStatus(await leaver.api.post('/v1/lists', { name: 'Old' }), 201);
    expectStatus(await leaver.api.post(`/v1/lists/${archived.id}/archive`), 200);
    expectStatus(await team.owner.api.delete(`/v1/members/${leaver.userId}`), 200);

    assert.deepEqual(expectStatus(await admin.api.get('/v1/lists-without-members'), 200), [
      first,
      { ...archived, isArchived: true },
    ]);
    expectStatus(await admin.api.post(`/v1/lists-without-members/${archived.id}/join`), 200);
    assert.equal(expectStatus(await admin.api.get(`/v1/lists/${archived.id}`), 200).isArchived, true);
    assert.deepEqual(expectStatus(await team.owner.api.get('/v1/lists-without-members'), 200), [first]);
  });

  test('a plain member is refused both with 403, and nothing changes', async () => {
    const team = await createTestTeam(server);
    const member = await team.member();
    const { list } = await listLeftWithoutMembers(team);
    const before = await snapshotDatabase(server.store.db);
    expectError(await member.api.get('/v1/lists-without-members'), 403, MANAGERS_ONLY);
    expectError(await member.api.post(`/v1/lists-without-members/${list.id}/join`), 403, MANAGERS_ONLY);
    assertUnchanged(before, await snapshotDatabase(server.store.db), "a plain member's refused requests");
    expectError(await member.api.get(`/v1/lists/${list.id}`), 403, 'You do not have access to this list.');
  });

  test('a list that has members cannot be joined this way: 409, nothing changes, and its rules still hold', async () => {
    const team = await createTestTeam(server);
    const member = await team.member();
    const guarded = expectStatus(await member.api.post('/v1/lists', { name: 'Not yours' }), 201);
    const before = await snapshotDatabase(server.store.db);
    expectError(
      await team.owner.api.post(`/v1/lists-without-members/${guarded.id}/join`),
      409,
      `List ${guarded.id} has members: ask one of them to add you.`,
    );
    assertUnchanged(before, await snapshotDatabase(server.store.db), 'a refused join');
    expectError(await team.owner.api.get(`/v1/lists/${guarded.id}`), 403, 'You do not have access to this list.');
    assert.deepEqual(expectStatus(await team.owner.api.get('/v1/lists-without-members'), 200), []);
  });

  test("another team's list without members is 404, exactly as a list that does not exist, and is never listed", async () => {
    const team = await createTestTeam(server);
    const other = await createTestTeam(server);
    const { list } = await listLeftWithoutMembers(other);
    const before = await snapshotDatabase(server.store.db);
    expectError(
      await team.owner.api.post(`/v1/lists-without-members/${list.id}/join`),
      404,
      `List ${list.id} not found.`,
    );
    expectError(
      await team.owner.api.post('/v1/lists-without-members/2147480001/join'),
      404,
      'List 2147480001 not found.',
    );
    expectError(
      await team.owner.api.post('/v1/lists-without-members/99999999999999999999/join'),
      404,
      'List 99999999999999999999 not found.',
    );
    expectError(await team.owner.api.post('/v1/lists-without-members/abc/join'), 400, 'listId must be a number.');
    assertUnchanged(before, await snapshotDatabase(server.store.db), 'refused joins');
    assert.deepEqual(expectStatus(await team.owner.api.get('/v1/lists-without-members'), 200), []);
  });

  test('of two managers joining the same list at the same moment, exactly one gets in; the other is told it has members', async () => {
    const team = await createTestTeam(server);
    const admin = await team.member({ role: 'admin' });
    const { list } = await listLeftWithoutMembers(team);
    const answers = await Promise.all(
      [team.owner, admin].map((who) => who.api.post(`/v1/lists-without-members/${list.id}/join`)),
    );
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 409], answers.map((a) => a.text).join('\n'));
    const inside = answers.findIndex((a) => a.status === 200);
    const members = expectStatus(await [team.owner, admin][inside]!.api.get(`/v1/lists/${list.id}/members`), 200);
    assert.equal(members.length, 1);
  });
});
