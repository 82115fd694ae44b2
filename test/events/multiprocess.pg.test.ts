/**
 * Realtime events across `tasklane serve` processes on one PostgreSQL database (PostgreSQL only,
 * a *.pg.test file). Streams are held on process A while changes go through process B:
 *
 * - delivery: each event reaches the right streams on A promptly (well under the hub's 2 s poll,
 *   so the LISTEN/NOTIFY wake-up works), in order, once; a teammate who is not on the list and
 *   a user of another team get nothing they may not read;
 * - resume: a client that drops its stream on A and reconnects to B with Last-Event-ID gets
 *   exactly what it missed, in order and without duplicates, then the live stream (also while
 *   writes race with the reconnect);
 * - the wake-up is not the source of truth: with A's LISTEN connection terminated, events still
 *   reach A (poll fallback, then the re-established listener), none lost and none duplicated.
 *
 * Streams are the shared SSE client's (test/sse/stream.ts): a test controls exactly when one opens
 * and closes, and every wait is bounded.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { Client, expectStatus, tempDatabase, type TempDatabase } from '../harness.js';
import { admin, killAll, printedKey, serve, TIMEOUT, type Serving } from '../processes.js';
import { closeAllStreams, openStream, type SseEvent, type SseStream } from '../sse/stream.js';

// ---------------------------------------------------------------------------------------------
// Streams (the shared SSE client)
// ---------------------------------------------------------------------------------------------

/** How long opening a stream (until its response headers) may take. */
const OPEN_TIMEOUT_MS = 10_000;

/** `task.updated taskId=7`, `taskList.created listId=3`; anything else as `type data`. */
function describeEvent(e: SseEvent): string {
  let data: any;
  try {
    data = JSON.parse(e.data);
  } catch {
    return `${e.type} ${e.data}`;
  }
  if (e.type.startsWith('taskList.')) return `${e.type} listId=${data?.listId}`;
  if (e.type.startsWith('task.')) return `${e.type} taskId=${data?.taskId}`;
  return `${e.type} ${e.data}`;
}

/** The stream's events so far, as `describeEvent` strings. */
function summary(stream: SseStream): string[] {
  return stream.events.map(describeEvent);
}

/** Opens a stream; fails unless the answer is a 200 text/event-stream. */
async function openEvents(
  baseUrl: string,
  key: string,
  label: string,
  lastEventId?: string | number,
): Promise<SseStream> {
  const resume = lastEventId === undefined ? {} : { lastEventId: String(lastEventId) };
  const stream = await openStream({ url: baseUrl }, key, { ...resume, label, timeoutMs: OPEN_TIMEOUT_MS });
  const type = String(stream.headers['content-type'] ?? '');
  if (stream.status !== 200 || !type.startsWith('text/event-stream')) {
    await stream.waitClosed(OPEN_TIMEOUT_MS).catch(() => {});
    await stream.close();
    throw new Error(`${label}: GET /v1/events answered ${stream.status} (${type}) ${stream.body}`);
  }
  return stream;
}

/** Asserts the stream's event ids are present and strictly increasing (as numbers). */
function assertIncreasingIds(stream: SseStream): void {
  let previous = -Infinity;
  for (const e of stream.events) {
    assert.ok(e.id !== undefined && /^\d+$/.test(e.id), `${stream.label}: event without a numeric id: ${e.id}`);
    assert.ok(
      Number(e.id) > previous,
      `${stream.label}: ids not strictly increasing: ${JSON.stringify(stream.events.map((x) => x.id))}`,
    );
    previous = Number(e.id);
  }
}

// ---------------------------------------------------------------------------------------------
// Processes, people and the database
// ---------------------------------------------------------------------------------------------

/** Rate limiting is not under test. PGAPPNAME tags each process's connections in pg_stat_activity. */
const APP_A = 'tasklane-events-a';
const APP_B = 'tasklane-events-b';
const ENV = { RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'error' };

/** An event raised on B must reach A's streams this fast: well under the 2 s poll, so via NOTIFY. */
const PROMPT_MS = 1_500;
/** Without the wake-up (its connection killed), the poll fallback must still deliver within this. */
const FALLBACK_MS = 6_000;
/** Long enough for a poll cycle to pass: a duplicate from poll + wake-up would show by then. */
const QUIET_MS = 2_500;

