/**
 * Event streams never race their own set-up: nothing reaches a stream (a heartbeat, a live
 * event, an end on close or on a revoked key) before its response head and its replay are
 * written, and whatever happened meanwhile arrives after them, once. Each test makes the set-up
 * window wide on purpose:
 *
 * - hub-level, on either store: an EventHub whose reads from `events` wait at a gate
 *   (read-gate.ts), so a stream's replay waits as long as the test wants while heartbeats (every
 *   50 ms), credential rechecks and writes go on. The hub serves real HTTP on a real database.
 * - the whole server on PostgreSQL: another connection holds a lock on `events` that the
 *   replay's read must wait for, with EVENTS_HEARTBEAT_SECONDS=1.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { Caller } from '../../src/caller.js';
import { revokeKey } from '../../src/keys/keys.repository.js';
import { createEventBus } from '../../src/changes/bus.js';
import { EventHub } from '../../src/realtime/hub.js';
import { recordEvent, usersAudience } from '../../src/changes/outbox.js';
import { bridgeToBus } from '../../src/changes/bridge.js';
import { createTestTeam, type Actor } from '../factories.js';
import { startTestServer, tempDatabase, TEST_STORE, type TempDatabase, type TestServer } from '../harness.js';
import { gatedStore, type ReadGate } from '../read-gate.js';
import { closeAllStreams, openStream, type SseEvent, type SseStream } from '../sse/stream.js';
import { latestSeq, TIMEOUT, waitUntil } from './support.js';

/** Records `count` events addressed to `who` (as a change would); returns the last id. */
async function writeEvents(server: TestServer, who: Actor, count: number): Promise<number> {
  for (let i = 0; i < count; i++) {
    await server.store.transaction((trx) =>
      recordEvent(trx, {
        teamId: who.teamId,
        type: 'task.updated',
        data: { taskId: i + 1 },
        audience: usersAudience([who.userId]),
      }),
    );
  }
  return latestSeq(server, who.teamId);
}

/** Opens a stream without waiting for its head; `headArrived` tells whether anything came yet. */
function openPending(server: { url: string }, key: string, lastEventId: number, label: string) {
  let headArrived = false;
  const stream = openStream(server, key, { lastEventId: String(lastEventId), label, timeoutMs: 20_000 });
  void stream.then(() => (headArrived = true)).catch(() => {});
  return { stream, headArrived: () => headArrived };
}

/** What every stream's first bytes must be: its head was written by the stream, not by a writer before it. */
function assertProperStart(stream: SseStream): void {
  assert.equal(stream.status, 200, `${stream.label}: ${stream.status} ${stream.body}`);
  assert.equal(
    stream.headers['content-type'],
    'text/event-stream; charset=utf-8',
    `${stream.label}: the head was not the stream's own (first bytes: ${JSON.stringify(stream.firstBytes)})`,
  );
  assert.ok(
    stream.firstBytes.startsWith('retry: 2000\n: connected\n\n'),
    `${stream.label}: something was written before the stream's start: ${JSON.stringify(stream.firstBytes)}`,
  );
}

/** Asserts the events' ids are exactly from..to, each once, in order. */
function assertIds(stream: SseStream, events: SseEvent[], from: number, to: number): void {
  const expected = Array.from({ length: to - from + 1 }, (_, i) => String(from + i));
  assert.deepEqual(
    events.map((e) => e.id),
    expected,
    `${stream.label}: events must be ${from}..${to}, once each`,
  );
}

// ---------------------------------------------------------------------------------------------
// A hub whose reads from `events` the test can hold back, serving real HTTP
// ---------------------------------------------------------------------------------------------

interface GatedHub {
  hub: EventHub;
  gate: ReadGate;
  url: string;
  close(): Promise<void>;
}

function callerOf(actor: Actor): Caller {
  return { userId: actor.userId, teamId: actor.teamId, role: actor.role, credential: { kind: 'key', id: actor.keyId } };
}

/**
 * A second hub on the test server's database whose reads from `events` pass through a gate, with
 * heartbeats every 50 ms and rechecks every 100 ms; requests name their caller by `x-api-key`.
 */
