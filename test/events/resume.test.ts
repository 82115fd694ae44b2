/**
 * Realtime events: resuming with Last-Event-ID (also while events are being written), replay of
 * more than the back-pressure bound and of more than one replay query, retention and
 * sync.required.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { pruneEvents, recordEvent, usersAudience } from '../../src/changes/outbox.js';
import { createTestTeam } from '../factories.js';
import { startTestServer, type TestServer } from '../harness.js';
import { closeAllStreams, openStream, show, type SseEvent, type SseStream } from '../sse/stream.js';
import {
  assertContiguous,
  bulkEvents,
  checkShape,
  created,
  latestSeq,
  live,
  ok,
  startEventsServer,
  stopEventsServer,
  TIMEOUT,
} from './support.js';

describe('realtime events (GET /v1/events): resuming with Last-Event-ID', () => {
  let server: TestServer;
  before(async () => {
    server = await startEventsServer();
  });
  after(() => stopEventsServer(server));

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
          recordEvent(trx, {
            teamId: team.id,
            type: 'task.updated',
            data: { taskId: ++written },
            audience: usersAudience([m.userId]),
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
        await recordEvent(trx, {
          teamId: team.id,
          type: 'task.updated',
          data: { taskId: i },
          audience: usersAudience([m.userId]),
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
      recordEvent(trx, {
        teamId: team.id,
        type: 'task.created',
        data: { taskId: 1 },
        audience: usersAudience([m.userId]),
      }),
    );
    const next = await tooOld.next();
    assert.equal(next.id, String(latest + 1));
    assert.equal(show(next), 'task.created 1');
    closeAllStreams();
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
  after(() => stopEventsServer(server));

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