/** Runs one SQL statement directly on the database (not through tasklane) and returns its rows. */
async function sqlRows<T = any>(databaseUrl: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

interface Person {
  userId: string;
  key: string;
  /** A client with this person's key on process A / B. */
  a: Client;
  b: Client;
}

describe('realtime events across serve processes on one PostgreSQL database', { timeout: 10 * TIMEOUT }, () => {
  let db: TempDatabase;
  let serverA: Serving;
  let serverB: Serving;
  const running: Serving[] = [];
  let teamId: string;
  /** Team owner: makes most changes. */
  let owner: Person;
  /** Teammate who is put on the shared lists. */
  let member: Person;
  /** Teammate who is on none of them. */
  let outsider: Person;
  /** A user of another team. */
  let stranger: Person;
  let otherTeamId: string;

  const person = (userId: string, key: string): Person => ({
    userId,
    key,
    a: new Client(serverA.url, key),
    b: new Client(serverB.url, key),
  });

  /** A teammate with a key, made with `tasklane admin` the way an operator does. */
  async function addPerson(orgId: string, name: string): Promise<Person> {
    const email = `${name.toLowerCase()}.${randomUUID().slice(0, 8)}@example.test`;
    const user = await admin(db.url, 'user', 'create', '--email', email, '--name', name);
    await admin(db.url, 'member', 'add', '--org', orgId, '--user', user.id);
    const { key } = await admin(db.url, 'key', 'create', '--org', orgId, '--user', user.id);
    return person(user.id, key);
  }

  /** The id of the team's latest event (its counter, read straight from the database). */
  async function latestEventId(team = teamId): Promise<number> {
    const rows = await sqlRows(db.url, 'select event_counter from teams where id = $1', [team]);
    return Number(rows[0]!.event_counter);
  }

  /**
   * Opens a stream that starts exactly after the team's latest event. (A stream opened without
   * Last-Event-ID starts "from now", and there is no signal of when "now" was fixed; resuming
   * from the current id gives a test a definite starting point without any sleep.)
   */
  async function openFromNow(url: string, who: Person, label: string, team = teamId): Promise<SseStream> {
    return openEvents(url, who.key, label, await latestEventId(team));
  }

  /** Process output for failure messages. */
  const output = () =>
    running
      .map((s, i) => `--- process ${'AB'[i]} (${s.url}):\n${s.stdout().slice(-2000)}${s.stderr().slice(-3000)}`)
      .join('\n');

  /** PIDs of the backends a process holds in LISTEN (its wake-up connection). */
  async function listenerPids(appName: string): Promise<number[]> {
    const rows = await sqlRows<{ pid: number }>(
      db.url,
      `select pid from pg_stat_activity
        where datname = current_database() and application_name = $1 and query ilike 'LISTEN%'`,
      [appName],
    );
    return rows.map((r) => r.pid);
  }

  before(async () => {
    db = await tempDatabase();
    serverA = await serve(db.url, { ...ENV, PGAPPNAME: APP_A });
    running.push(serverA);
    const ownerKey = printedKey(serverA.stdout()).key;
    serverB = await serve(db.url, { ...ENV, PGAPPNAME: APP_B });
    running.push(serverB);

    const me = expectStatus(await new Client(serverA.url, ownerKey).get('/v1/me'), 200);
    teamId = me.team.id;
    owner = person(me.user.id, ownerKey);
    otherTeamId = (await admin(db.url, 'org', 'create', '--name', 'Elsewhere')).id;
    [member, outsider, stranger] = await Promise.all([
      addPerson(teamId, 'Mira'),
      addPerson(teamId, 'Otto'),
      addPerson(otherTeamId, 'Stella'),
    ]);
  });

  after(async () => {
    await closeAllStreams();
    await Promise.all(running.map((s) => s.stop()));
    killAll();
    await db?.remove();
  });

  test(
    'changes made through process B reach the right streams on process A promptly, in order and once',
    { timeout: 2 * TIMEOUT },
    async (t) => {
      const ownerStream = await openFromNow(serverA.url, owner, 'owner@A');
      const memberStream = await openFromNow(serverA.url, member, 'member@A');
      const outsiderStream = await openFromNow(serverA.url, outsider, 'outsider@A');
      const strangerStream = await openFromNow(serverA.url, stranger, 'stranger@A', otherTeamId);
      const latencies: { event: string; ms: number }[] = [];

      /**
       * Makes one change through B; each stream in `to` must receive `expected` as its very next
       * event within `withinMs` of B's response.
       */
      async function change<T>(
        make: () => Promise<T>,
        expected: (result: T) => string,
        to: SseStream[],
        withinMs = PROMPT_MS,
      ): Promise<T> {
        const result = await make();
        const done = performance.now();
        const want = expected(result);
        await Promise.all(
          to.map(async (stream) => {
            const e = await stream.next(done + withinMs - performance.now(), `"${want}" (sent through B)`);
            assert.equal(
              describeEvent(e),
              want,
              `${stream.label}: expected "${want}" next; received ${JSON.stringify(summary(stream))}\n${output()}`,
            );
            latencies.push({ event: `${stream.label} ${want}`, ms: Math.round(e.at - done) });
          }),
        );
        return result;
      }

      const list = await change(
        async () => expectStatus(await owner.b.post('/v1/lists', { name: 'Shared', color: 'Blue' }), 201),
        (l) => `taskList.created listId=${l.id}`,
        [ownerStream],
      );
      await change(
        async () => expectStatus(await owner.b.post(`/v1/lists/${list.id}/members`, { userId: member.userId }), 201),
        () => `taskList.updated listId=${list.id}`,
        [ownerStream, memberStream],
      );
      const first = await change(
        async () => expectStatus(await owner.b.post('/v1/tasks', { title: 'First', taskListIds: [list.id] }), 201),
        (t) => `task.created taskId=${t.id}`,
        [ownerStream, memberStream],
      );
      const second = await change(
        async () => expectStatus(await owner.b.post('/v1/tasks', { title: 'Second', taskListIds: [list.id] }), 201),
        (t) => `task.created taskId=${t.id}`,
        [ownerStream, memberStream],
      );
      await change(
        async () => expectStatus(await owner.b.patch(`/v1/tasks/${first.id}`, { title: 'First, renamed' }), 200),
        () => `task.updated taskId=${first.id}`,
        [ownerStream, memberStream],
      );
      await change(
        async () => expectStatus(await owner.b.patch(`/v1/lists/${list.id}`, { name: 'Shared, renamed' }), 200),
        () => `taskList.updated listId=${list.id}`,
        [ownerStream, memberStream],
      );
      await change(
        async () => expectStatus(await owner.b.delete(`/v1/tasks/${first.id}`), 200),
        () => `task.deleted taskId=${first.id}`,
        [ownerStream, memberStream],
      );
      await change(
        async () => expectStatus(await owner.b.post(`/v1/lists/${list.id}/archive`), 200),
        () => `taskList.archived listId=${list.id}`,
        [ownerStream, memberStream],
      );
      // With the list archived the member can no longer read `second`: its deletion is the owner's only.
      await change(
        async () => expectStatus(await owner.b.delete(`/v1/tasks/${second.id}`), 200),
        () => `task.deleted taskId=${second.id}`,
        [ownerStream],
      );

      // Controls: each stream is live, and private tasks reach their creator only.
      const outsiderTask = await change(
        async () => expectStatus(await outsider.b.post('/v1/tasks', { title: 'Outsider private' }), 201),
        (t) => `task.created taskId=${t.id}`,
        [outsiderStream],
      );
      const memberTask = await change(
        async () => expectStatus(await member.b.post('/v1/tasks', { title: 'Member private' }), 201),
        (t) => `task.created taskId=${t.id}`,
        [memberStream],
      );
      const strangerList = await change(
        async () => expectStatus(await stranger.b.post('/v1/lists', { name: 'Elsewhere list' }), 201),
        (l) => `taskList.created listId=${l.id}`,
        [strangerStream],
      );

      // Nothing else arrives, even after a poll cycle (a duplicate from poll + wake-up would show).
      await Promise.all(
        [ownerStream, memberStream, outsiderStream, strangerStream].map((s) => s.expectNothingFor(QUIET_MS)),
      );

      assert.deepEqual(summary(ownerStream), [
        `taskList.created listId=${list.id}`,
        `taskList.updated listId=${list.id}`,
        `task.created taskId=${first.id}`,
        `task.created taskId=${second.id}`,
        `task.updated taskId=${first.id}`,
        `taskList.updated listId=${list.id}`,
        `task.deleted taskId=${first.id}`,
        `taskList.archived listId=${list.id}`,
        `task.deleted taskId=${second.id}`,
      ]);
      assert.deepEqual(summary(memberStream), [
        `taskList.updated listId=${list.id}`,
        `task.created taskId=${first.id}`,
        `task.created taskId=${second.id}`,
        `task.updated taskId=${first.id}`,
        `taskList.updated listId=${list.id}`,
        `task.deleted taskId=${first.id}`,
        `taskList.archived listId=${list.id}`,
        `task.created taskId=${memberTask.id}`,
      ]);
      assert.deepEqual(summary(outsiderStream), [`task.created taskId=${outsiderTask.id}`]);
      assert.deepEqual(summary(strangerStream), [`taskList.created listId=${strangerList.id}`]);

      for (const stream of [ownerStream, memberStream, outsiderStream, strangerStream]) assertIncreasingIds(stream);
      // One event has one id, whoever receives it: a client can resume with it on any process.
      assert.deepEqual(
        memberStream.events.slice(0, 7).map((e) => e.id),
        ownerStream.events.slice(1, 8).map((e) => e.id),
      );

      const slowest = latencies.reduce((a, b) => (b.ms > a.ms ? b : a));
      assert.ok(slowest.ms < PROMPT_MS, `slowest delivery ${JSON.stringify(slowest)}`);
      t.diagnostic(`B → A delivery: slowest ${slowest.ms} ms of ${latencies.length} (${slowest.event})`);
      await closeAllStreams();
    },
  );

  test(
    'a client that drops its stream on A and reconnects to B with Last-Event-ID gets exactly what it missed, then live events',
    { timeout: 2 * TIMEOUT },
    async () => {
      const list = expectStatus(await owner.b.post('/v1/lists', { name: 'Resume', color: 'Red' }), 201);
      expectStatus(await owner.b.post(`/v1/lists/${list.id}/members`, { userId: member.userId }), 201);
      const onA = await openFromNow(serverA.url, member, 'member@A');
      const task = expectStatus(await owner.a.post('/v1/tasks', { title: 'Seen', taskListIds: [list.id] }), 201);
      const seen = await onA.next(PROMPT_MS, 'the task.created made on A');
      assert.equal(describeEvent(seen), `task.created taskId=${task.id}`);
      await onA.close();

      // Missed while disconnected, all made on B; the outsider's private task is not the member's.
      const other = expectStatus(await owner.b.post('/v1/tasks', { title: 'Other', taskListIds: [list.id] }), 201);
      const hidden = expectStatus(await outsider.b.post('/v1/tasks', { title: 'Not for the member' }), 201);
      expectStatus(await owner.b.patch(`/v1/tasks/${task.id}`, { priority: 'high' }), 200);
      expectStatus(await owner.b.patch(`/v1/lists/${list.id}`, { color: 'Blue' }), 200);
      const own = expectStatus(await member.b.post('/v1/tasks', { title: 'Member while away' }), 201);
      expectStatus(await owner.b.delete(`/v1/tasks/${other.id}`), 200);
      const missed = [
        `task.created taskId=${other.id}`,
        `task.updated taskId=${task.id}`,
        `taskList.updated listId=${list.id}`,
        `task.created taskId=${own.id}`,
        `task.deleted taskId=${other.id}`,
      ];

      const onB = await openEvents(serverB.url, member.key, 'member@B (resumed)', seen.id);
      // The same resume on A, for comparison: both processes replay the same events with the same ids.
      const againOnA = await openEvents(serverA.url, member.key, 'member@A (resumed)', seen.id);
      for (const stream of [onB, againOnA]) {
        for (const want of missed) {
          const e = await stream.next(FALLBACK_MS, `missed "${want}"`);
          assert.equal(describeEvent(e), want, `${stream.label}: ${JSON.stringify(summary(stream))}`);
          assert.ok(Number(e.id) > Number(seen.id), `${stream.label}: replayed id ${e.id} not after ${seen.id}`);
        }
      }
      assert.deepEqual(
        onB.events.map((e) => e.id),
        againOnA.events.map((e) => e.id),
      );

      // Then the live stream continues on B, with changes from both processes.
      const liveA = expectStatus(await owner.a.patch(`/v1/tasks/${task.id}`, { title: 'Live from A' }), 200);
      let e = await onB.next(PROMPT_MS, 'the live task.updated made on A');
      assert.equal(describeEvent(e), `task.updated taskId=${liveA.id}`);
      expectStatus(await owner.b.patch(`/v1/lists/${list.id}`, { name: 'Resume, live' }), 200);
      e = await onB.next(PROMPT_MS, 'the live taskList.updated made on B');
      assert.equal(describeEvent(e), `taskList.updated listId=${list.id}`);
      await onB.expectNothingFor(QUIET_MS);

      assert.ok(!summary(onB).includes(`task.created taskId=${hidden.id}`));
      assert.equal(onB.events.length, missed.length + 2, JSON.stringify(summary(onB)));
      assertIncreasingIds(onB);
      await closeAllStreams();
    },
  );

  test(
    'resuming while other processes are writing: every resumed stream gets each event once, in order',
    { timeout: 3 * TIMEOUT },
    async () => {
      const ROUNDS = 5;
      const STREAMS_PER_ROUND = 6;
      const WRITES_PER_ROUND = 30;
      const list = expectStatus(await owner.a.post('/v1/lists', { name: 'Race', color: 'Green' }), 201);
      expectStatus(await owner.a.post(`/v1/lists/${list.id}/members`, { userId: member.userId }), 201);
      const tasks: { id: number }[] = [];
      for (let i = 0; i < 5; i++) {
        tasks.push(expectStatus(await owner.b.post('/v1/tasks', { title: `Race ${i}`, taskListIds: [list.id] }), 201));
      }

      // The reference: one stream opened before any of it, fed live only.
      const reference = await openFromNow(serverA.url, member, 'reference@A');
      expectStatus(await owner.b.patch(`/v1/tasks/${tasks[0]!.id}`, { title: 'Warm-up' }), 200);
      await reference.next(PROMPT_MS, 'the warm-up event');

      const resumed: { stream: SseStream; from: number; round: number }[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const from = Number(reference.events.at(-1)!.id);
        const writes = Promise.all(
          Array.from({ length: WRITES_PER_ROUND }, (_, i) =>
            (i % 2 === 0 ? owner.a : owner.b)
              .patch(`/v1/tasks/${tasks[i % tasks.length]!.id}`, { title: `Round ${round} write ${i}` })
              .then((r) => expectStatus(r, 200)),
          ),
        );
        // Reconnects land while the writes commit, on both processes.
        const opens = Promise.all(
          Array.from({ length: STREAMS_PER_ROUND }, async (_, j) => {
            await sleep(j * 10);
            const url = j % 2 === 0 ? serverB.url : serverA.url;
            const stream = await openEvents(
              url,
              member.key,
              `resumed round ${round} #${j}@${'AB'[j % 2 === 0 ? 1 : 0]}`,
              from,
            );
            resumed.push({ stream, from, round });
          }),
        );
        await Promise.all([writes, opens]);
        await reference.waitForCount(1 + (round + 1) * WRITES_PER_ROUND, FALLBACK_MS);
      }

      const total = 1 + ROUNDS * WRITES_PER_ROUND;
      await Promise.all(
        resumed.map(({ stream, from }) =>
          stream.waitForCount(reference.events.filter((e) => Number(e.id) > from).length, FALLBACK_MS),
        ),
      );
      await sleep(QUIET_MS);

      assert.equal(reference.events.length, total, `reference: ${JSON.stringify(summary(reference))}`);
      assertIncreasingIds(reference);
      const failures: string[] = [];
      for (const { stream, from } of resumed) {
        const want = reference.events.filter((e) => Number(e.id) > from).map((e) => e.id);
        const got = stream.events.map((e) => e.id);
        if (JSON.stringify(got) !== JSON.stringify(want)) {
          const dupes = got.filter((id, i) => got.indexOf(id) !== i);
          const lost = want.filter((id) => !got.includes(id));
          const differs = got.findIndex((id, i) => id !== want[i]);
          failures.push(
            `${stream.label} (Last-Event-ID ${from}): ${got.length} events for ${want.length}; ` +
              `duplicated ids ${JSON.stringify(dupes)}, lost ids ${JSON.stringify(lost)}, ` +
              `ids from the first difference on: ${JSON.stringify(got.slice(Math.max(0, differs - 2), differs + 6))}…`,
          );
        }
      }
      assert.ok(
        failures.length === 0,
        `${failures.length} of ${resumed.length} resumed streams got duplicates or lost events:\n${failures.join('\n')}`,
      );
      await closeAllStreams();
    },
  );

  test(
    "with process A's LISTEN connection terminated, events still reach A's streams (poll, then a new listener): none lost, none duplicated",
    { timeout: 3 * TIMEOUT },
    async (t) => {
      const list = expectStatus(await owner.b.post('/v1/lists', { name: 'Outage', color: 'Blue' }), 201);
      expectStatus(await owner.b.post(`/v1/lists/${list.id}/members`, { userId: member.userId }), 201);
      const task = expectStatus(await owner.b.post('/v1/tasks', { title: 'Watched', taskListIds: [list.id] }), 201);
      const streams = [
        await openFromNow(serverA.url, owner, 'owner@A'),
        await openFromNow(serverA.url, member, 'member@A'),
      ];
      const expected: string[] = [];
      let writes = 0;

      /** Patches the task through B; every stream must get it next within `withinMs`. */
      async function patchAndExpect(withinMs: number, what: string): Promise<number> {
        expectStatus(await owner.b.patch(`/v1/tasks/${task.id}`, { title: `Write ${++writes}` }), 200);
        const done = performance.now();
        const want = `task.updated taskId=${task.id}`;
        expected.push(want);
        const arrivals = await Promise.all(
          streams.map(async (s) => {
            const e = await s.next(done + withinMs - performance.now(), `write ${writes} (${what})`);
            assert.equal(describeEvent(e), want, `${s.label}: ${JSON.stringify(summary(s))}`);
            return e.at - done;
          }),
        );
        return Math.max(...arrivals);
      }

      // The wake-up path works before the fault.
      const pidsBefore = await listenerPids(APP_A);
      assert.equal(pidsBefore.length, 1, `process A should hold one LISTEN connection, holds ${pidsBefore.length}`);
      await patchAndExpect(PROMPT_MS, 'NOTIFY, before the fault');

      // Kill A's listener, and write through B at once: the poll alone must deliver meanwhile.
      const killed = await sqlRows(
        db.url,
        `select pid, pg_terminate_backend(pid) as terminated from pg_stat_activity
          where datname = current_database() and application_name = $1 and query ilike 'LISTEN%'`,
        [APP_A],
      );
      assert.deepEqual(
        killed.map((r) => r.terminated),
        [true],
      );
      const withoutListener: number[] = [];
      for (let i = 0; i < 5; i++) withoutListener.push(await patchAndExpect(FALLBACK_MS, 'listener terminated'));
      t.diagnostic(`delivery with A's listener terminated: ${withoutListener.map(Math.round).join(', ')} ms`);

      // A re-establishes its listener by itself, and the prompt path is back.
      const deadline = performance.now() + 15_000;
      let pidsAfter = await listenerPids(APP_A);
      while (!(pidsAfter.length === 1 && pidsAfter[0] !== pidsBefore[0]) && performance.now() < deadline) {
        await sleep(100);
        pidsAfter = await listenerPids(APP_A);
      }
      assert.ok(
        pidsAfter.length === 1 && pidsAfter[0] !== pidsBefore[0],
        `process A did not re-establish one LISTEN connection within 15 s (before ${pidsBefore}, now ${pidsAfter})\n${output()}`,
      );
      for (let i = 0; i < 3; i++) await patchAndExpect(PROMPT_MS, 'NOTIFY, after the listener came back');

      // Terminated again while a burst of writes is in flight: all of them still arrive, once each.
      const BURST = 20;
      const burst = Promise.all(
        Array.from({ length: BURST }, (_, i) =>
          owner.b.patch(`/v1/tasks/${task.id}`, { title: `Burst ${i}` }).then((r) => expectStatus(r, 200)),
        ),
      );
      await sleep(20);
      await sqlRows(
        db.url,
        `select pg_terminate_backend(pid) from pg_stat_activity
          where datname = current_database() and application_name = $1 and query ilike 'LISTEN%'`,
        [APP_A],
      );
      await burst;
      for (let i = 0; i < BURST; i++) expected.push(`task.updated taskId=${task.id}`);
      await Promise.all(streams.map((s) => s.waitForCount(expected.length, FALLBACK_MS)));
      await Promise.all(streams.map((s) => s.expectNothingFor(QUIET_MS)));

      for (const s of streams) {
        assert.deepEqual(summary(s), expected, s.label);
        assertIncreasingIds(s);
      }
      assert.deepEqual(
        streams[0]!.events.map((e) => e.id),
        streams[1]!.events.map((e) => e.id),
      );
      // Process A survived it all.
      assert.equal(serverA.child.exitCode, null, output());
      expectStatus(await new Client(serverA.url).get('/healthz'), 200);
      await closeAllStreams();
    },
  );
});
