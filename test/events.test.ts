/**
 * Realtime events (CONTRACT.md, "Realtime events"), end to end: real SSE streams against the
 * running server, opened as several users of two teams while others change lists and tasks.
 *
 * - every mutating endpoint emits its event once, after commit; failed requests emit nothing
 * - no leaks: a stream gets only what its user may read, only of its own team, ids only
 * - resume with Last-Event-ID (also while events are being written), retention, sync.required
 * - heartbeats, credential recheck (revoked key, removed member), list-member add/remove
 * - back-pressure: a client that stops reading is cut off, the others keep everything
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { insertKey, revokeKey } from '../src/keys/keys.repository.js';
import { pruneEvents, recordEvent } from '../src/changes/outbox.js';
import { committedChanges } from '../src/changes/publisher.js';
import { deleteMember, upsertMember } from '../src/team/teams.repository.js';
import { createTestTeam, type Actor } from './factories.js';
import { expectStatus, startTestServer, type Client, type Response, type TestServer } from './harness.js';
import { closeAllStreams, latestSeq, openStream, show, type SseEvent, type SseStream } from './sse-client.js';

/** Every test is bounded; the waits inside are shorter still. */
const TIMEOUT = { timeout: 30_000 };

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

interface Person {
  userId: string;
  teamId: string;
  key: string;
  keyId: string;
  api: Client;
}

/**
 * A stream that starts exactly at the team's current newest event: it resumes from it, so every
 * later event is delivered however soon the test changes something.
 */
async function live(server: TestServer, who: Person, label: string): Promise<SseStream> {
  const stream = await openStream(server, who.key, { lastEventId: String(await latestSeq(server, who.teamId)), label });
  assert.equal(stream.status, 200, `${label}: ${stream.status} ${stream.body}`);
  return stream;
}

/** Gives an existing user membership of another team, and a key there. */
async function joinTeam(server: TestServer, user: Actor, teamId: string): Promise<Person> {
  await upsertMember(server.store.db, teamId, user.userId, 'member');
  const { record: row, key } = await insertKey(server.store.db, { teamId, userId: user.userId, name: 'second team' });
  return { userId: user.userId, teamId, key, keyId: row.id, api: server.client(key) };
}

/** Asserts the shape every event must have: an increasing id and `data` that holds one id only. */
function checkShape(stream: SseStream, events: SseEvent[], after = 0): void {
  let previous = after;
  for (const event of events) {
    assert.match(event.id ?? '', /^\d+$/, `${stream.label}: event without a numeric id: ${JSON.stringify(event)}`);
    assert.ok(Number(event.id) > previous, `${stream.label}: ids must increase (${previous} then ${event.id})`);
    previous = Number(event.id);
    const data = JSON.parse(event.data);
    const key = event.type.startsWith('taskList.') ? 'listId' : 'taskId';
    assert.deepEqual(Object.keys(data), [key], `${stream.label}: data must hold only ${key}: ${event.data}`);
    assert.equal(typeof data[key], 'number');
  }
}

/**
 * Writes `count` events for the team straight into the outbox (as recordEvent does, in bulk),
 * addressed to `recipients`, then wakes the hub. Returns the first and last ids.
 */
async function bulkEvents(
  server: TestServer,
  teamId: string,
  count: number,
  recipients: string[],
): Promise<{ first: number; last: number }> {
  const range = await server.store.transaction(async (trx) => {
    const row = await trx
      .updateTable('teams')
      .set((eb) => ({ event_counter: eb('event_counter', '+', count) }))
      .where('id', '=', teamId)
      .returning('event_counter')
      .executeTakeFirstOrThrow();
    const last = Number(row.event_counter);
    const first = last - count + 1;
    const createdAt = new Date().toISOString();
    for (let from = first; from <= last; from += 1_000) {
      const rows = [];
      for (let seq = from; seq <= Math.min(last, from + 999); seq++) {
        rows.push({
          team_id: teamId,
          seq,
          type: 'task.updated',
          data: JSON.stringify({ taskId: seq }),
          created_at: createdAt,
        });
      }
      await trx.insertInto('events').values(rows).execute();
    }
    for (const userId of recipients) {
      await trx
        .insertInto('event_recipients')
        .columns(['event_id', 'user_id'])
        .expression(
          trx
            .selectFrom('events')
            .select(['id', sql<string>`cast(${userId} as text)`.as('user_id')])
            .where('team_id', '=', teamId)
            .where('seq', '>=', first)
            .where('seq', '<=', last),
        )
        .execute();
    }
    return { first, last };
  });
  committedChanges.publish({ teamId });
  return range;
}

