/**
 * Realtime events of comments: comment.created|updated|deleted with {"taskId", "commentId"} go to
 * the task's audience (who may read the task) and nobody else, after commit, and a stream that
 * resumes with Last-Event-ID gets the ones it missed, in order, once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestTeam } from '../factories.js';
import type { TestServer } from '../harness.js';
import { openStream, type SseEvent } from '../sse/stream.js';
import { checkShape, created, live, ok, startEventsServer, stopEventsServer, TIMEOUT } from './support.js';

/** An event as `type {data}`, its data in full. */
const shown = (event: SseEvent) => `${event.type} ${event.data}`;
const expected = (type: string, taskId: number, commentId: number) =>
  `${type} ${JSON.stringify({ taskId, commentId })}`;

describe('realtime events of comments', () => {
  let server: TestServer;
  before(async () => {
    server = await startEventsServer();
  });
  after(() => stopEventsServer(server));

  test(
    'comment.created, .updated and .deleted reach who may read the task, with the task and comment ids; nobody else',
    TIMEOUT,
    async () => {
      const team = await createTestTeam(server);
      const owner = team.owner;
      const assignee = await team.member({ name: 'Assignee' });
      const outsider = await team.member({ name: 'Outsider' });
      const stranger = (await createTestTeam(server)).owner;
      const task = created(await owner.api.post('/v1/tasks', { title: 'Discussed', assigneeIds: [assignee.userId] }));
      const streams = {
        owner: await live(server, owner, 'owner'),
        assignee: await live(server, assignee, 'assignee'),
        outsider: await live(server, outsider, 'outsider'),
        stranger: await live(server, stranger, 'stranger'),
      };

      const comment = created(await assignee.api.post(`/v1/tasks/${task.id}/comments`, { body: 'Hello' }));
      ok(await assignee.api.patch(`/v1/tasks/${task.id}/comments/${comment.id}`, { body: 'Hello again' }));
      ok(await owner.api.delete(`/v1/tasks/${task.id}/comments/${comment.id}`));
      const want = ['comment.created', 'comment.updated', 'comment.deleted'].map((type) =>
        expected(type, task.id, comment.id),
      );
      for (const stream of [streams.owner, streams.assignee]) {
        const events = await stream.collectUntil((e) => e.type === 'comment.deleted');
        checkShape(stream, events);
        // The owner created the task: the assignee's comment notifies them too (issue 30).
        const notices = stream === streams.owner ? ['notification.created'] : [];
        assert.deepEqual(
          events.map((e) => e.type),
          [want[0]!.split(' ')[0], ...notices, 'comment.updated', 'comment.deleted'],
          stream.label,
        );
        assert.deepEqual(events.filter((e) => !e.type.startsWith('notification.')).map(shown), want, stream.label);
      }
      await streams.outsider.expectNothingFor(300);
      await streams.stranger.expectNothingFor(0);
      for (const stream of Object.values(streams)) stream.close();
    },
  );

  test('a refused comment change (403, 412) sends nothing', TIMEOUT, async () => {
    const team = await createTestTeam(server);
    const peer = await team.member({ name: 'Peer' });
    const task = created(await team.owner.api.post('/v1/tasks', { title: 'T', assigneeIds: [peer.userId] }));
    const comment = created(await team.owner.api.post(`/v1/tasks/${task.id}/comments`, { body: 'Mine' }));
    const stream = await live(server, peer, 'peer');
    const path = `/v1/tasks/${task.id}/comments/${comment.id}`;
    assert.equal((await peer.api.patch(path, { body: 'Not mine' })).status, 403);
    assert.equal((await team.owner.api.patch(path, { body: 'x' }, { 'if-match': '"v9"' })).status, 412);
    await stream.expectNothingFor(300);
    stream.close();
  });

  test(
    'a stream that resumes with Last-Event-ID gets the comment events it missed, in order, once, then live ones',
    TIMEOUT,
    async () => {
      const team = await createTestTeam(server);
      const mate = await team.member({ name: 'Mate' });
      const task = created(await team.owner.api.post('/v1/tasks', { title: 'T', assigneeIds: [mate.userId] }));
      const first = await live(server, mate, 'first connection');
      const c1 = created(await team.owner.api.post(`/v1/tasks/${task.id}/comments`, { body: 'one' }));
      const seen = await first.next();
      assert.equal(shown(seen), expected('comment.created', task.id, c1.id));
      first.close();

      const c2 = created(await team.owner.api.post(`/v1/tasks/${task.id}/comments`, { body: 'two' }));
      ok(await team.owner.api.patch(`/v1/tasks/${task.id}/comments/${c1.id}`, { body: 'one, edited' }));
      ok(await team.owner.api.delete(`/v1/tasks/${task.id}/comments/${c2.id}`));
      const missed = [
        expected('comment.created', task.id, c2.id),
        expected('comment.updated', task.id, c1.id),
        expected('comment.deleted', task.id, c2.id),
      ];

      const resumed = await openStream(server, mate.key, { lastEventId: seen.id, label: 'resumed' });
      assert.equal(resumed.status, 200);
      // The mate, an assignee, is notified of each new comment too (issue 30): c1's notice, then c2's.
      const replay = await resumed.collectUntil((e) => e.type === 'comment.deleted');
      checkShape(resumed, replay, Number(seen.id));
      assert.deepEqual(
        replay.map((e) => e.type),
        ['notification.created', 'comment.created', 'notification.created', 'comment.updated', 'comment.deleted'],
      );
      assert.deepEqual(replay.filter((e) => !e.type.startsWith('notification.')).map(shown), missed);
      await resumed.expectNothingFor(200);
      const c3 = created(await team.owner.api.post(`/v1/tasks/${task.id}/comments`, { body: 'three' }));
      assert.equal(shown(await resumed.next()), expected('comment.created', task.id, c3.id));
      assert.equal((await resumed.next()).type, 'notification.created');
      resumed.close();
    },
  );
});
