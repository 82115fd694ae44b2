/**
 * /v1/webhooks: who may do what (the owner manages; the team's owners and admins list, disable
 * and delete; anyone else is told it does not exist), the secret shown once and stored sealed,
 * rotation, test deliveries, manual retries, and every refusal as {"error"}.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { MAX_WEBHOOKS_PER_TEAM } from '../../src/contract/webhooks.js';
import { snapshotDatabase } from '../snapshot.js';
import { createTestTeam } from '../factories.js';
import { expectError, expectStatus, startTestServer, TEST_STORE } from '../harness.js';
import { createWebhook, deliveriesOf, startReceiver, verify, waitFor, webhookServer } from './support.js';

const server = await webhookServer();
const receiver = await startReceiver();
after(async () => {
  await server.close();
  await receiver.close();
});

const hookUrl = (name: string) => `${receiver.url}/${name}`;

describe(`webhook management (${TEST_STORE})`, () => {
  test('creating answers 201 with the secret (whsec_ + 32 bytes of base64) once; reads never show it, nor does the database', async () => {
    const { owner } = await createTestTeam(server);
    const before = await snapshotDatabase(server.store.db);
    const created = await createWebhook(owner.api, hookUrl('once'), { description: 'CI' });
    assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(created.secret.slice(6), 'base64').length, 32);
    assert.equal(created.url, hookUrl('once'));
    assert.equal(created.description, 'CI');
    assert.equal(created.eventTypes, null, 'no eventTypes: every event');
    assert.equal(created.enabled, true);
    assert.deepEqual(created.owner, { id: owner.userId, name: owner.name, email: owner.email });
    const key = created.secret.slice(6);
    const read = await owner.api.get(`/v1/webhooks/${created.id}`);
    const listed = await owner.api.get('/v1/webhooks');
    for (const answer of [read, listed]) {
      expectStatus(answer, 200);
      assert.ok(!answer.text.includes(key) && !answer.text.includes('secret"'), answer.text);
    }
    const stored = JSON.stringify((await snapshotDatabase(server.store.db)).tables);
    assert.ok(!stored.includes(key), 'the database holds the secret sealed, never in clear');
    assert.ok(!stored.includes(Buffer.from(key, 'base64').toString('hex')));
    assert.ok(before);
  });

  test('without WEBHOOK_SECRET_KEY the server refuses to create webhooks with 409, saying what the operator must set', async () => {
    const keyless = await startTestServer({ WEBHOOK_SECRET_KEY: '' });
    try {
      const { owner } = await createTestTeam(keyless);
      expectError(await owner.api.post('/v1/webhooks', { url: hookUrl('x') }), 409, /WEBHOOK_SECRET_KEY/);
      expectStatus(await owner.api.get('/v1/webhooks'), 200);
    } finally {
      await keyless.close();
    }
  });

  test('bad URLs and event types are refused with 400 naming the problem, and nothing is created', async () => {
    const { owner } = await createTestTeam(server);
    const refusals: [unknown, RegExp][] = [
      [{ url: 'not a url' }, /^url must be an absolute https URL/],
      [{ url: 'ftp://example.com/x' }, /^url must be an absolute https URL/],
      [
        { url: 'http://example.com/x' },
        /^url must use https \(http only for hosts the server's WEBHOOK_ALLOW_HOSTS lists/,
      ],
      [{ url: 'https://user:pw@example.com/x' }, /must not carry a user name or password/],
      [{ url: 'https://127.0.0.2/x' }, /^127\.0\.0\.2 is a loopback address, which webhooks may not reach\.$/],
      [{ url: 'https://[::ffff:10.0.0.1]/x' }, /is a private address/],
      [{ url: 'https://169.254.169.254/latest' }, /is a cloud metadata address/],
      [{ url: 'https://tasklane-no-such-host.invalid/x' }, /cannot be resolved/],
      [{ url: hookUrl('x'), eventTypes: [] }, /^eventTypes must list one or more distinct event types/],
      [{ url: hookUrl('x'), eventTypes: ['task.exploded'] }, /^eventTypes\[0\] must be one of: taskList\.created, /],
      [{ url: hookUrl('x'), eventTypes: ['task.created', 'task.created'] }, /^eventTypes must list/],
      [{ url: hookUrl('x'), description: 'd'.repeat(501) }, /^description must be at most 500 characters/],
      [{}, /url/],
    ];
    for (const [body, message] of refusals) {
      expectError(await owner.api.post('/v1/webhooks', body), 400, message);
    }
    assert.deepEqual(expectStatus(await owner.api.get('/v1/webhooks'), 200), []);
  });

  test("a member sees and manages only their own webhooks; another member's, or another team's, is 404", async () => {
    const team = await createTestTeam(server);
    const ann = await team.member({ name: 'Ann' });
    const bob = await team.member({ name: 'Bob' });
    const mine = await createWebhook(ann.api, hookUrl('ann'));
    const theirs = await createWebhook(bob.api, hookUrl('bob'));
    const listed = expectStatus(await ann.api.get('/v1/webhooks'), 200);
    assert.deepEqual(
      listed.map((w: any) => w.id),
      [mine.id],
    );
    const stranger = (await createTestTeam(server)).owner;
    for (const [who, api] of [
      ['a teammate', ann.api],
      ['another team', stranger.api],
    ] as const) {
      const missing = `Webhook ${theirs.id} not found.`;
      expectError(await api.get(`/v1/webhooks/${theirs.id}`), 404, missing);
      expectError(await api.patch(`/v1/webhooks/${theirs.id}`, { enabled: false }), 404, missing);
      expectError(await api.delete(`/v1/webhooks/${theirs.id}`), 404, missing);
      expectError(await api.post(`/v1/webhooks/${theirs.id}/test`), 404, missing);
      expectError(await api.get(`/v1/webhooks/${theirs.id}/deliveries`), 404, missing);
      assert.ok(who);
    }
    expectError(await ann.api.get('/v1/webhooks/not-a-uuid'), 400, 'webhookId must be a UUID.');
  });

  test("the team's owners and admins list every webhook of the team and may disable any, but change, test or read the deliveries of none", async () => {
    const team = await createTestTeam(server);
    const admin = await team.member({ role: 'admin', name: 'Ada Admin' });
    const member = await team.member({ name: 'Mo' });
    const hook = await createWebhook(member.api, hookUrl('mo'));
    for (const manager of [team.owner, admin]) {
      const ids = expectStatus(await manager.api.get('/v1/webhooks'), 200).map((w: any) => w.id);
      assert.ok(ids.includes(hook.id), `${manager.role} lists it`);
      expectStatus(await manager.api.get(`/v1/webhooks/${hook.id}`), 200);
      const only = /^Only the webhook's owner can do this/;
      expectError(await manager.api.patch(`/v1/webhooks/${hook.id}`, { url: hookUrl('hijack') }), 403, only);
      expectError(await manager.api.patch(`/v1/webhooks/${hook.id}`, { enabled: true }), 403, only);
      expectError(await manager.api.post(`/v1/webhooks/${hook.id}/rotate-secret`), 403, only);
      expectError(await manager.api.post(`/v1/webhooks/${hook.id}/test`), 403, only);
      expectError(await manager.api.get(`/v1/webhooks/${hook.id}/deliveries`), 403, only);
    }
    const disabled = expectStatus(await admin.api.patch(`/v1/webhooks/${hook.id}`, { enabled: false }), 200);
    assert.equal(disabled.enabled, false);
    assert.equal(disabled.disabledReason, 'Disabled by Ada Admin.');
    const seen = expectStatus(await member.api.get(`/v1/webhooks/${hook.id}`), 200);
    assert.equal(seen.disabledReason, 'Disabled by Ada Admin.', 'its owner sees why');
  });

  test('its owner changes the URL, description and event types (null: every type), and deletes it', async () => {
    const { owner } = await createTestTeam(server);
    const hook = await createWebhook(owner.api, hookUrl('a'), { eventTypes: ['task.created'] });
    assert.deepEqual(hook.eventTypes, ['task.created']);
    const changed = expectStatus(
      await owner.api.patch(`/v1/webhooks/${hook.id}`, {
        url: hookUrl('b'),
        description: 'moved',
        eventTypes: ['task.deleted', 'taskList.created'],
      }),
      200,
    );
    assert.equal(changed.url, hookUrl('b'));
    assert.equal(changed.description, 'moved');
    assert.deepEqual(changed.eventTypes, ['task.deleted', 'taskList.created'].sort());
    const all = expectStatus(await owner.api.patch(`/v1/webhooks/${hook.id}`, { eventTypes: null }), 200);
    assert.equal(all.eventTypes, null);
    expectError(await owner.api.patch(`/v1/webhooks/${hook.id}`, { url: 'http://example.com/' }), 400, /https/);
    assert.deepEqual(expectStatus(await owner.api.delete(`/v1/webhooks/${hook.id}`), 200), {
      id: hook.id,
      deleted: true,
    });
    expectError(await owner.api.get(`/v1/webhooks/${hook.id}`), 404, `Webhook ${hook.id} not found.`);
  });

  test('the delivery log pages newest first with before=<id>; a cursor past every possible id is the first page', async () => {
    const { owner } = await createTestTeam(server);
    const hook = await createWebhook(owner.api, hookUrl('paged'));
    for (let n = 0; n < 3; n++) expectStatus(await owner.api.post(`/v1/webhooks/${hook.id}/test`), 202);
    const all = expectStatus(await owner.api.get(`/v1/webhooks/${hook.id}/deliveries`), 200);
    const ids = all.map((d: any) => d.id);
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => b - a),
      'newest first',
    );
    const next = expectStatus(await owner.api.get(`/v1/webhooks/${hook.id}/deliveries?limit=1&before=${ids[0]}`), 200);
    assert.deepEqual(
      next.map((d: any) => d.id),
      [ids[1]],
    );
    for (const huge of ['2147483648', '9007199254740992']) {
      const page = expectStatus(await owner.api.get(`/v1/webhooks/${hook.id}/deliveries?before=${huge}`), 200);
      assert.deepEqual(
        page.map((d: any) => d.id),
        ids,
      );
    }
  });

  test('deleting a webhook removes every delivery of its log, however many (deleted in batches before the webhook)', async () => {
    const { owner } = await createTestTeam(server);
    const hook = await createWebhook(owner.api, hookUrl('long-log'));
    expectStatus(await owner.api.post(`/v1/webhooks/${hook.id}/test`), 202);
    // A long log, written directly: 2,500 deliveries is more than two of the delete's batches.
    const db = server.store.db;
    const [first] = await db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', hook.id).execute();
    const copy: Partial<typeof first> = { ...first };
    delete copy.id;
    for (let n = 0; n < 5; n++) {
      await db
        .insertInto('webhook_deliveries')
        .values(Array.from({ length: 500 }, () => copy as Omit<NonNullable<typeof first>, 'id'>))
        .execute();
    }
    const count = async (table: 'webhook_deliveries' | 'webhooks') => {
      const row = await db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where(table === 'webhooks' ? 'id' : 'webhook_id', '=', hook.id)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    };
    assert.equal(await count('webhook_deliveries'), 2501);
    expectStatus(await owner.api.delete(`/v1/webhooks/${hook.id}`), 200);
    assert.equal(await count('webhook_deliveries'), 0);
    assert.equal(await count('webhooks'), 0);
  });

  test(`a team has at most ${MAX_WEBHOOKS_PER_TEAM} webhooks; one more is a 409`, async () => {
    const { owner } = await createTestTeam(server);
    for (let n = 0; n < MAX_WEBHOOKS_PER_TEAM; n++) await createWebhook(owner.api, hookUrl(`many-${n}`));
    expectError(await owner.api.post('/v1/webhooks', { url: hookUrl('one-more') }), 409, /at most 50 webhooks/);
  });

  test(`the cap holds for creations sent at the same moment: of 6 racing for the last place, exactly one gets it`, async () => {
    const { owner } = await createTestTeam(server);
    for (let n = 0; n < MAX_WEBHOOKS_PER_TEAM - 1; n++) await createWebhook(owner.api, hookUrl(`almost-${n}`));
    const racing = await Promise.all(
      Array.from({ length: 6 }, (_, n) => owner.api.post('/v1/webhooks', { url: hookUrl(`race-${n}`) })),
    );
    assert.deepEqual(racing.map((r) => r.status).sort(), [201, 409, 409, 409, 409, 409]);
    assert.equal(expectStatus(await owner.api.get('/v1/webhooks'), 200).length, MAX_WEBHOOKS_PER_TEAM);
  });

  test('after a rotation both secrets sign for 24 hours: the reference library verifies the delivery with either', async () => {
    const { owner } = await createTestTeam(server);
    const hook = await createWebhook(owner.api, hookUrl('rotated'));
    const rotated = expectStatus(await owner.api.post(`/v1/webhooks/${hook.id}/rotate-secret`), 200);
    assert.notEqual(rotated.secret, hook.secret);
    const window = Date.parse(rotated.previousSecretExpiresAt) - Date.now();
    assert.ok(window > 23.9 * 3600_000 && window <= 24 * 3600_000, `the old secret signs for 24 h (${window} ms)`);
    expectStatus(await owner.api.post('/v1/tasks', { title: 'Rotated' }), 201);
    const [request] = await waitFor('the delivery', () => {
      const found = receiver.requests.filter((r) => r.path === '/rotated');
      return found.length > 0 && found;
    });
    assert.equal(String(request!.headers['webhook-signature']).split(' ').length, 2, 'two signatures, space-separated');
    assert.equal(verify(rotated.secret, request!).type, 'task.created');
    assert.equal(verify(hook.secret, request!).type, 'task.created');
  });

  test('POST …/test queues a signed webhook.test delivery (202) that arrives and is logged', async () => {
    const { owner } = await createTestTeam(server);
    const hook = await createWebhook(owner.api, hookUrl('tested'));
    const queued = expectStatus(await owner.api.post(`/v1/webhooks/${hook.id}/test`), 202);
    assert.equal(queued.type, 'webhook.test');
    assert.equal(queued.status, 'pending');
    const [request] = await waitFor('the test', () => {
      const found = receiver.requests.filter((r) => r.path === '/tested');
      return found.length > 0 && found;
    });
    assert.equal(request!.webhookId, queued.messageId);
    const body = verify(hook.secret, request!);
    assert.equal(body.type, 'webhook.test');
    assert.deepEqual(body.data, { webhookId: hook.id });
    await waitFor('the log', async () => (await deliveriesOf(owner.api, hook.id))[0]?.status === 'succeeded');
  });

  test('POST …/deliveries/{id}/retry sends a delivery again with the same webhook-id; a disabled webhook or unknown delivery is refused', async () => {
    const { owner } = await createTestTeam(server);
    const hook = await createWebhook(owner.api, hookUrl('again'));
    const queued = expectStatus(await owner.api.post(`/v1/webhooks/${hook.id}/test`), 202);
    const arrived = () => receiver.requests.filter((r) => r.path === '/again');
    await waitFor('the first sending', async () => (await deliveriesOf(owner.api, hook.id))[0]?.status === 'succeeded');
    const again = expectStatus(await owner.api.post(`/v1/webhooks/${hook.id}/deliveries/${queued.id}/retry`), 202);
    assert.equal(again.status, 'pending');
    await waitFor('the second sending', () => arrived().length === 2);
    assert.deepEqual(
      arrived().map((r) => r.webhookId),
      [queued.messageId, queued.messageId],
    );
    expectError(
      await owner.api.post(`/v1/webhooks/${hook.id}/deliveries/2147480001/retry`),
      404,
      'Delivery 2147480001 not found.',
    );
    expectStatus(await owner.api.patch(`/v1/webhooks/${hook.id}`, { enabled: false }), 200);
    expectError(await owner.api.post(`/v1/webhooks/${hook.id}/deliveries/${queued.id}/retry`), 409, /disabled/);
    expectError(await owner.api.post(`/v1/webhooks/${hook.id}/test`), 409, /disabled/);
  });
});