async function gatedHub(server: TestServer, databaseUrl: string, people: Actor[]): Promise<GatedHub> {
  const { store, gate } = gatedStore(server.store, 'events');
  const hub = new EventHub(store, { heartbeatMs: 50, recheckMs: 100, pollMs: 100, maxBufferBytes: 1024 * 1024 });
  // Wired as app.ts wires the server's hub: this process's changes, and the other processes', wake it.
  const bus = createEventBus(store, databaseUrl);
  const stopBridge = bridgeToBus(bus);
  bus.onAnnounce((teamId) => hub.changed(teamId));
  bus.onEndedAccess((teamId) => hub.accessEnded(teamId));
  const callers = new Map(people.map((actor) => [actor.key, callerOf(actor)]));
  const httpServer = http.createServer((req, res) => {
    const caller = callers.get(String(req.headers['x-api-key']));
    if (!caller) return void res.writeHead(401).end();
    const lastEventId = req.headers['last-event-id'];
    void hub.open(caller, Array.isArray(lastEventId) ? lastEventId[0] : lastEventId, res);
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const { port } = httpServer.address() as AddressInfo;
  return {
    hub,
    gate,
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      gate.open();
      await hub.close();
      stopBridge();
      await bus.close();
      httpServer.closeAllConnections();
      await new Promise((resolve) => httpServer.close(resolve));
    },
  };
}

describe(`event streams are set up before anything reaches them (hub-level, ${TEST_STORE})`, () => {
  let database: TempDatabase;
  let server: TestServer;
  before(async () => {
    database = await tempDatabase();
    server = await startTestServer({ DATABASE_URL: database.url });
  });
  after(async () => {
    closeAllStreams();
    await server.close();
    await database.remove();
  });

  /** A team with a member, an owner's stream already live (so the team's entry exists), and events the member missed. */
  async function scene(h?: GatedHub) {
    const team = await createTestTeam(server);
    const member = await team.member();
    const hub = h ?? (await gatedHub(server, database.url, [team.owner, member]));
    const live = await openStream(hub, team.owner.key, { label: 'already live' });
    assertProperStart(live);
    const from = await latestSeq(server, team.id);
    const missed = await writeEvents(server, member, 3);
    return { team, member, hub, live, from, missed };
  }

  test(
    'a stream whose replay is slow gets its own head, then what it missed and what happened meanwhile, once each; heartbeats only after',
    TIMEOUT,
    async () => {
      const { member, hub, live, from, missed } = await scene();
      try {
        hub.gate.close();
        const resuming = openPending(hub, member.key, from, 'resuming');
        await waitUntil('the resuming stream is being set up', () => hub.hub.size === 2);
        // Its replay's read is held: heartbeats, rechecks and polls go on, and new events are written.
        await sleep(300);
        const last = await writeEvents(server, member, 2);
        await sleep(200);
        assert.equal(resuming.headArrived(), false, 'something reached the stream before its replay had read anything');
        assert.ok(live.comments.includes('ping'), 'the live stream kept its heartbeats meanwhile');

        hub.gate.open();
        const stream = await resuming.stream;
        assertProperStart(stream);
        const events = await stream.collectUntil((e) => e.id === String(last), 5_000);
        assertIds(stream, events, from + 1, last);
        assert.ok(last > missed);
        await stream.waitForComment('ping', 2_000);
        const more = await writeEvents(server, member, 1);
        assert.equal((await stream.next()).id, String(more));
        await stream.expectNothingFor(200);
        assert.equal(stream.ended, false);
      } finally {
        closeAllStreams();
        await hub.close();
      }
    },
  );

  test(
    'closing the hub while a stream is set up ends it after its head, and leaves nothing behind',
    TIMEOUT,
    async () => {
      const { member, hub, live, from } = await scene();
      try {
        hub.gate.close();
        const resuming = openPending(hub, member.key, from, 'resuming at shutdown');
        await waitUntil('the stream is being set up', () => hub.hub.size === 2);
        await sleep(100);
        const closing = hub.hub.close();
        await live.waitClosed(2_000);
        assert.ok(live.endedCleanly, 'the live stream ends cleanly at close');
        await sleep(200);
        assert.equal(resuming.headArrived(), false, 'closing wrote to the stream before its head');

        hub.gate.open();
        const stream = await resuming.stream;
        assertProperStart(stream);
        await stream.waitClosed(3_000);
        assert.ok(stream.endedCleanly, 'it ends cleanly, so an EventSource reconnects and resumes');
        await closing;
        await waitUntil(`the hub holds no stream (${hub.hub.size})`, () => hub.hub.size === 0, 2_000);
      } finally {
        closeAllStreams();
        await hub.close();
      }
    },
  );

  test(
    'a stream whose key is revoked while it is set up gets its head, then ends without replaying',
    TIMEOUT,
    async () => {
      const { member, hub, live, from } = await scene();
      try {
        hub.gate.close();
        const resuming = openPending(hub, member.key, from, 'revoked during set-up');
        await waitUntil('the stream is being set up', () => hub.hub.size === 2);
        await revokeKey(server.store.db, member.keyId);
        await sleep(400); // several rechecks
        assert.equal(resuming.headArrived(), false, 'the recheck wrote to the stream before its head');

        hub.gate.open();
        const stream = await resuming.stream;
        assertProperStart(stream);
        await stream.waitClosed(3_000);
        assert.ok(stream.endedCleanly);
        assert.deepEqual(stream.events, [], 'a revoked key is replayed nothing');
        await waitUntil('only the live stream is left', () => hub.hub.size === 1, 2_000);
        assert.equal(live.ended, false);
      } finally {
        closeAllStreams();
        await hub.close();
      }
    },
  );

  test('a client that leaves while its stream is set up is forgotten; the others go on', TIMEOUT, async () => {
    const { member, hub, live, from } = await scene();
    const socket = net.connect(Number(new URL(hub.url).port), '127.0.0.1');
    socket.on('error', () => {});
    try {
      hub.gate.close();
      socket.write(
        `GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${member.key}\r\nlast-event-id: ${from}\r\n\r\n`,
      );
      await waitUntil('the stream is being set up', () => hub.hub.size === 2);
      await sleep(100);
      socket.destroy();
      await waitUntil(`the hub forgot the stream while its read was held (${hub.hub.size})`, () => hub.hub.size === 1);

      hub.gate.open();
      await sleep(200);
      assert.equal(hub.hub.size, 1, 'the stream of the client that left came back once its read answered');
      await live.waitForComment('ping', 1_000, live.comments.length);
      assert.equal(live.ended, false);
    } finally {
      socket.destroy();
      closeAllStreams();
      await hub.close();
    }
  });
});

describe(
  'event streams on PostgreSQL: a replay that waits on a lock through heartbeats',
  { skip: TEST_STORE !== 'postgres' && 'needs PostgreSQL (a lock held by another connection)' },
  () => {
    let database: TempDatabase;
    let server: TestServer;
    before(async () => {
      database = await tempDatabase();
      server = await startTestServer({ DATABASE_URL: database.url, EVENTS_HEARTBEAT_SECONDS: '1' });
    });
    after(async () => {
      closeAllStreams();
      await server.close();
      await database.remove();
    });

    test(
      'the stream gets its own head, then what it missed and what was written meanwhile, once each, then heartbeats',
      TIMEOUT,
      async () => {
        const team = await createTestTeam(server);
        const member = await team.member();
        const live = await openStream(server, team.owner.key, { label: 'already live' });
        assertProperStart(live);
        const from = await latestSeq(server, team.id);
        await writeEvents(server, member, 3);

        // Reads of `events` wait for this lock: the replay's first read, the fan-out, and the
        // insert of a change made meanwhile.
        const locker = new pg.Client({ connectionString: database.url });
        await locker.connect();
        let writing: Promise<number> | undefined;
        let resuming: ReturnType<typeof openPending> | undefined;
        try {
          await locker.query('begin');
          await locker.query('lock table events in access exclusive mode');
          resuming = openPending(server, member.key, from, 'resuming behind a lock');
          const replayWaits = async () => {
            // Within a transaction (this one holds the lock) pg_stat_activity is read once and
            // then kept, unless the snapshot is cleared.
            await locker.query('select pg_stat_clear_snapshot()');
            const { rows } = await locker.query(
              `select count(*)::int as n from pg_stat_activity
                where datname = current_database() and wait_event_type = 'Lock' and query like '%min("seq")%'`,
            );
            return rows[0].n > 0;
          };
          for (const deadline = Date.now() + 5_000; !(await replayWaits()); await sleep(20)) {
            assert.ok(Date.now() < deadline, "the replay's read never waited on the lock");
          }
          writing = writeEvents(server, member, 2);
          await sleep(2_500); // two heartbeats or more while the replay waits
          assert.equal(
            resuming.headArrived(),
            false,
            'something reached the stream before its replay had read anything',
          );
        } finally {
          await locker.query('commit').catch(() => {});
          await locker.end();
        }
        const last = await writing!;
        const stream = await resuming!.stream;
        assertProperStart(stream);
        const events = await stream.collectUntil((e) => e.id === String(last), 5_000);
        assertIds(stream, events, from + 1, last);
        await stream.waitForComment('ping', 2_500);
        const more = await writeEvents(server, member, 1);
        assert.equal((await stream.next()).id, String(more));
        await stream.expectNothingFor(300);
        assert.equal(stream.ended, false);
        assert.equal(live.ended, false);
        closeAllStreams();
      },
    );
  },
);
