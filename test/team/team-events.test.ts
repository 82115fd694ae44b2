/**
 * The team's name and its live events (issue 28): PATCH /v1/team renames the team (owners and
 * admins), and every change of the team, its members or its invitations reaches the event
 * streams at once: `team.updated` and `member.*` every member, `invitation.*` the owners and
 * admins only. None of them is a webhook event: a webhook of every type gets no delivery for them.
 *
 * "Does not receive" is checked without waiting on a clock: after the changes, a change every
 * member hears (a rename) follows, and the stream's next event must be that one.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestTeam, type Actor, type Team } from '../factories.js';
import { live } from '../events/support.js';
import { expectError, expectStatus, startTestServer, type TestServer } from '../harness.js';
import { closeAllStreams, type SseStream } from '../sse/stream.js';
import { snapshotDatabase } from '../snapshot.js';
import { accept, invite, newEmail } from './support.js';

let server: TestServer;
before(async () => {
  server = await startTestServer({ EVENTS_HEARTBEAT_SECONDS: '1' });
});
after(async () => {
  await closeAllStreams();
  await server.close();
});

const MANAGERS_ONLY = "Only the team's owners and admins can manage the team.";
const NAME_RULE = 'name must be a string of 1 to 200 characters with at least one non-whitespace character.';

/** An event as a line: its type and its data. */
const line = (event: { type: string; data: string }) => `${event.type} ${event.data}`;

let renames = 0;
/** Renames the team (a change every member hears) and returns the line its event makes. */
async function marker(team: Team): Promise<string> {
  const name = `Marker ${++renames}`;
  expectStatus(await team.owner.api.patch('/v1/team', { name }), 200);
  return `team.updated ${JSON.stringify({ teamId: team.id })}`;
}

/** The stream's events up to and including the marker's, as lines. */
async function untilMarker(stream: SseStream, markerLine: string): Promise<string[]> {
  const events = await stream.collectUntil((event) => line(event) === markerLine, 5_000, markerLine);
  return events.map(line);
}

const member = (type: string, userId: string) => `${type} ${JSON.stringify({ userId })}`;
const invitation = (type: string, invitationId: string) => `${type} ${JSON.stringify({ invitationId })}`;

describe('PATCH /v1/team', () => {
  test('an owner renames the team: the answer is the team as GET /v1/me shows it, and GET /v1/me shows the new name', async () => {
    const team = await createTestTeam(server);
    const answer = expectStatus(await team.owner.api.patch('/v1/team', { name: 'Rocket crew' }), 200);
    assert.deepEqual(answer, { id: team.id, name: 'Rocket crew' });
    assert.deepEqual(expectStatus(await team.owner.api.get('/v1/me'), 200).team, answer);
  });

  test('an admin may rename the team; a plain member gets 403 and nothing changes', async () => {
    const team = await createTestTeam(server);
    const admin = await team.member({ role: 'admin' });
    const plain = await team.member();
    expectStatus(await admin.api.patch('/v1/team', { name: 'By the admin' }), 200);
    const before = await snapshotDatabase(server.store.db);
    expectError(await plain.api.patch('/v1/team', { name: 'By a member' }), 403, MANAGERS_ONLY);
    assert.deepEqual(await snapshotDatabase(server.store.db), before);
    assert.equal(expectStatus(await plain.api.get('/v1/me'), 200).team.name, 'By the admin');
  });

  test('a name must have 1 to 200 characters, not all whitespace; bad bodies are 400 and change nothing', async () => {
    const team = await createTestTeam(server);
    const before = await snapshotDatabase(server.store.db);
    for (const body of [{ name: '' }, { name: '   ' }, { name: 'x'.repeat(201) }, { name: 7 }, {}] as {
      name?: unknown;
    }[]) {
      const response = await team.owner.api.patch('/v1/team', body);
      expectError(response, 400);
      assert.deepEqual(Object.keys(response.body), ['error'], JSON.stringify(body));
      if (typeof body.name === 'string' && body.name.length <= 200) assert.equal(response.body.error, NAME_RULE);
    }
    assert.deepEqual(await snapshotDatabase(server.store.db), before);
    // Code points, as for a list's name: 200 emoji fit.
    expectStatus(await team.owner.api.patch('/v1/team', { name: '🚀'.repeat(200) }), 200);
  });

  test('every member hears team.updated {"teamId"}; the same name again sends nothing; another team hears nothing', async () => {
    const team = await createTestTeam(server);
    const plain = await team.member();
    const other = await createTestTeam(server);
    const streams = { owner: await live(server, team.owner, 'owner'), plain: await live(server, plain, 'member') };
    const otherStream = await live(server, other.owner, 'other team');
    expectStatus(await team.owner.api.patch('/v1/team', { name: 'Renamed' }), 200);
    const renamed = `team.updated ${JSON.stringify({ teamId: team.id })}`;
    for (const stream of Object.values(streams)) assert.equal(line(await stream.next()), renamed, stream.label);
    // The same name: no event, so the next one each stream gets is the marker's.
    expectStatus(await team.owner.api.patch('/v1/team', { name: 'Renamed' }), 200);
    const next = await marker(team);
    for (const stream of Object.values(streams)) assert.deepEqual(await untilMarker(stream, next), [next]);
    const otherNext = await marker(other);
    assert.deepEqual(await untilMarker(otherStream, otherNext), [otherNext]);
  });
});