/** Asserts the events' ids are exactly from..to, each once, in order (naming the first problems). */
function assertContiguous(label: string, events: SseEvent[], from: number, to: number): void {
  const problems: string[] = [];
  let expected = from;
  for (const event of events) {
    const id = Number(event.id);
    if (event.type === 'sync.required') problems.push(`unexpected sync.required (id ${id})`);
    else if (id < expected) problems.push(`id ${id} again (or out of order) after ${expected - 1}`);
    else if (id > expected) problems.push(`ids ${expected}..${id - 1} missing (got ${id} after ${expected - 1})`);
    if (problems.length >= 5) break;
    expected = Math.max(expected, id + 1);
  }
  if (expected !== to + 1) problems.push(`stream stopped at ${expected - 1}, expected up to ${to}`);
  assert.deepEqual(problems, [], `${label}: ${events.length} events for ids ${from}..${to}`);
}

async function waitUntil(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await sleep(20);
  }
}

const created = (response: Response) => expectStatus(response, 201);
const ok = (response: Response) => expectStatus(response, 200);

// ---------------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------------

describe('realtime events (GET /v1/events)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ EVENTS_HEARTBEAT_SECONDS: '1' });
  });
  after(async () => {
    closeAllStreams();
    await server.close();
  });

  test('streams of two teams each get exactly the events their user may read, in order, once', TIMEOUT, async () => {
    const teamA = await createTestTeam(server);
    const teamB = await createTestTeam(server);
    const o = teamA.owner;
    const [m1, m2, m3, x] = [await teamA.member(), await teamA.member(), await teamA.member(), await teamA.member()];
    const p = teamB.owner;
    const xb = await joinTeam(server, x, teamB.id); // x is in both teams; xb is x's key of team B

    const people: Record<string, Person> = { o, m1, m2, m3, x, p, xb };
    const streams = new Map<string, { who: Person; stream: SseStream; expected: string[] }>();
    const labelled: [string, Person][] = [...Object.entries(people), ['m1 again', m1]];
    for (const [label, who] of labelled) {
      streams.set(label, { who, stream: await live(server, who, label), expected: [] });
    }
    /** Records that `event` must reach the streams of these users in this team, and no other. */
    const expect = (teamId: string, event: string, users: Person[]) => {
      for (const { who, expected } of streams.values()) {
        if (who.teamId === teamId && users.some((u) => u.userId === who.userId)) expected.push(event);
      }
    };
    const A = teamA.id;
    const B = teamB.id;

    const l1 = created(await o.api.post('/v1/lists', { name: 'L1' })).id;
    expect(A, `taskList.created ${l1}`, [o]);
    created(await o.api.post(`/v1/lists/${l1}/members`, { userId: m1.userId }));
    expect(A, `taskList.updated ${l1}`, [o, m1]);
    created(await o.api.post(`/v1/lists/${l1}/members`, { userId: x.userId }));
    expect(A, `taskList.updated ${l1}`, [o, m1, x]);
    ok(await o.api.post(`/v1/lists/${l1}/members`, { userId: m1.userId })); // already a member: no change
    const l2 = created(await o.api.post('/v1/lists', { name: 'L2' })).id;
    expect(A, `taskList.created ${l2}`, [o]);

    const t1 = created(await o.api.post('/v1/tasks', { title: 'T1', taskListIds: [l1] })).id;
    expect(A, `task.created ${t1}`, [o, m1, x]);
    const t2 = created(await o.api.post('/v1/tasks', { title: 'T2', taskListIds: [l2], assigneeIds: [m2.userId] })).id;
    expect(A, `task.created ${t2}`, [o, m2]);
    const t3 = created(await o.api.post('/v1/tasks', { title: 'T3' })).id;
    expect(A, `task.created ${t3}`, [o]);
    ok(await o.api.patch(`/v1/tasks/${t1}`, { title: 'T1 renamed' }));
    expect(A, `task.updated ${t1}`, [o, m1, x]);
    // m2 loses the task and m3 gains it: readers before and after hear of it.
    ok(await o.api.patch(`/v1/tasks/${t2}`, { assigneeIds: [m3.userId] }));
    expect(A, `task.updated ${t2}`, [o, m2, m3]);
    ok(await m3.api.patch(`/v1/tasks/${t2}`, { priority: null, description: 'by m3' }));
    expect(A, `task.updated ${t2}`, [o, m3]);
    ok(await o.api.patch(`/v1/lists/${l1}`, { name: 'L1 renamed' }));
    expect(A, `taskList.updated ${l1}`, [o, m1, x]);
    ok(await o.api.post(`/v1/lists/${l1}/archive`));
    expect(A, `taskList.archived ${l1}`, [o, m1, x]);
    // While L1 is archived its members cannot read T1: only its creator hears of changes.
    ok(await o.api.patch(`/v1/tasks/${t1}`, { title: 'T1 while archived' }));
    expect(A, `task.updated ${t1}`, [o]);
    ok(await o.api.post(`/v1/lists/${l1}/unarchive`));
    expect(A, `taskList.unarchived ${l1}`, [o, m1, x]);
    const t4 = created(await o.api.post('/v1/tasks', { title: 'T4', parentId: t1, taskListIds: [l2] })).id;
    expect(A, `task.created ${t4}`, [o]);
    ok(await o.api.delete(`/v1/tasks/${t1}`));
    expect(A, `task.deleted ${t1}`, [o, m1, x]);
    expect(A, `task.updated ${t4}`, [o]); // the subtask became a top-level task
    ok(await o.api.delete(`/v1/lists/${l1}/members/${m1.userId}`));
    expect(A, `taskList.updated ${l1}`, [o, m1, x]); // m1's last event of L1
    ok(await o.api.patch(`/v1/lists/${l1}`, { color: 'Blue' }));
    expect(A, `taskList.updated ${l1}`, [o, x]);
    const t5 = created(await m1.api.post('/v1/tasks', { title: 'by m1', assigneeIds: [m2.userId] })).id;
    expect(A, `task.created ${t5}`, [m1, m2]);
    const t6 = created(await x.api.post('/v1/tasks', { title: 'by x', taskListIds: [l1] })).id;
    expect(A, `task.created ${t6}`, [o, x]);

    // Team B: x is a recipient there too, but only x's team-B stream may hear of it.
    const b1 = created(await p.api.post('/v1/lists', { name: 'B1' })).id;
    expect(B, `taskList.created ${b1}`, [p]);
    created(await p.api.post(`/v1/lists/${b1}/members`, { userId: x.userId }));
    expect(B, `taskList.updated ${b1}`, [p, xb]);
    const bt = created(await p.api.post('/v1/tasks', { title: 'B task', taskListIds: [b1] })).id;
    expect(B, `task.created ${bt}`, [p, xb]);
    ok(await xb.api.patch(`/v1/tasks/${bt}`, { title: 'B task by x' }));
    expect(B, `task.updated ${bt}`, [p, xb]);

    // A last private task per person and team: once a stream has it, it has everything before.
    const sentinels = new Map<Person, string>();
    for (const who of Object.values(people)) {
      const id = created(await who.api.post('/v1/tasks', { title: 'sentinel' })).id;
      sentinels.set(who, `task.created ${id}`);
      expect(who.teamId, `task.created ${id}`, [who]);
    }

    for (const [label, { who, stream, expected }] of streams) {
      const sentinel = sentinels.get(who)!;
      const events = await stream.collectUntil((e) => show(e) === sentinel, 5_000);
      checkShape(stream, events);
      assert.deepEqual(events.map(show), expected, `${label} got the wrong events`);
    }
    await sleep(300);
    for (const { stream } of streams.values()) stream.expectNothingPending();
    closeAllStreams();

    // Both teams were new: replaying from 0 must give each person exactly what the live stream did.
    for (const [label, { who, stream, expected }] of streams) {
      if (label === 'm1 again') continue;
      const replay = await openStream(server, who.key, { lastEventId: '0', label: `${label} from 0` });
      const events = await replay.collectUntil((e) => show(e) === sentinels.get(who), 5_000);
      checkShape(replay, events);
      assert.deepEqual(events.map(show), expected, `${replay.label} differs from ${stream.label}`);
      assert.deepEqual(
        events.map((e) => e.id),
        stream.events.map((e) => e.id),
      );
      replay.close();
    }
  });

  test('an event is sent only after its change is committed: the recipient can already read it', TIMEOUT, async () => {
    const team = await createTestTeam(server);
    const o = team.owner;
    const m = await team.member();
    const stream = await live(server, m, 'member');
    const list = created(await o.api.post('/v1/lists', { name: 'Visible' })).id;

    /** Starts the request, and checks what `m` can read the moment the event arrives. */
    async function onEvent(
      request: Promise<{ status: number }>,
      expected: string,
      check: () => Promise<void>,
    ): Promise<void> {
      const event = await stream.next(5_000);
      assert.equal(show(event), expected);
      await check();
      assert.ok((await request).status < 300);
    }

    await onEvent(
      o.api.post(`/v1/lists/${list}/members`, { userId: m.userId }),
      `taskList.updated ${list}`,
      async () => {
        ok(await m.api.get(`/v1/lists/${list}`));
      },
    );
    const createTask = o.api.post('/v1/tasks', { title: 'First', taskListIds: [list] });
    const taskEvent = await stream.next(5_000);
    assert.equal(taskEvent.type, 'task.created');
    const taskId = JSON.parse(taskEvent.data).taskId;
    assert.equal(ok(await m.api.get(`/v1/tasks/${taskId}`)).title, 'First');
    assert.equal(created(await createTask).id, taskId);

    await onEvent(o.api.patch(`/v1/tasks/${taskId}`, { title: 'Second' }), `task.updated ${taskId}`, async () => {
      assert.equal(ok(await m.api.get(`/v1/tasks/${taskId}`)).title, 'Second');
    });
    await onEvent(o.api.patch(`/v1/lists/${list}`, { name: 'Renamed' }), `taskList.updated ${list}`, async () => {
      assert.equal(ok(await m.api.get(`/v1/lists/${list}`)).name, 'Renamed');
    });
    await onEvent(o.api.post(`/v1/lists/${list}/archive`), `taskList.archived ${list}`, async () => {
      assert.equal(ok(await m.api.get(`/v1/lists/${list}`)).isArchived, true);
    });
    await onEvent(o.api.post(`/v1/lists/${list}/unarchive`), `taskList.unarchived ${list}`, async () => {
      assert.equal(ok(await m.api.get(`/v1/lists/${list}`)).isArchived, false);
    });
    await onEvent(o.api.delete(`/v1/tasks/${taskId}`), `task.deleted ${taskId}`, async () => {
      assert.equal((await m.api.get(`/v1/tasks/${taskId}`)).status, 404);
    });
    const other = created(await o.api.post('/v1/lists', { name: 'Other' })).id;
    await onEvent(
      o.api.post(`/v1/lists/${other}/members`, { userId: m.userId }),
      `taskList.updated ${other}`,
      async () => {
        ok(await m.api.get(`/v1/lists/${other}`));
      },
    );
    await onEvent(o.api.delete(`/v1/lists/${other}/members/${m.userId}`), `taskList.updated ${other}`, async () => {
      assert.equal((await m.api.get(`/v1/lists/${other}`)).status, 403);
    });
    await stream.expectNothingFor(200);
    stream.close();
  });

  test('failed or rejected requests (400, 403, 404, 412) emit nothing', TIMEOUT, async () => {
    const team = await createTestTeam(server);
    const stranger = (await createTestTeam(server)).owner;
    const o = team.owner;
    const m = await team.member();
    const outsider = await team.member(); // in the team, but in no list and on no task
    const list = created(await o.api.post('/v1/lists', { name: 'L' })).id;
    created(await o.api.post(`/v1/lists/${list}/members`, { userId: m.userId }));
    const solo = created(await o.api.post('/v1/lists', { name: 'Solo' })).id;
    const task = created(await o.api.post('/v1/tasks', { title: 'T', taskListIds: [list] })).id;

    const streams = [
      await live(server, o, 'owner'),
      await live(server, m, 'member'),
      await live(server, outsider, 'outsider'),
    ];
    const before = await latestSeq(server, team.id);

    const attempts: [Promise<{ status: number; text: string }>, number][] = [
      [o.api.post('/v1/lists', {}), 400],
      [o.api.post('/v1/lists', { name: 'x', color: 'Magenta' }), 400],
      [outsider.api.patch(`/v1/lists/${list}`, { name: 'mine now' }), 403],
      [outsider.api.post(`/v1/lists/${list}/archive`), 403],
      [outsider.api.post(`/v1/lists/${list}/members`, { userId: outsider.userId }), 403],
      [o.api.patch('/v1/lists/999999', { name: 'missing' }), 404],
      [o.api.post('/v1/lists/999999/archive'), 404],
      [o.api.patch(`/v1/lists/${list}`, { name: 'stale' }, { 'if-match': '"v999"' }), 412],
      [o.api.post(`/v1/lists/${list}/members`, { userId: stranger.userId }), 400],
      [o.api.post(`/v1/lists/${list}/members`, { userId: 'not-a-uuid' }), 400],
      [o.api.delete(`/v1/lists/${solo}/members/${o.userId}`), 400], // a list keeps one member
      [o.api.delete(`/v1/lists/${list}/members/${outsider.userId}`), 404],
      [o.api.post('/v1/tasks', { title: '' }), 400],
      [o.api.post('/v1/tasks', { title: 'x', assigneeIds: [stranger.userId] }), 400],
      [outsider.api.post('/v1/tasks', { title: 'x', taskListIds: [list] }), 400],
      [outsider.api.patch(`/v1/tasks/${task}`, { title: 'mine' }), 403],
      [o.api.patch(`/v1/tasks/${task}`, { taskStatusId: 999999 }), 400],
      [o.api.patch(`/v1/tasks/${task}`, { title: 'stale' }, { 'if-match': '"v999"' }), 412],
      [o.api.patch('/v1/tasks/999999', { title: 'missing' }), 404],
      [outsider.api.delete(`/v1/tasks/${task}`), 403],
      [o.api.delete(`/v1/tasks/${task}`, { 'if-match': '"v999"' }), 412],
      [o.api.delete('/v1/tasks/999999'), 404],
      [stranger.api.delete(`/v1/tasks/${task}`), 404],
    ];
    for (const [request, status] of attempts) {
      const response = await request;
      assert.equal(response.status, status, response.text);
    }
    assert.equal(await latestSeq(server, team.id), before, 'a failed request recorded an event');

    for (const [stream, who] of [
      [streams[0]!, o],
      [streams[1]!, m],
      [streams[2]!, outsider],
    ] as const) {
      const id = created(await who.api.post('/v1/tasks', { title: 'sentinel' })).id;
      assert.deepEqual((await stream.collectUntil((e) => show(e) === `task.created ${id}`)).map(show), [
        `task.created ${id}`,
      ]);
    }
    closeAllStreams();
  });

  test('a list member added through the API hears of the list; a removed one gets a last event', TIMEOUT, async () => {
    const team = await createTestTeam(server);
    const o = team.owner;
    const newcomer = await team.member();
    const stream = await live(server, newcomer, 'newcomer');
    const list = created(await o.api.post('/v1/lists', { name: 'Shared later' })).id;
    const early = created(await o.api.post('/v1/tasks', { title: 'before joining', taskListIds: [list] })).id;

    created(await o.api.post(`/v1/lists/${list}/members`, { userId: newcomer.userId }));
    assert.equal(show(await stream.next()), `taskList.updated ${list}`);
    // From now on the list's task changes reach the newcomer.
    ok(await o.api.patch(`/v1/tasks/${early}`, { title: 'after joining' }));
    assert.equal(show(await stream.next()), `task.updated ${early}`);

    ok(await o.api.delete(`/v1/lists/${list}/members/${newcomer.userId}`));
    assert.equal(show(await stream.next()), `taskList.updated ${list}`);
    ok(await o.api.patch(`/v1/lists/${list}`, { name: 'Private again' }));
    ok(await o.api.patch(`/v1/tasks/${early}`, { title: 'gone for the newcomer' }));
    created(await o.api.post('/v1/tasks', { title: 'new', taskListIds: [list] }));
    const sentinel = created(await newcomer.api.post('/v1/tasks', { title: 'sentinel' })).id;
    assert.equal(show(await stream.next()), `task.created ${sentinel}`);
    await stream.expectNothingFor(200);
    stream.close();
  });

  test(
    'resuming with Last-Event-ID replays exactly what was missed, in order, then continues live',
    TIMEOUT,
    async () => {
      const team = await createTestTeam(server);
      const o = team.owner;
      const m = await team.member();
      const list = created(await o.api.post('/v1/lists', { name: 'L' })).id;
      created(await o.api.post(`/v1/lists/${list}/members`, { userId: m.userId }));

      const first = await live(server, m, 'first connection');
      const seen: SseEvent[] = [];
      for (const title of ['a', 'b', 'c']) {
        const id = created(await o.api.post('/v1/tasks', { title, taskListIds: [list] })).id;
        const event = await first.next();
        assert.equal(show(event), `task.created ${id}`);
        seen.push(event);
      }
      first.close();

      // While m is away: some changes m may read, some it may not.
      const missed: string[] = [];
      const t = created(await o.api.post('/v1/tasks', { title: 'd', taskListIds: [list] })).id;
      missed.push(`task.created ${t}`);
      created(await o.api.post('/v1/tasks', { title: 'private' }));
      ok(await o.api.patch(`/v1/tasks/${t}`, { title: 'd2' }));
      missed.push(`task.updated ${t}`);
      const other = created(await o.api.post('/v1/lists', { name: 'Other' })).id;
      created(await o.api.post(`/v1/lists/${other}/members`, { userId: m.userId }));
      missed.push(`taskList.updated ${other}`);
      ok(await o.api.delete(`/v1/tasks/${t}`));
      missed.push(`task.deleted ${t}`);

      const resumed = await openStream(server, m.key, { lastEventId: seen[2]!.id, label: 'resumed' });
      assert.equal(resumed.status, 200);
      const replay = [await resumed.next(), await resumed.next(), await resumed.next(), await resumed.next()];
      checkShape(resumed, replay, Number(seen[2]!.id));
      assert.deepEqual(replay.map(show), missed);
      await resumed.expectNothingFor(200);
      const liveTask = created(await o.api.post('/v1/tasks', { title: 'live', taskListIds: [list] })).id;
      const liveEvent = await resumed.next();
      assert.equal(show(liveEvent), `task.created ${liveTask}`);
      assert.ok(Number(liveEvent.id) > Number(replay[3]!.id));

      // From an older id: the rest of what the first connection saw, then the same replay, once each.
      const fromMiddle = await openStream(server, m.key, { lastEventId: seen[0]!.id, label: 'from the middle' });
      const again = await fromMiddle.collectUntil((e) => e.id === liveEvent.id);
      checkShape(fromMiddle, again, Number(seen[0]!.id));
      assert.deepEqual(
        again.map((e) => `${e.id} ${show(e)}`),
        [seen[1]!, seen[2]!, ...replay, liveEvent].map((e) => `${e.id} ${show(e)}`),
      );

      // From the newest id: nothing to replay, live continues.
      const upToDate = await openStream(server, m.key, { lastEventId: liveEvent.id, label: 'up to date' });
      await upToDate.expectNothingFor(200);
      ok(await o.api.patch(`/v1/lists/${list}`, { name: 'L2' }));
      assert.equal(show(await upToDate.next()), `taskList.updated ${list}`);
      assert.equal(show(await fromMiddle.next()), `taskList.updated ${list}`);
      assert.equal(show(await resumed.next()), `taskList.updated ${list}`);
      for (const stream of [resumed, fromMiddle, upToDate]) {
        await stream.expectNothingFor(100);
        stream.close();
      }
    },
  );

  test('resuming while events are being written loses and repeats nothing', TIMEOUT, async () => {
    const team = await createTestTeam(server);
    const m = await team.member();
    let writing = true;
    let written = 0;
    const writer = (async () => {
      while (writing) {
        await server.store.transaction((trx) =>
          recordEvent(server.store, trx, {
            teamId: team.id,
            type: 'task.updated',
            data: { taskId: ++written },
            audience: [m.userId],
          }),
        );
        if (written % 3 === 0) await sleep(1);
      }
    })();
    const resumes: { from: number; stream: SseStream }[] = [];
    try {
      for (let i = 0; i < 20; i++) {
        await sleep(40);
        const from = Math.max(0, (await latestSeq(server, team.id)) - 1 - (i % 4) * 5);
        resumes.push({
          from,
          stream: await openStream(server, m.key, { lastEventId: String(from), label: `resume ${i}` }),
        });
      }
      await sleep(100);
    } finally {
      writing = false;
      await writer;
    }
    const last = await latestSeq(server, team.id);
    for (const { from, stream } of resumes) {
      const events = await stream.collectUntil((e) => e.id === String(last), 5_000);
      assertContiguous(stream.label, events, from + 1, last);
      stream.close();
    }
  });

  test('retention: 1000+ recent events replay; older than the window gives sync.required', TIMEOUT, async () => {
    const team = await createTestTeam(server);
    const m = await team.member();
    const base = await latestSeq(server, team.id);
    await server.store.transaction(async (trx) => {
      for (let i = 1; i <= 1_100; i++) {
        await recordEvent(server.store, trx, {
          teamId: team.id,
          type: 'task.updated',
          data: { taskId: i },
          audience: [m.userId],
        });
      }
    });
    const latest = base + 1_100;
    assert.equal(await latestSeq(server, team.id), latest);

    // Recent events are kept even beyond 1000: all 1100 replay.
    await pruneEvents(server.store.db);
    const all = await openStream(server, m.key, { lastEventId: String(base), label: 'all recent' });
    assertContiguous(all.label, await all.collectUntil((e) => e.id === String(latest), 5_000), base + 1, latest);
    all.close();

    // Two hours later, only the last 1000 are kept.
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000).toISOString();
    await server.store.db
      .updateTable('events')
      .set({ created_at: twoHoursAgo })
      .where('team_id', '=', team.id)
      .execute();
    assert.ok((await pruneEvents(server.store.db)) >= 100);

    const kept = await openStream(server, m.key, { lastEventId: String(latest - 1_000), label: 'last 1000' });
    const replay = await kept.collectUntil((e) => e.id === String(latest), 5_000);
    assertContiguous(kept.label, replay, latest - 999, latest);
    kept.close();

    const expectSync = async (lastEventId: string, label: string) => {
      const stream = await openStream(server, m.key, { lastEventId, label });
      assert.equal(stream.status, 200);
      const event = await stream.next();
      assert.equal(event.type, 'sync.required', `${label}: ${JSON.stringify(event)}`);
      assert.equal(event.id, String(latest), `${label}: sync.required carries the newest id to resume from`);
      await stream.expectNothingFor(100);
      return stream;
    };
    const tooOld = await expectSync(String(latest - 1_001), 'pruned id');
    await expectSync(String(base), 'very old id');
    await expectSync(String(latest + 10), 'id from the future');
    await expectSync('not-an-id', 'garbage id');

    // After sync.required the stream goes on live from the newest id.
    await server.store.transaction((trx) =>
      recordEvent(server.store, trx, {
        teamId: team.id,
        type: 'task.created',
        data: { taskId: 1 },
        audience: [m.userId],
      }),
    );
    const next = await tooOld.next();
    assert.equal(next.id, String(latest + 1));
    assert.equal(show(next), 'task.created 1');
    closeAllStreams();
  });

  test('a stream opened without Last-Event-ID gets heartbeats and every later change', TIMEOUT, async () => {
    const team = await createTestTeam(server);
    const stream = await openStream(server, team.owner.key, { label: 'fresh' });
    assert.equal(stream.status, 200);
    await stream.waitForComment('ping', 2_500);
    const list = created(await team.owner.api.post('/v1/lists', { name: 'After the first ping' })).id;
    assert.equal(show(await stream.next()), `taskList.created ${list}`);
    const pings = stream.comments.filter((c) => c === 'ping').length;
    await stream.waitForComment('ping', 2_500, stream.comments.length);
    assert.ok(stream.comments.filter((c) => c === 'ping').length > pings);
    stream.close();
  });

  // A client that disconnects while the server is still authenticating or attaching its stream
  // must not stay in the hub (it would be written to, counted and rechecked forever).
  test('a client that leaves while its stream is being set up leaves nothing behind', TIMEOUT, async () => {
    closeAllStreams();
    await waitUntil('earlier streams are gone', () => server.app.hub.size === 0, 3_000);
    const team = await createTestTeam(server);
    const { port } = new URL(server.url);
    const request = `GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${team.owner.key}\r\n\r\n`;
    await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const socket = net.connect(Number(port), '127.0.0.1');
        socket.on('error', () => {});
        await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
        socket.write(request);
        // Half of them say goodbye properly, half just vanish.
        if (i % 2 === 0) socket.end();
        await sleep(i % 2 === 0 ? 50 : 0);
        socket.destroy();
      }),
    );
    await sleep(300);
    await waitUntil(
      `the hub forgot the streams of clients that left (still holds ${server.app.hub.size})`,
      () => server.app.hub.size === 0,
      3_000,
    );
  });

  test('GET /v1/events refuses a missing, unknown or revoked key', TIMEOUT, async () => {
    const team = await createTestTeam(server);
    const m = await team.member();
    await revokeKey(server.store.db, m.keyId);
    for (const key of ['', 'tl_nope_nope', m.key]) {
      const stream = await openStream(server, key, { label: 'refused' });
      assert.equal(stream.status, 401, stream.body);
      stream.close();
    }
  });

  test('a revoked key or a removed member loses the stream within seconds; others keep theirs', TIMEOUT, async () => {
    const team = await createTestTeam(server);
    const revoked = await team.member();
    const removed = await team.member();
    const second = await insertKey(server.store.db, { teamId: team.id, userId: revoked.userId, name: 'kept' });
    const keptKey: Person = { ...revoked, key: second.key, keyId: second.record.id };
    const list = created(await team.owner.api.post('/v1/lists', { name: 'L' })).id;
    for (const who of [revoked, removed]) {
      created(await team.owner.api.post(`/v1/lists/${list}/members`, { userId: who.userId }));
    }
    const revokedStream = await live(server, revoked, 'revoked key');
    const removedStream = await live(server, removed, 'removed member');
    const keptStream = await live(server, keptKey, 'other key of the same user');
    const ownerStream = await live(server, team.owner, 'owner');

    await revokeKey(server.store.db, revoked.keyId);
    await deleteMember(server.store.db, team.id, removed.userId);
    const started = Date.now();
    await Promise.all([revokedStream.waitClosed(7_000), removedStream.waitClosed(7_000)]);
    assert.ok(Date.now() - started < 7_000);
    assert.equal(keptStream.ended, false, 'the same user’s other key must keep its stream');
    assert.equal(ownerStream.ended, false);

    const task = created(await team.owner.api.post('/v1/tasks', { title: 'after', taskListIds: [list] })).id;
    assert.equal(show(await keptStream.next()), `task.created ${task}`);
    assert.equal(show(await ownerStream.next()), `task.created ${task}`);
    for (const key of [revoked.key, removed.key]) {
      const again = await openStream(server, key, { label: 'reconnect' });
      assert.equal(again.status, 401, again.body);
      again.close();
    }
    keptStream.close();
    ownerStream.close();
  });

  // The hub reads live events in pages; a page must never end in the middle of one event's
  // recipients (3 recipients × 3000 events: a 5000-row page cuts event 1667).
  test('a burst of events with several recipients each reaches every recipient, once', TIMEOUT, async () => {
    const team = await createTestTeam(server);
    const people = [team.owner, await team.member(), await team.member()];
    const streams = await Promise.all(people.map((who, i) => live(server, who, `recipient ${i}`)));
    const { first, last } = await bulkEvents(
      server,
      team.id,
      3_000,
      people.map((p) => p.userId),
    );
    const problems: string[] = [];
    for (const stream of streams) {
      const events = await stream
        .collectUntil((e) => Number(e.id) >= last, 6_000)
        .catch((error) => {
          problems.push(String(error.message));
          return stream.events;
        });
      try {
        assertContiguous(stream.label, events, first, last);
      } catch (error) {
        problems.push((error as Error).message.split('\n')[0] + ': ' + JSON.stringify((error as any).actual));
      }
    }
    closeAllStreams();
    assert.deepEqual(problems, [], 'every recipient must get all 3000 events');
  });

  // Missed events within the retention window must replay even when they are more than the
  // back-pressure bound: the replay is written in one go, and a client cannot read it faster.
  test(
    'a client that missed more than a megabyte of recent events can resume (default buffer bound)',
    TIMEOUT,
    async () => {
      const team = await createTestTeam(server);
      const m = await team.member();
      const from = await latestSeq(server, team.id);
      const { last } = await bulkEvents(server, team.id, 20_000, [m.userId]);
      const resumed = await openStream(server, m.key, { lastEventId: String(from), label: 'resume 20000' }).catch(
        (error) => assert.fail(`the server dropped the resuming stream before its response head: ${error.message}`),
      );
      const events = await resumed.collectUntil((e) => e.id === String(last), 10_000);
      assertContiguous(resumed.label, events, from + 1, last);
      await bulkEvents(server, team.id, 1, [m.userId]);
      assert.equal((await resumed.next()).id, String(last + 1));
      resumed.close();
    },
  );
});

