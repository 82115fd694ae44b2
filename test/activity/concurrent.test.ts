/**
 * Activity and comments under writes that arrive at the same moment (meant for PostgreSQL, where
 * transactions run side by side; on SQLite they queue). Each change records exactly its own
 * entry, with the values before it as they were when it ran; a conditional comment edit lets one
 * of two racers through; a comment racing its task's deletion never fails the server.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestTeam } from '../factories.js';
import { expectStatus, startTestServer, TEST_STORE, type TestServer } from '../harness.js';
import { show, statuses, together, type Sent } from '../together.js';
import { activityOf, newTask } from './support.js';

const ROUNDS = 5;

describe(`${TEST_STORE}: activity and comments racing each other`, () => {
  let server: TestServer;
  before(async () => {
    // A pool large enough that the racing requests run at once on PostgreSQL.
    server = await startTestServer({ DATABASE_POOL_SIZE: '10' });
  });
  after(() => server.close());

  test('PATCHes of one field at once each record their own entry, each from the value the one before left', async () => {
    const { owner } = await createTestTeam(server);
    for (let round = 0; round < ROUNDS; round++) {
      const task = await newTask(owner, { title: 'start' });
      const titles = Array.from({ length: 6 }, (_, i) => `title ${round}.${i}`);
      const sent: Sent[] = titles.map((title) => ({
        method: 'PATCH',
        path: `/v1/tasks/${task.id}`,
        key: owner.key,
        body: { title },
      }));
      const answers = await together(server.url, sent);
      const context = `round ${round}: ${answers.map((a, i) => show(sent[i]!, a)).join(' | ')}`;
      assert.deepEqual(
        statuses(answers),
        titles.map(() => 200),
        context,
      );
      const chain = (await activityOf(owner, task.id)).filter((e) => e.kind === 'task.updated').reverse();
      assert.equal(chain.length, titles.length, context);
      assert.deepEqual(chain.map((e) => e.changes.title!.to).sort(), [...titles].sort(), context);
      let previous = 'start';
      for (const entry of chain) {
        assert.deepEqual(Object.keys(entry.changes), ['title'], context);
        assert.equal(entry.changes.title!.from, previous, `${context}: the chain breaks at entry ${entry.id}`);
        previous = entry.changes.title!.to;
      }
      assert.equal(expectStatus(await owner.api.get(`/v1/tasks/${task.id}`), 200).title, previous, context);
    }
  });

  test('PATCHes of different fields at once: exactly one entry each, holding only its own fields', async () => {
    const team = await createTestTeam(server);
    const mate = await team.member();
    for (let round = 0; round < ROUNDS; round++) {
      const task = await newTask(team.owner, { title: 'same', priority: 'low' });
      const bodies = [
        { title: `renamed ${round}` },
        { priority: 'high' },
        { dueDate: '2031-01-02' },
        { assigneeIds: [mate.userId] },
      ];
      const sent: Sent[] = bodies.map((body) => ({
        method: 'PATCH',
        path: `/v1/tasks/${task.id}`,
        key: team.owner.key,
        body,
      }));
      const answers = await together(server.url, sent);
      const context = `round ${round}: ${answers.map((a, i) => show(sent[i]!, a)).join(' | ')}`;
      assert.deepEqual(statuses(answers), [200, 200, 200, 200], context);
      const updates = (await activityOf(team.owner, task.id)).filter((e) => e.kind === 'task.updated');
      assert.deepEqual(
        updates.map((e) => Object.keys(e.changes).join()).sort(),
        ['assignees', 'dueDate', 'priority', 'title'],
        context,
      );
      const byField = Object.fromEntries(updates.map((e) => [Object.keys(e.changes)[0], e.changes]));
      assert.deepEqual(byField.title, { title: { from: 'same', to: `renamed ${round}` } }, context);
      assert.deepEqual(byField.priority, { priority: { from: 'low', to: 'high' } }, context);
      assert.deepEqual(byField.dueDate, { dueDate: { from: null, to: '2031-01-02' } }, context);
      assert.deepEqual(byField.assignees!.assignees!.from, [], context);
    }
  });

  test('two edits of one comment with the same If-Match: one 200, the other 412, and one comment.updated entry', async () => {
    const { owner } = await createTestTeam(server);
    const task = await newTask(owner);
    for (let round = 0; round < ROUNDS; round++) {
      const created = await owner.api.post(`/v1/tasks/${task.id}/comments`, { body: `round ${round}` });
      const comment = expectStatus(created, 201);
      const etag = created.headers.get('etag')!;
      const sent: Sent[] = ['first', 'second'].map((who) => ({
        method: 'PATCH',
        path: `/v1/tasks/${task.id}/comments/${comment.id}`,
        key: owner.key,
        body: { body: `${who} ${round}` },
        headers: { 'if-match': etag },
      }));
      const answers = await together(server.url, sent);
      const context = `round ${round}: ${answers.map((a, i) => show(sent[i]!, a)).join(' | ')}`;
      assert.deepEqual(statuses(answers), [200, 412], context);
      const winner = answers.find((a) => a.status === 200)!;
      const stored = expectStatus(await owner.api.get(`/v1/tasks/${task.id}/comments/${comment.id}`), 200);
      assert.equal(stored.body, winner.body.body, context);
      const edits = (await activityOf(owner, task.id, '?limit=200')).filter(
        (e) => e.kind === 'comment.updated' && e.changes.commentId!.to === comment.id,
      );
      assert.equal(edits.length, 1, context);
    }
  });

  test('comments posted while their task is deleted: each is created before it (and goes with it) or answered 404; nothing fails', async () => {
    const { owner } = await createTestTeam(server);
    for (let round = 0; round < ROUNDS; round++) {
      const task = await newTask(owner);
      const sent: Sent[] = [
        { method: 'DELETE', path: `/v1/tasks/${task.id}`, key: owner.key },
        ...[1, 2, 3].map((i): Sent => ({
          method: 'POST',
          path: `/v1/tasks/${task.id}/comments`,
          key: owner.key,
          body: { body: `c${i}` },
        })),
      ];
      const answers = await together(server.url, sent);
      const context = `round ${round}: ${answers.map((a, i) => show(sent[i]!, a)).join(' | ')}`;
      assert.equal(answers[0]!.status, 200, context);
      for (const answer of answers.slice(1)) assert.ok([201, 404].includes(answer.status), context);
      const left = await server.store.db
        .selectFrom('task_comments')
        .select('id')
        .where('task_id', '=', task.id)
        .execute();
      assert.deepEqual(left, [], context);
    }
  });
});