describe('member and invitation events', () => {
  test('an invitation accepted: every member hears member.joined, only owners and admins hear invitation.created and invitation.accepted', async () => {
    const team = await createTestTeam(server);
    const admin = await team.member({ role: 'admin' });
    const plain = await team.member();
    const streams = {
      owner: await live(server, team.owner, 'owner'),
      admin: await live(server, admin, 'admin'),
      plain: await live(server, plain, 'member'),
    };
    const made = await invite(team.owner);
    const { response } = await accept(server, {
      token: made.token,
      name: 'Nia Newcomer',
      email: newEmail(),
      password: 'a new password',
    });
    const newcomer = expectStatus(response, 200).user.id as string;
    const next = await marker(team);
    const managers = [
      invitation('invitation.created', made.id),
      member('member.joined', newcomer),
      invitation('invitation.accepted', made.id),
      next,
    ];
    assert.deepEqual(await untilMarker(streams.owner, next), managers);
    assert.deepEqual(await untilMarker(streams.admin, next), managers);
    assert.deepEqual(await untilMarker(streams.plain, next), [member('member.joined', newcomer), next]);
  });

  test('a role change is member.updated to every member; the links a demotion revokes are invitation.revoked to owners and admins', async () => {
    const team = await createTestTeam(server);
    const admin = await team.member({ role: 'admin' });
    const plain = await team.member();
    const link = await invite(admin, { role: 'admin' });
    const owner = await live(server, team.owner, 'owner');
    const plainStream = await live(server, plain, 'member');
    expectStatus(await team.owner.api.patch(`/v1/members/${admin.userId}`, { role: 'member' }), 200);
    const next = await marker(team);
    assert.deepEqual(await untilMarker(owner, next), [
      member('member.updated', admin.userId),
      invitation('invitation.revoked', link.id),
      next,
    ]);
    assert.deepEqual(await untilMarker(plainStream, next), [member('member.updated', admin.userId), next]);
  });

  test('the same role again sends nothing', async () => {
    const team = await createTestTeam(server);
    const plain = await team.member();
    const stream = await live(server, plain, 'member');
    expectStatus(await team.owner.api.patch(`/v1/members/${plain.userId}`, { role: 'member' }), 200);
    const next = await marker(team);
    assert.deepEqual(await untilMarker(stream, next), [next]);
  });

  test('a removal is member.removed to the members who stay, with invitation.revoked for the links the leaver made', async () => {
    const team = await createTestTeam(server);
    const leaver: Actor = await team.member({ role: 'admin' });
    const stayer = await team.member();
    const link = await invite(leaver);
    const owner = await live(server, team.owner, 'owner');
    const stayerStream = await live(server, stayer, 'member');
    expectStatus(await team.owner.api.delete(`/v1/members/${leaver.userId}`), 200);
    const next = await marker(team);
    assert.deepEqual(await untilMarker(owner, next), [
      member('member.removed', leaver.userId),
      invitation('invitation.revoked', link.id),
      next,
    ]);
    assert.deepEqual(await untilMarker(stayerStream, next), [member('member.removed', leaver.userId), next]);
  });

  test('DELETE /v1/invitations/{id} is invitation.revoked to owners and admins, not to members; revoking it again sends nothing', async () => {
    const team = await createTestTeam(server);
    const plain = await team.member();
    const link = await invite(team.owner);
    const owner = await live(server, team.owner, 'owner');
    const plainStream = await live(server, plain, 'member');
    expectStatus(await team.owner.api.delete(`/v1/invitations/${link.id}`), 200);
    expectStatus(await team.owner.api.delete(`/v1/invitations/${link.id}`), 200);
    const next = await marker(team);
    assert.deepEqual(await untilMarker(owner, next), [invitation('invitation.revoked', link.id), next]);
    assert.deepEqual(await untilMarker(plainStream, next), [next]);
  });

  test('the team events are no webhook events: a webhook of every type gets deliveries for a task, none for them', async () => {
    const team = await createTestTeam(server);
    expectStatus(await team.owner.api.post('/v1/webhooks', { url: 'http://127.0.0.1:9/team-events' }), 201);
    const plain = await team.member();
    expectStatus(await team.owner.api.patch('/v1/team', { name: 'Hooked' }), 200);
    expectStatus(await team.owner.api.patch(`/v1/members/${plain.userId}`, { role: 'admin' }), 200);
    const link = await invite(team.owner);
    expectStatus(await team.owner.api.delete(`/v1/invitations/${link.id}`), 200);
    expectStatus(await team.owner.api.post('/v1/tasks', { title: 'Hooked task' }), 201);
    const rows = await server.store.db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
      .select('d.type')
      .where('w.team_id', '=', team.id)
      .execute();
    assert.deepEqual(
      rows.map((r) => r.type),
      ['task.created'],
    );
  });

  test('eventTypes of a webhook does not accept a team event type (400)', async () => {
    const team = await createTestTeam(server);
    const response = await team.owner.api.post('/v1/webhooks', {
      url: 'http://127.0.0.1:9/team-events',
      eventTypes: ['member.joined'],
    });
    expectError(response, 400);
  });
});