describe('realtime events: replay of more than 100,000 missed events', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ EVENTS_MAX_BUFFER_BYTES: String(1024 * 1024 * 1024) });
  });
  after(async () => {
    closeAllStreams();
    await server.close();
  });

  // An hour of a busy team can hold more events than one replay query returns.
  test('replays them all (or asks for sync.required), never a silent gap', { timeout: 60_000 }, async () => {
    const team = await createTestTeam(server);
    const m = await team.member();
    const from = await latestSeq(server, team.id);
    const { last } = await bulkEvents(server, team.id, 100_050, [m.userId]);
    const stream = await openStream(server, m.key, { lastEventId: String(from), label: 'resume 100050' });
    assert.equal(stream.status, 200);
    const firstEvent = await stream.next(10_000);
    if (firstEvent.type === 'sync.required') {
      assert.equal(firstEvent.id, String(last));
    } else {
      // Everything missed, then the next live event.
      const events = [firstEvent];
      await sleep(500);
      await bulkEvents(server, team.id, 1, [m.userId]);
      events.push(...(await stream.collectUntil((e) => e.id === String(last + 1), 10_000)));
      assertContiguous(stream.label, events, from + 1, last + 1);
    }
    stream.close();
  });
});

describe('realtime events: back-pressure', () => {
  let server: TestServer;
  const sockets: net.Socket[] = [];
  before(async () => {
    server = await startTestServer({ EVENTS_MAX_BUFFER_BYTES: '1024' });
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    closeAllStreams();
    await server.close();
  });

  test(
    'a client that stops reading is cut off; a reading client still gets every event',
    { timeout: 60_000 },
    async () => {
      const team = await createTestTeam(server);
      const u = team.owner;
      const start = await latestSeq(server, team.id);
      const reader = await live(server, u, 'reading stream');

      // A raw connection that sends its request and then never reads a byte.
      const { port } = new URL(server.url);
      const stalled = net.connect(Number(port), '127.0.0.1');
      sockets.push(stalled);
      stalled.on('error', () => {});
      await new Promise<void>((resolve) => stalled.once('connect', () => resolve()));
      stalled.write(
        `GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\naccept: text/event-stream\r\n` +
          `x-api-key: ${u.key}\r\nlast-event-id: ${start}\r\n\r\n`,
      );
      stalled.pause();
      await waitUntil('both streams are open', () => server.app.hub.size === 2, 3_000);

      // Batches of events for u until the stalled stream overflows (the kernel's socket buffers
      // take a few MB first). The reading stream must keep up with every batch.
      const deadline = Date.now() + 40_000;
      let last = start;
      let batches = 0;
      while (server.app.hub.size === 2 && last - start < 150_000 && Date.now() < deadline) {
        ({ last } = await bulkEvents(server, team.id, 5_000, [u.userId]));
        batches++;
        await reader
          .waitFor((e) => Number(e.id) >= last, 10_000)
          .catch((error) => {
            assert.fail(`the reading stream did not get batch ${batches} (events up to ${last}): ${error.message}`);
          });
      }
      // Stalls are found by a sweep every second: allow it two sweeps.
      await waitUntil(
        `the stalled stream is cut off (still open after ${last - start} events)`,
        () => server.app.hub.size === 1,
        5_000,
      );
      assert.equal(reader.ended, false, 'the reading stream must not be cut off');
      assertContiguous(reader.label, reader.events, start + 1, last);

      // The reader goes on.
      const more = await bulkEvents(server, team.id, 10, [u.userId]);
      await reader.waitFor((e) => e.id === String(more.last), 5_000);
      assert.ok(batches >= 1);
    },
  );
});
