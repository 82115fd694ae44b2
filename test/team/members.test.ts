/**
 * Members managed by owners and admins: PATCH /v1/members/{userId} changes a role, DELETE removes
 * a member as `admin member remove` does. The team keeps an owner, also when two owners act on
 * each other at once; admins cannot touch owners; plain members cannot touch anyone. A removal
 * ends the member's keys, sessions and event streams at once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Browser, PASSWORD, setPassword, signIn } from '../browser.js';
import { createTestTeam, type Actor, type Team } from '../factories.js';
import { expectError, expectStatus, startTestServer, type TestServer } from '../harness.js';
import { closeAllStreams, openStream } from '../sse/stream.js';
import { together, type Sent } from '../together.js';
import { invite } from './support.js';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(async () => {
  await closeAllStreams();
  await server.close();
});

const MANAGERS_ONLY = "Only the team's owners and admins can manage members.";

const patchRole = (by: Actor, who: { userId: string }, role: string) =>
  by.api.patch(`/v1/members/${who.userId}`, { role });
const remove = (by: Actor, who: { userId: string }) => by.api.delete(`/v1/members/${who.userId}`);

async function rolesOf(team: Team): Promise<Record<string, string>> {
  const members = expectStatus(await team.owner.api.get('/v1/users'), 200) as { id: string; role: string }[];
  return Object.fromEntries(members.map((m) => [m.id, m.role]));
}

async function ownersOf(teamId: string): Promise<string[]> {
  const rows = await server.store.db
    .selectFrom('team_members')
    .select('user_id')
    .where('team_id', '=', teamId)
    .where('role', '=', 'owner')
    .execute();
  return rows.map((r) => r.user_id);
}

describe('PATCH /v1/members/{userId}', () => {
  test("an owner changes a member's role: the answer is the member as GET /v1/users shows them, and the next request sees the new role", async () => {
    const team = await createTestTeam(server);
    const member = await team.member({ name: 'Mia Member' });
    const answer = expectStatus(await patchRole(team.owner, member, 'admin'), 200);
    const listed = expectStatus(await team.owner.api.get('/v1/users'), 200).find(
      (m: { id: string }) => m.id === member.userId,
    );
    assert.deepEqual(answer, listed);
    assert.deepEqual(answer, { id: member.userId, name: 'Mia Member', email: member.email, role: 'admin' });
    assert.equal(expectStatus(await member.api.get('/v1/me'), 200).role, 'admin');
    // Now an admin, they may manage members themselves; back to member, they may not.
    const other = await team.member();
    expectStatus(await patchRole(member, other, 'admin'), 200);
    expectStatus(await patchRole(team.owner, member, 'member'), 200);
    expectError(await patchRole(member, other, 'member'), 403, MANAGERS_ONLY);
  });

  test('the same role again changes nothing and answers the member', async () => {
    const team = await createTestTeam(server);
    const member = await team.member();
    assert.equal(expectStatus(await patchRole(team.owner, member, 'member'), 200).role, 'member');
  });

  test('an admin changes members and admins, but cannot change an owner or make anyone an owner (403)', async () => {
    const team = await createTestTeam(server);
    const admin = await team.member({ role: 'admin' });
    const member = await team.member();
    const otherAdmin = await team.member({ role: 'admin' });
    expectStatus(await patchRole(admin, member, 'admin'), 200);
    expectStatus(await patchRole(admin, otherAdmin, 'member'), 200);
    expectError(await patchRole(admin, team.owner, 'member'), 403, 'Only an owner can change or remove an owner.');
    expectError(await patchRole(admin, member, 'owner'), 403, 'Only an owner can make someone an owner.');
    expectError(await patchRole(admin, admin, 'owner'), 403, 'Only an owner can make someone an owner.');
    const roles = await rolesOf(team);
    assert.equal(roles[team.owner.userId], 'owner');
    assert.equal(roles[member.userId], 'admin');
  });

  test('an owner makes another member an owner, and may then step down; the last owner cannot (409)', async () => {
    const team = await createTestTeam(server);
    const second = await team.member({ name: 'Second' });
    expectError(
      await patchRole(team.owner, team.owner, 'admin'),
      409,
      "You are the team's last owner: make another member an owner first.",
    );
    expectStatus(await patchRole(team.owner, second, 'owner'), 200);
    expectStatus(await patchRole(team.owner, team.owner, 'admin'), 200);
    expectError(await patchRole(team.owner, second, 'member'), 403, 'Only an owner can change or remove an owner.');
    expectError(
      await second.api.patch(`/v1/members/${second.userId}`, { role: 'member' }),
      409,
      "You are the team's last owner: make another member an owner first.",
    );
    assert.deepEqual(await ownersOf(team.id), [second.userId]);
  });

  test('a plain member gets 403; an unknown or another team’s user 404; a bad role or id 400', async () => {
    const team = await createTestTeam(server);
    const member = await team.member();
    const stranger = (await createTestTeam(server)).owner;
    expectError(await patchRole(member, team.owner, 'member'), 403, MANAGERS_ONLY);
    expectError(await patchRole(member, member, 'admin'), 403, MANAGERS_ONLY);
    expectError(
      await patchRole(team.owner, stranger, 'member'),
      404,
      `User ${stranger.userId} is not a member of this team.`,
    );
    // The other team's owner cannot reach into this team either.
    expectError(await patchRole(stranger, member, 'admin'), 404, `User ${member.userId} is not a member of this team.`);
    expectError(await patchRole(team.owner, member, 'boss'), 400, 'role must be one of: owner, admin, member.');
    expectError(
      await team.owner.api.patch('/v1/members/nope', { role: 'admin' }),
      400,
      'userId must be a user ID (UUID).',
    );
    expectError(await team.owner.api.patch(`/v1/members/${member.userId}`, {}), 400, 'role is required.');
    assert.equal((await rolesOf(team))[member.userId], 'member');
  });
});

describe('DELETE /v1/members/{userId}', () => {
  test('removes the member: {"id", "removed": true}; their list memberships and assignments go (the activity names who removed them)', async () => {
    const team = await createTestTeam(server);
    const leaver = await team.member({ name: 'Leaver' });
    const list = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Shared' }), 201);
    expectStatus(await team.owner.api.post(`/v1/lists/${list.id}/members`, { userId: leaver.userId }), 201);
    const task = expectStatus(
      await team.owner.api.post('/v1/tasks', { title: 'Theirs', assigneeIds: [leaver.userId] }),
      201,
    );
    assert.deepEqual(expectStatus(await remove(team.owner, leaver), 200), { id: leaver.userId, removed: true });
    assert.deepEqual(Object.keys(await rolesOf(team)), [team.owner.userId]);
    const listMembers = expectStatus(await team.owner.api.get(`/v1/lists/${list.id}/members`), 200);
    assert.deepEqual(
      listMembers.map((m: { id: string }) => m.id),
      [team.owner.userId],
    );
    assert.deepEqual(expectStatus(await team.owner.api.get(`/v1/tasks/${task.id}`), 200).assignees, []);
    const [entry] = expectStatus(await team.owner.api.get(`/v1/tasks/${task.id}/activity`), 200);
    assert.equal(entry.actor.id, team.owner.userId);
    assert.deepEqual(entry.changes.assignees.to, []);
    expectError(await remove(team.owner, leaver), 404, `User ${leaver.userId} is not a member of this team.`);
  });

  test("the removed member's key and session stop at once: 404 on GET /v1/me, 401 elsewhere", async () => {
    const team = await createTestTeam(server);
    const leaver = await team.member();
    await setPassword(server, leaver);
    const { browser } = await signIn(server, leaver.email);
    expectStatus(await browser.get('/auth/session'), 200);
    expectStatus(await remove(team.owner, leaver), 200);
    expectError(await leaver.api.get('/v1/me'), 404, 'Membership not found.');
    expectError(await leaver.api.get('/v1/lists'), 401);
    expectError(await browser.get('/auth/session'), 401);
    expectError(await browser.post('/v1/lists', { name: 'After' }, browser.csrf()), 401);
  });

  test("an open event stream of the removed member ends at once (not at the periodic recheck); the team's others keep theirs", async () => {
    const team = await createTestTeam(server);
    const leaver = await team.member();
    const stayer = await team.member();
    const leaving = await openStream(server, leaver.key, { label: 'leaver' });
    const staying = await openStream(server, stayer.key, { label: 'stayer' });
    assert.equal(leaving.status, 200);
    await leaving.waitForComment('connected');
    await staying.waitForComment('connected');
    expectStatus(await remove(team.owner, leaver), 200);
    // Within 2 s of the removal's commit, where the periodic recheck would take up to 5 s.
    await leaving.waitClosed(2_000);
    assert.equal(staying.ended, false);
    const again = await openStream(server, leaver.key, { label: 'reconnect' });
    assert.equal(again.status, 401);
    again.close();
    staying.close();
  });

  test('their webhooks in the team are disabled, saying why, and the invitations they made are revoked', async () => {
    const team = await createTestTeam(server);
    const leaver = await team.member({ role: 'admin' });
    const hook = expectStatus(await leaver.api.post('/v1/webhooks', { url: 'http://127.0.0.1:9/leaver' }), 201);
    const invitation = await invite(leaver);
    expectStatus(await remove(team.owner, leaver), 200);
    const [listed] = expectStatus(await team.owner.api.get('/v1/webhooks'), 200);
    assert.equal(listed.id, hook.id);
    assert.equal(listed.enabled, false);
    assert.equal(listed.disabledReason, 'Its owner is no longer a member of the team.');
    expectError(
      await new Browser(server.url).post('/auth/invitation', { token: invitation.token }),
      410,
      'This invitation was revoked.',
    );
  });

  test('an admin removes members and admins but not owners; a member may not; the last owner cannot be removed, even by themself', async () => {
    const team = await createTestTeam(server);
    const admin = await team.member({ role: 'admin' });
    const member = await team.member();
    const otherAdmin = await team.member({ role: 'admin' });
    expectError(await remove(member, otherAdmin), 403, MANAGERS_ONLY);
    expectError(await remove(admin, team.owner), 403, 'Only an owner can change or remove an owner.');
    expectError(
      await remove(team.owner, team.owner),
      409,
      "You are the team's last owner: make another member an owner first.",
    );
    expectStatus(await remove(admin, otherAdmin), 200);
    expectStatus(await remove(admin, member), 200);
    // An admin may leave by themself.
    expectStatus(await remove(admin, admin), 200);
    assert.deepEqual(Object.keys(await rolesOf(team)), [team.owner.userId]);
  });

  test('a removed member invited again joins with their account, and only then works again', async () => {
    const team = await createTestTeam(server);
    const leaver = await team.member();
    await setPassword(server, leaver);
    expectStatus(await remove(team.owner, leaver), 200);
    const again = await invite(team.owner, { role: 'member' });
    const browser = new Browser(server.url);
    const joined = expectStatus(
      await browser.post('/auth/accept-invitation', { token: again.token, email: leaver.email, password: PASSWORD }),
      200,
    );
    assert.equal(joined.user.id, leaver.userId);
    expectStatus(await leaver.api.get('/v1/me'), 200);
  });
});

describe('the last owner under concurrency', () => {
  const ROUNDS = 6;

  test('two owners demoting each other at the same moment: one succeeds, the other is refused, an owner remains', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const team = await createTestTeam(server);
      const second = await team.member({ role: 'owner' });
      const sent: Sent[] = [
        { method: 'PATCH', path: `/v1/members/${second.userId}`, key: team.owner.key, body: { role: 'admin' } },
        { method: 'PATCH', path: `/v1/members/${team.owner.userId}`, key: second.key, body: { role: 'member' } },
      ];
      const answers = await together(server.url, sent);
      const context = `round ${round}: ${answers.map((a) => `${a.status} ${a.text}`).join(' | ')}`;
      assert.deepEqual(answers.map((a) => a.status).sort(), [200, 403].sort(), context);
      assert.equal((await ownersOf(team.id)).length, 1, context);
    }
  });

  test('two owners removing each other at the same moment: one succeeds, an owner remains', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const team = await createTestTeam(server);
      const second = await team.member({ role: 'owner' });
      const sent: Sent[] = [
        { method: 'DELETE', path: `/v1/members/${second.userId}`, key: team.owner.key },
        { method: 'DELETE', path: `/v1/members/${team.owner.userId}`, key: second.key },
      ];
      const answers = await together(server.url, sent);
      const context = `round ${round}: ${answers.map((a) => `${a.status} ${a.text}`).join(' | ')}`;
      assert.equal(answers.filter((a) => a.status === 200).length, 1, context);
      assert.ok(
        answers.every((a) => [200, 401, 403].includes(a.status)),
        context,
      );
      assert.equal((await ownersOf(team.id)).length, 1, context);
    }
  });

  test('two owners each stepping down at the same moment: one does, the other is the last owner (409)', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const team = await createTestTeam(server);
      const second = await team.member({ role: 'owner' });
      const sent: Sent[] = [
        { method: 'PATCH', path: `/v1/members/${team.owner.userId}`, key: team.owner.key, body: { role: 'admin' } },
        { method: 'PATCH', path: `/v1/members/${second.userId}`, key: second.key, body: { role: 'admin' } },
      ];
      const answers = await together(server.url, sent);
      const context = `round ${round}: ${answers.map((a) => `${a.status} ${a.text}`).join(' | ')}`;
      assert.deepEqual(answers.map((a) => a.status).sort(), [200, 409], context);
      assert.equal((await ownersOf(team.id)).length, 1, context);
    }
  });
});
