/** Webhooks of attachments (issue 31): the attachment as GET answers it, `{"id", "taskId"}` once gone. */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { createTestTeam } from '../factories.js';
import { expectStatus } from '../harness.js';
import { createWebhook, startReceiver, verify, waitFor, webhookServer } from '../webhooks/support.js';
import { newTask, upload } from './support.js';

const server = await webhookServer();
const receiver = await startReceiver();
after(async () => {
  await server.close();
  await receiver.close();
});

test('attachment events carry the attachment as GET answers it, and a deleted one as its identity', async () => {
  const team = await createTestTeam(server);
  const { owner } = team;
  const webhook = await createWebhook(owner.api, `${receiver.url}/${owner.userId}`, {
    eventTypes: ['attachment.created', 'attachment.deleted'],
  });
  const mine = () => receiver.requests.filter((r) => r.path === `/${owner.userId}`);
  const task = await newTask(owner);
  const file = expectStatus(await upload(owner.api, task.id, Buffer.from('hooked'), 'hook.txt'), 201);
  // Deleted only once the created delivery has arrived: its body is built at its first attempt.
  await waitFor('the attachment.created delivery', () => (mine().length >= 1 ? true : undefined));
  expectStatus(await owner.api.delete(`/v1/attachments/${file.id}`), 200);
  await waitFor('the attachment.deleted delivery', () => (mine().length >= 2 ? true : undefined));
  const [created, deleted] = mine().map((r) => verify(webhook.secret, r));
  assert.equal(created.type, 'attachment.created');
  assert.deepEqual(created.data, file, 'the attachment as its POST (and GET) answered it');
  assert.equal(deleted.type, 'attachment.deleted');
  assert.deepEqual(deleted.data, { id: file.id, taskId: task.id });
});
