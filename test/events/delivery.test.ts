/**
 * Realtime events (docs/api.md, "Realtime events"), end to end: which events a stream gets, and
 * when. Real SSE streams against the running server, opened as several users of two teams while
 * others change lists and tasks.
 *
 * - every mutating endpoint emits its event once, after commit; failed requests emit nothing
 * - no leaks: a stream gets only what its user may read, only of its own team, ids only
 * - list-member add/remove
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestTeam } from '../factories.js';
import type { TestServer } from '../harness.js';
import { closeAllStreams, openStream, show, type SseStream } from '../sse/stream.js';
import {
  checkShape,
  created,
  joinTeam,
  latestSeq,
  live,
  ok,
  startEventsServer,
  stopEventsServer,
  TIMEOUT,
  type Person,
} from './support.js';

describe('realtime events (GET /v1/events): who gets which event, and when', () => {
  let server: TestServer;
  before(async () => {
    server = await startEventsServer();
  });
  after(() => stopEventsServer(server));

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
    expect(A, 'notification.created', [m2]); // assigned (issue 30), to m2 alone
    const t3 = created(await o.api.post('/v1/tasks', { title: 'T3' })).id;
    expect(A, `task.created ${t3}`, [o]);
    ok(await o.api.patch(`/v1/tasks/${t1}`, { title: 'T1 renamed' }));
    expect(A, `task.updated ${t1}`, [o, m1, x]);
    // m2 loses the task and m3 gains it: readers before and after hear of it.
    ok(await o.api.patch(`/v1/tasks/${t2}`, { assigneeIds: [m3.userId] }));
    expect(A, `task.updated ${t2}`, [o, m2, m3]);
    expect(A, 'notification.created', [m2, m3]); // m2 unassigned, m3 assigned: each their own
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
    expect(A, 'notification.created', [m2]);
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
});
