/**
 * A webhook never widens access: it receives exactly the events its owner's own event stream
 * would, and each payload shows only what its owner's GET would show (and once the owner may no
 * longer read the object, only its identity).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { createTestTeam } from '../factories.js';
import { expectStatus, TEST_STORE } from '../harness.js';
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
});
