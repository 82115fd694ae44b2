/**
 * `admin webhook list|delete` (issue 25, item 4): the operator sees every webhook of a team, a
 * removed member's included, and deletes any of them with its log, so a team is never stuck
 * behind webhooks nobody in it can manage.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createTestTeam } from '../factories.js';
import { expectError, expectStatus } from '../harness.js';
import { TIMEOUT } from '../processes.js';
import { createWebhook } from '../webhooks/support.js';
import { adminOk, adminRefuses, serverOnTempDatabase } from './support.js';

const live = serverOnTempDatabase();
const hookUrl = (name: string) => `http://127.0.0.1:9/${name}`;

describe('admin webhook', { timeout: 4 * TIMEOUT }, () => {
  test("list prints every webhook of the team, a removed member's included, as GET /v1/webhooks shows them to an owner; never a secret", async () => {
    const team = await createTestTeam(live.server);
    const leaver = await team.member({ name: 'Lee Leaver' });
    const owners = await createWebhook(team.owner.api, hookUrl('owner'));
    const theirs = await createWebhook(leaver.api, hookUrl('leaver'), { eventTypes: ['task.created'] });
    expectStatus(await team.owner.api.delete(`/v1/members/${leaver.userId}`), 200);
    await createWebhook((await createTestTeam(live.server)).owner.api, hookUrl('another-team'));

    const { value: listed } = await adminOk(live.db.url, ['webhook', 'list', '--org', team.id.toUpperCase()]);
    assert.deepEqual(Object.keys(listed), ['orgId', 'webhooks']);
    assert.equal(listed.orgId, team.id);
    assert.deepEqual(listed.webhooks, expectStatus(await team.owner.api.get('/v1/webhooks'), 200));
    assert.deepEqual(
      listed.webhooks.map((w: any) => [w.id, w.enabled, w.disabledReason]),
      [
        [owners.id, true, null],
        [theirs.id, false, 'Its owner is no longer a member of the team.'],
      ],
    );
    const printed = JSON.stringify(listed);
    for (const secret of [owners.secret, theirs.secret]) assert.ok(!printed.includes(secret.slice(6)));
  });

  test('delete removes any webhook of any team with its log; the same id again, or an unknown team, is refused in one line', async () => {
    const team = await createTestTeam(live.server);
    const member = await team.member();
    const hook = await createWebhook(member.api, hookUrl('deleted'));
    expectStatus(await member.api.post(`/v1/webhooks/${hook.id}/test`), 202);

    const { value } = await adminOk(live.db.url, ['webhook', 'delete', '--id', hook.id.toUpperCase()]);
    assert.deepEqual(value, { deleted: true });
    expectError(await member.api.get(`/v1/webhooks/${hook.id}`), 404, `Webhook ${hook.id} not found.`);
    const left = await live.server.store.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('webhook_id', '=', hook.id)
      .execute();
    assert.deepEqual(left, [], 'its deliveries went with it');

    assert.match(
      await adminRefuses(live.db.url, ['webhook', 'delete', '--id', hook.id]),
      new RegExp(`^webhook ${hook.id} not found \\(database: `),
    );
    assert.match(await adminRefuses(live.db.url, ['webhook', 'delete', '--id', 'nope']), /^webhook nope not found/);
    assert.match(
      await adminRefuses(live.db.url, ['webhook', 'list', '--org', '00000000-0000-4000-8000-000000000009']),
      /^team 00000000-0000-4000-8000-000000000009 not found/,
    );
  });
});
