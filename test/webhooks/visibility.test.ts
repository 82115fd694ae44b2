/**
 * A webhook never widens access: it receives exactly the events its owner's own event stream
 * would, and each payload shows only what its owner's GET would show (and once the owner may no
 * longer read the object, only its identity).
 *
 * A body is the object as it is when the body is built, at the delivery's first attempt (docs/api.md,
 * "Webhooks"), not as it was at the change. So no test here changes an object again before the
 * delivery it expects has arrived, unless it holds every delivery back until then (a server that
 * does not deliver writes the changes; one that delivers starts after them).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { createTestTeam } from '../factories.js';
import { expectStatus, startTestServer, tempDatabase, TEST_STORE } from '../harness.js';
import { createWebhook, startReceiver, verify, waitFor, webhookServer } from './support.js';

const server = await webhookServer();
const receiver = await startReceiver();
after(async () => {
  await server.close();
  await receiver.close();
});

describe(`what a webhook may show (${TEST_STORE})`, () => {
  test("a webhook gets only its owner's events, each object as its owner may see it; after losing access, only its identity", async () => {
    const marker = `private${randomBytes(5).toString('hex')}`;
    const team = await createTestTeam(server);
    const owner = await team.member({ name: 'Hooked' });
    const maker = await team.member({ name: 'Maker' });
    const webhook = await createWebhook(owner.api, `${receiver.url}/${owner.userId}`);
    const bodies = () =>
      receiver.requests.filter((r) => r.path === `/${owner.userId}`).map((r) => verify(webhook.secret, r));

    // The maker's private list, and a list shared with the webhook's owner.
    const hidden = expectStatus(await maker.api.post('/v1/lists', { name: `List ${marker}` }), 201);
    const shared = expectStatus(await maker.api.post('/v1/lists', { name: 'Shared' }), 201);
    expectStatus(await maker.api.post(`/v1/lists/${shared.id}/members`, { userId: owner.userId }), 201);
    const secretTask = expectStatus(
      await maker.api.post('/v1/tasks', { title: `Task ${marker}`, taskListIds: [hidden.id] }),
      201,
    );
    const both = expectStatus(
      await maker.api.post('/v1/tasks', { title: 'On both lists', taskListIds: [hidden.id, shared.id] }),
      201,
    );
    const created = await waitFor('the shared task', () => bodies().find((b) => b.type === 'task.created'));
    const asOwnerSees = expectStatus(await owner.api.get(`/v1/tasks/${both.id}`), 200);
    assert.deepEqual(created.data, asOwnerSees, "the payload is the owner's own GET");
    assert.deepEqual(
      created.data.taskLists.map((l: any) => l.id),
      [shared.id],
      'the private list the task is also on is not shown',
    );

    // Taken off the shared list: the owner's stream hears of it; the payload is only the identity.
    expectStatus(await maker.api.patch(`/v1/tasks/${both.id}`, { taskListIds: [hidden.id] }), 200);
    const updated = await waitFor('the update', () => bodies().find((b) => b.type === 'task.updated'));
    assert.deepEqual(updated.data, { id: both.id, number: both.number });
    assert.equal(updated.changes, undefined, 'no old values of a task the owner may no longer read');

    // Nothing of the private task ever arrived, in any body.
    const all = receiver.requests.filter((r) => r.path === `/${owner.userId}`);
    assert.ok(
      all.every((r) => !r.body.includes(marker)),
      'the private marker reached the webhook',
    );
    assert.ok(
      bodies().every((b) => b.data.id !== secretTask.id && b.data.id !== hidden.id),
      `events of objects the owner cannot read were sent: ${JSON.stringify(bodies())}`,
    );
    assert.deepEqual(
      bodies().map((b) => b.type),
      ['taskList.updated', 'task.created', 'task.updated'],
      'exactly the events of the owner’s stream: added to the shared list, the task, the task leaving their view',
    );
  });

  test("a task.updated payload carries the changed fields' from/to exactly as the owner's activity shows them (a list they cannot see left out)", async () => {
    const team = await createTestTeam(server);
    const owner = await team.member({ name: 'Watcher' });
    const maker = await team.member({ name: 'Changer' });
    const webhook = await createWebhook(owner.api, `${receiver.url}/${owner.userId}`, { eventTypes: ['task.updated'] });
    const hidden = expectStatus(await maker.api.post('/v1/lists', { name: 'Not yours' }), 201);
    const shared = expectStatus(await maker.api.post('/v1/lists', { name: 'Ours' }), 201);
    expectStatus(await maker.api.post(`/v1/lists/${shared.id}/members`, { userId: owner.userId }), 201);
    const task = expectStatus(await maker.api.post('/v1/tasks', { title: 'Before', taskListIds: [shared.id] }), 201);

    expectStatus(
      await maker.api.patch(`/v1/tasks/${task.id}`, {
        title: 'After',
        assigneeIds: [owner.userId],
        taskListIds: [shared.id, hidden.id],
      }),
      200,
    );
    const received = await waitFor('the update', () =>
      receiver.requests.find((r) => r.path === `/${owner.userId}` && r.json?.type === 'task.updated'),
    );
    const body = verify(webhook.secret, received);
    const [entry] = expectStatus(await owner.api.get(`/v1/tasks/${task.id}/activity?limit=1`), 200);
    assert.deepEqual(body.changes, entry.changes, "the owner's own activity entry of the change");
    assert.deepEqual(body.changes.title, { from: 'Before', to: 'After' });
    assert.deepEqual(
      body.changes.assignees.to.map((p: any) => p.id),
      [owner.userId],
    );
    assert.equal(body.changes.taskLists, undefined, 'joining a list the owner cannot see changes nothing they can see');
    assert.ok(!received.body.includes('Not yours'), "a hidden list's name reached the webhook");
  });

  test('comment events carry the comment as GET answers it, and a deleted one as its identity', async () => {
    const team = await createTestTeam(server);
    const { owner } = team;
    const webhook = await createWebhook(owner.api, `${receiver.url}/${owner.userId}`, {
      eventTypes: ['comment.created', 'comment.deleted'],
    });
    const mine = () => receiver.requests.filter((r) => r.path === `/${owner.userId}`);
    const task = expectStatus(await owner.api.post('/v1/tasks', { title: 'Discussed' }), 201);
    const comment = expectStatus(await owner.api.post(`/v1/tasks/${task.id}/comments`, { body: 'Hi *there*' }), 201);
    // Deleted only once the comment's own delivery has arrived: its body is built at its first attempt.
    await waitFor('the comment.created delivery', () => (mine().length >= 1 ? true : undefined));
    expectStatus(await owner.api.delete(`/v1/tasks/${task.id}/comments/${comment.id}`), 200);
    await waitFor('the comment.deleted delivery', () => (mine().length >= 2 ? true : undefined));
    const [created, deleted] = mine().map((r) => verify(webhook.secret, r));
    assert.equal(created.type, 'comment.created');
    assert.deepEqual(created.data, comment, 'the comment as its POST (and GET) answered it');
    assert.equal(deleted.type, 'comment.deleted');
    assert.deepEqual(deleted.data, { id: comment.id, taskId: task.id });
  });

  test('a body is built at its first attempt: a comment deleted before then is only its identity in comment.created too', async () => {
    const database = await tempDatabase();
    try {
      // The changes, made while no process delivers (the harness's servers do not, unless told to).
      const writer = await startTestServer({ DATABASE_URL: database.url });
      const { owner, webhook, task, comment } = await (async () => {
        const { owner } = await createTestTeam(writer);
        const webhook = await createWebhook(owner.api, `${receiver.url}/${owner.userId}`, {
          eventTypes: ['comment.created', 'comment.deleted'],
        });
        const task = expectStatus(await owner.api.post('/v1/tasks', { title: 'Discussed' }), 201);
        const comment = expectStatus(await owner.api.post(`/v1/tasks/${task.id}/comments`, { body: 'Gone soon' }), 201);
        expectStatus(await owner.api.delete(`/v1/tasks/${task.id}/comments/${comment.id}`), 200);
        return { owner, webhook, task, comment };
      })().finally(() => writer.close());
      // Then a process that delivers both: each body is built now, when the comment is gone.
      const sender = await webhookServer({ DATABASE_URL: database.url });
      try {
        const mine = () => receiver.requests.filter((r) => r.path === `/${owner.userId}`);
        await waitFor('both comment events', () => (mine().length >= 2 ? true : undefined));
        const bodies = mine().map((r) => verify(webhook.secret, r));
        assert.deepEqual(
          bodies.map((b) => [b.type, b.data]),
          [
            ['comment.created', { id: comment.id, taskId: task.id }],
            ['comment.deleted', { id: comment.id, taskId: task.id }],
          ],
        );
        assert.ok(
          mine().every((r) => !r.body.includes('Gone soon')),
          'a body showed the comment as it was at the change',
        );
      } finally {
        await sender.close();
      }
    } finally {
      await database.remove();
    }
  });
});
