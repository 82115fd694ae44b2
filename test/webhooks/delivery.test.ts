/**
 * Webhook deliveries end to end, on the store under test: a change commits, the worker POSTs it
 * to a real loopback receiver, signed in the Standard Webhooks format (checked with the reference
 * `standardwebhooks` package), with the body the issue fixes.
 */
import assert from 'node:assert/strict';
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

/** A new team whose owner has a webhook to its own path on the receiver. */
async function hooked(fields: Record<string, unknown> = {}) {
  const team = await createTestTeam(server);
  const path = `/${team.id}`;
  const webhook = await createWebhook(team.owner.api, receiver.url + path, fields);
  const received = () => receiver.requests.filter((r) => r.path === path);
  return { team, api: team.owner.api, webhook, received };
}

describe(`webhook deliveries (${TEST_STORE})`, () => {
  test('a created task is POSTed as JSON with webhook-id, webhook-timestamp and a v1 signature the reference library verifies', async () => {
    const { api, webhook, received } = await hooked();
    const task = expectStatus(await api.post('/v1/tasks', { title: 'Signed' }), 201);
    const [request] = await waitFor('the delivery', () => received().length > 0 && received());
    assert.equal(request!.headers['content-type'], 'application/json');
    assert.match(request!.webhookId, /^msg_\d+$/);
    assert.match(String(request!.headers['webhook-timestamp']), /^\d{10}$/);
    assert.match(String(request!.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]+=*$/);
    const body = verify(webhook.secret, request!);
    assert.equal(body.type, 'task.created');
    assert.match(body.timestamp, /^\d{4}-\d{2}-\d{2}T/);
    const { body: detail } = await api.get(`/v1/tasks/${task.id}`);
    assert.deepEqual(body.data, detail, 'the data is the task as GET answers it for the owner');
    assert.ok(!request!.body.includes(webhook.secret.slice(6)), 'the body carries no secret');
  });

  test('a signature made with another secret does not verify (the check is real)', async () => {
    const { api, received } = await hooked();
    const other = await hooked();
    expectStatus(await api.post('/v1/tasks', { title: 'Wrong secret' }), 201);
    const [request] = await waitFor('the delivery', () => received().length > 0 && received());
    assert.throws(() => verify(other.webhook.secret, request!), /No matching signature/);
  });

  test('task.updated carries the task as it is; task.deleted carries {"id", "number"}; list events the list', async () => {
    const { api, webhook, received } = await hooked();
    const list = expectStatus(await api.post('/v1/lists', { name: 'Hooked list' }), 201);
    const task = expectStatus(await api.post('/v1/tasks', { title: 'Before', taskListIds: [list.id] }), 201);
    expectStatus(await api.patch(`/v1/tasks/${task.id}`, { title: 'After' }), 200);
    await waitFor('the update', () => received().some((r) => r.json?.type === 'task.updated'));
    expectStatus(await api.delete(`/v1/tasks/${task.id}`), 200);
    const bodies = await waitFor(
      'four deliveries',
      () => received().length >= 4 && received().map((r) => verify(webhook.secret, r)),
    );
    assert.deepEqual(
      bodies.map((b: any) => b.type),
      ['taskList.created', 'task.created', 'task.updated', 'task.deleted'],
      'in event order',
    );
    assert.deepEqual(bodies[0].data, {
      id: list.id,
      name: 'Hooked list',
      color: 'Green',
      isArchived: false,
      sharedWithTeam: false,
    });
    assert.equal(bodies[2].data.title, 'After');
    assert.deepEqual(bodies[3].data, { id: task.id, number: task.number });
  });

  test('taskStatus.* deliveries carry the status as GET /v1/task-statuses shows it, and {"id"} once it is deleted', async () => {
    const { api, webhook, received } = await hooked({
      eventTypes: ['taskStatus.created', 'taskStatus.updated', 'taskStatus.deleted'],
    });
    const made = expectStatus(await api.post('/v1/task-statuses', { name: 'Hooked', color: '#123456' }), 201);
    const bodies = await waitFor(
      'the creation',
      () => received().length >= 1 && received().map((r) => verify(webhook.secret, r)),
    );
    assert.equal(bodies[0].type, 'taskStatus.created');
    const listed = expectStatus(await api.get('/v1/task-statuses'), 200).find((s: { id: number }) => s.id === made.id);
    assert.deepEqual(bodies[0].data, listed);
    const done = expectStatus(await api.get('/v1/task-statuses'), 200).find((s: { name: string }) => s.name === 'Done');
    expectStatus(await api.delete(`/v1/task-statuses/${made.id}?moveTo=${done.id}`), 200);
    const all = await waitFor(
      'the deletion',
      () => received().length >= 2 && received().map((r) => verify(webhook.secret, r)),
    );
    assert.deepEqual(all[1], { type: 'taskStatus.deleted', timestamp: all[1].timestamp, data: { id: made.id } });
  });

  test('label.* deliveries carry the label as GET /v1/labels shows it, and {"id"} once it is deleted', async () => {
    const { api, webhook, received } = await hooked({ eventTypes: ['label.created', 'label.deleted'] });
    const made = expectStatus(await api.post('/v1/labels', { name: 'Hooked', color: 'Teal' }), 201);
    const bodies = await waitFor(
      'the creation',
      () => received().length >= 1 && received().map((r) => verify(webhook.secret, r)),
    );
    assert.equal(bodies[0].type, 'label.created');
    assert.deepEqual(bodies[0].data, expectStatus(await api.get('/v1/labels'), 200)[0]);
    expectStatus(await api.delete(`/v1/labels/${made.id}`), 200);
    const all = await waitFor(
      'the deletion',
      () => received().length >= 2 && received().map((r) => verify(webhook.secret, r)),
    );
    assert.deepEqual(all[1], { type: 'label.deleted', timestamp: all[1].timestamp, data: { id: made.id } });
  });

  test('with eventTypes, only those types are delivered', async () => {
    const { api, received } = await hooked({ eventTypes: ['task.deleted'] });
    const task = expectStatus(await api.post('/v1/tasks', { title: 'Filtered' }), 201);
    expectStatus(await api.patch(`/v1/tasks/${task.id}`, { title: 'Filtered 2' }), 200);
    expectStatus(await api.delete(`/v1/tasks/${task.id}`), 200);
    await waitFor('the deletion', () => received().length > 0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(
      received().map((r) => r.json.type),
      ['task.deleted'],
    );
  });

  test('a failed delivery is retried with the same webhook-id and body, each attempt logged with its status, response and next retry', async () => {
    let answered = 0;
    const flaky = await startReceiver(() => (answered++ < 2 ? { status: 500, body: 'not yet' } : { status: 204 }));
    try {
      const team = await createTestTeam(server);
      const api = team.owner.api;
      const webhook = await createWebhook(api, `${flaky.url}/flaky`);
      expectStatus(await api.post('/v1/tasks', { title: 'Retried' }), 201);
      const tries = await waitFor('three attempts', () => flaky.requests.length >= 3 && flaky.requests);
      assert.equal(new Set(tries.map((r) => r.webhookId)).size, 1, 'one webhook-id on every attempt');
      assert.equal(new Set(tries.map((r) => r.body)).size, 1, 'the same body on every attempt');
      const summary = await waitFor('the success to be logged', async () => {
        const [d] = expectStatus(await api.get(`/v1/webhooks/${webhook.id}/deliveries`), 200);
        return d.status === 'succeeded' && d;
      });
      assert.equal(summary.messageId, tries[0]!.webhookId);
      assert.equal(summary.attemptCount, 3);
      assert.ok(!('payload' in summary) && !('attempts' in summary), 'the log lists no bodies and no attempt logs');
      const logged = expectStatus(await api.get(`/v1/webhooks/${webhook.id}/deliveries/${summary.id}`), 200);
      assert.deepEqual(
        { ...logged, payload: undefined, attempts: undefined },
        { ...summary, payload: undefined, attempts: undefined },
      );
      assert.equal(logged.payload, tries[0]!.body, 'the delivery shows the body as sent');
      assert.deepEqual(summary.lastAttempt, logged.attempts[0], 'the log shows the newest attempt');
      const [last, second, first] = logged.attempts;
      assert.equal(first.status, 500);
      assert.equal(first.responseBody, 'not yet');
      assert.ok(first.nextAttemptAt, 'a failed attempt names its retry time');
      assert.equal(second.status, 500);
      assert.equal(last.status, 204);
      assert.equal(last.nextAttemptAt, null);
      assert.equal(typeof last.durationMs, 'number');
    } finally {
      await flaky.close();
    }
  });
});
