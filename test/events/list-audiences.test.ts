/**
 * Issue 27, target 2: an event names its task's lists' members by snapshot (migration 0020), so
 * what a change stores does not grow with its lists' size, while who receives it stays decided
 * in the change's transaction: a member who joins receives the changes after, one who leaves
 * none after, over replay, live fan-out and under concurrent changes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventsAfter, pruneEvents } from '../../src/changes/outbox.js';
import { createTestTeam, type Actor, type Team } from '../factories.js';
import { TEST_STORE, type TestServer } from '../harness.js';
import { openStream } from '../sse/stream.js';
import { created, latestSeq, live, ok, startEventsServer, stopEventsServer, TIMEOUT } from './support.js';

describe(`list snapshots in events' audiences (${TEST_STORE})`, () => {
  let server: TestServer;
  let team: Team;
  let owner: Actor;

  before(async () => {
    server = await startEventsServer();
    team = await createTestTeam(server);
    owner = team.owner;
  });
  after(() => stopEventsServer(server));

  let lists = 0;
  /** A list of the owner and `others`, with one task in it. */
  async function listWithTask(others: Actor[]): Promise<{ listId: number; taskId: number }> {
    const list = created(await owner.api.post('/v1/lists', { name: `List ${++lists}` }));
    for (const member of others)
      created(await owner.api.post(`/v1/lists/${list.id}/members`, { userId: member.userId }));
    const task = created(await owner.api.post('/v1/tasks', { title: `In list ${lists}`, taskListIds: [list.id] }));
    return { listId: list.id, taskId: task.id };
  }

  const members = (n: number) => Promise.all(Array.from({ length: n }, () => team.member()));

  /** The rows the team's newest event stored for its audience: people named, and list snapshots named. */
  async function audienceRowsOfLatest(): Promise<{ named: number; snapshots: number }> {
    const event = await server.store.db
      .selectFrom('events')
      .select('id')
      .where('team_id', '=', team.id)
      .where('seq', '=', await latestSeq(server, team.id))
      .executeTakeFirstOrThrow();
    const count = async (table: 'event_recipients' | 'event_audiences') =>
      (await server.store.db.selectFrom(table).select('event_id').where('event_id', '=', event.id).execute()).length;
    return { named: await count('event_recipients'), snapshots: await count('event_audiences') };
  }

  const snapshotCount = async () =>
    (await server.store.db.selectFrom('list_audiences').select('id').where('team_id', '=', team.id).execute()).length;

  /** The task.updated events of `taskId` after `from` that `userId` may see, by both read paths. */
  async function updatesSeenBy(userId: string, taskId: number, from: number): Promise<number[]> {
    const ofTask = (e: { type: string; data: string }) =>
      e.type === 'task.updated' && JSON.parse(e.data).taskId === taskId;
    const replayed = (await eventsAfter(server.store.db, team.id, from, { userId, limit: 1000 })).filter(ofTask);
    const fannedOut = (await eventsAfter(server.store.db, team.id, from, { limit: 1000 }))
      .filter(ofTask)
      .filter((e) => e.recipients.has(userId));
    assert.deepEqual(
      replayed.map((e) => e.seq),
      fannedOut.map((e) => e.seq),
      'replay and fan-out disagree',
    );
    return replayed.map((e) => e.seq);
  }

  test('a change of a task in a list of 40 stores as many audience rows as one in a list of 3', TIMEOUT, async () => {
    const small = await listWithTask(await members(2));
    const large = await listWithTask(await members(39));
    ok(await owner.api.patch(`/v1/tasks/${small.taskId}`, { title: 'Small list, edited' }));
    const ofSmall = await audienceRowsOfLatest();
    ok(await owner.api.patch(`/v1/tasks/${large.taskId}`, { title: 'Large list, edited' }));
    const ofLarge = await audienceRowsOfLatest();
    assert.deepEqual(ofLarge, ofSmall);
    // The creator by name, the list by its snapshot.
    assert.deepEqual(ofLarge, { named: 1, snapshots: 1 });
  });

  test("a list's snapshot is made once and reused until its members change", TIMEOUT, async () => {
    const [reader] = await members(1);
    const { listId, taskId } = await listWithTask([reader!]);
    const first = await snapshotCount();
    for (const title of ['One', 'Two', 'Three']) ok(await owner.api.patch(`/v1/tasks/${taskId}`, { title }));
    assert.equal(await snapshotCount(), first, 'no new snapshot while the members stay');
    const [joiner] = await members(1);
    created(await owner.api.post(`/v1/lists/${listId}/members`, { userId: joiner!.userId }));
    ok(await owner.api.patch(`/v1/tasks/${taskId}`, { title: 'Four' }));
    assert.equal(await snapshotCount(), first + 1, 'one new snapshot after a member joined');
  });

  test(
    'a member who joins a list sees its task changes from then on; one who leaves sees none after',
    TIMEOUT,
    async () => {
      const [stayer, leaver, joiner] = await members(3);
      const { listId, taskId } = await listWithTask([stayer!, leaver!]);
      const from = await latestSeq(server, team.id);
      ok(await owner.api.patch(`/v1/tasks/${taskId}`, { title: 'Before anyone moves' }));
      const before = await latestSeq(server, team.id);
      created(await owner.api.post(`/v1/lists/${listId}/members`, { userId: joiner!.userId }));
      ok(await owner.api.patch(`/v1/tasks/${taskId}`, { title: 'After the join' }));
      const afterJoin = await latestSeq(server, team.id);
      ok(await owner.api.delete(`/v1/lists/${listId}/members/${leaver!.userId}`));
      ok(await owner.api.patch(`/v1/tasks/${taskId}`, { title: 'After the leave' }));
      const afterLeave = await latestSeq(server, team.id);

      assert.deepEqual(await updatesSeenBy(stayer!.userId, taskId, from), [before, afterJoin, afterLeave]);
      assert.deepEqual(await updatesSeenBy(joiner!.userId, taskId, from), [afterJoin, afterLeave]);
      assert.deepEqual(await updatesSeenBy(leaver!.userId, taskId, from), [before, afterJoin]);

      // Over HTTP: the joiner's replay from before they joined holds only what came after.
      const stream = await openStream(server, joiner!.key, { lastEventId: String(from), label: 'joiner' });
      assert.equal(stream.status, 200);
      const replayed = await stream.collectUntil((e) => e.id === String(afterLeave));
      assert.deepEqual(
        replayed.filter((e) => e.type === 'task.updated').map((e) => Number(e.id)),
        [afterJoin, afterLeave],
      );
      await stream.close();
    },
  );

  test('a live stream of a member who joins a list receives its next task change', TIMEOUT, async () => {
    const [joiner] = await members(1);
    const { listId, taskId } = await listWithTask([]);
    const stream = await live(server, joiner!, 'joiner live');
    created(await owner.api.post(`/v1/lists/${listId}/members`, { userId: joiner!.userId }));
    ok(await owner.api.patch(`/v1/tasks/${taskId}`, { title: 'Seen live' }));
    const events = await stream.collectUntil((e) => e.type === 'task.updated');
    assert.equal(JSON.parse(events.at(-1)!.data).taskId, taskId);
    await stream.close();
  });

  test(
    'a member removed while the list’s tasks change at once receives no change committed after the removal',
    TIMEOUT,
    async () => {
      const [leaver] = await members(1);
      const { listId, taskId } = await listWithTask([leaver!]);
      const more = await Promise.all(
        [1, 2, 3].map(async (n) =>
          created(await owner.api.post('/v1/tasks', { title: `Busy ${n}`, taskListIds: [listId] })),
        ),
      );
      const taskIds = [taskId, ...more.map((t: { id: number }) => t.id)];
      const from = await latestSeq(server, team.id);
      let editing = true;
      const editors = taskIds.map(async (id) => {
        for (let n = 0; editing; n++) ok(await owner.api.patch(`/v1/tasks/${id}`, { title: `Edit ${n}` }));
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      ok(await owner.api.delete(`/v1/lists/${listId}/members/${leaver!.userId}`));
      // The removal's own event, addressed to the leaver too: every task change after it must not be.
      const removal = (await eventsAfter(server.store.db, team.id, from, { limit: 100_000 })).find(
        (e) => e.type === 'taskList.updated' && JSON.parse(e.data).listId === listId,
      )!;
      await new Promise((resolve) => setTimeout(resolve, 50));
      editing = false;
      await Promise.all(editors);
      const changes = (await eventsAfter(server.store.db, team.id, from, { limit: 100_000 })).filter(
        (e) => e.type === 'task.updated',
      );
      assert.ok(
        changes.some((e) => e.seq > removal.seq),
        'changes ran after the removal',
      );
      const leaked = changes.filter((e) => e.seq > removal.seq && e.recipients.has(leaver!.userId));
      assert.deepEqual(
        leaked.map((e) => e.seq),
        [],
        `removal at ${removal.seq}`,
      );
    },
  );

  test(
    'pruning keeps a superseded snapshot while an event names it, and for ten minutes after, then removes it',
    TIMEOUT,
    async () => {
      const pruneTeam = await createTestTeam(server);
      const boss = pruneTeam.owner;
      const list = created(await boss.api.post('/v1/lists', { name: 'Pruned' }));
      created(await boss.api.post('/v1/tasks', { title: 'Named', taskListIds: [list.id] }));
      const snapshots = () =>
        server.store.db.selectFrom('list_audiences').select('id').where('team_id', '=', pruneTeam.id).execute();
      const [first] = await snapshots();
      const joiner = await pruneTeam.member();
      created(await boss.api.post(`/v1/lists/${list.id}/members`, { userId: joiner.userId }));
      created(await boss.api.post('/v1/tasks', { title: 'Names the second', taskListIds: [list.id] }));
      assert.equal((await snapshots()).length, 2);

      await pruneEvents(server.store.db);
      assert.equal((await snapshots()).length, 2, 'both are named by events');
      await server.store.db.deleteFrom('events').where('team_id', '=', pruneTeam.id).execute();
      await pruneEvents(server.store.db);
      assert.equal((await snapshots()).length, 2, 'the superseded one is kept for a while');
      await pruneEvents(server.store.db, Date.now() + 11 * 60 * 1000);
      const left = await snapshots();
      assert.equal(left.length, 1, 'the superseded one went; the current one stays');
      assert.notEqual(left[0]!.id, first!.id);
    },
  );
});
