/**
 * Issue 25, item 4: a member who leaves must not hold the team's webhook cap forever. The cap
 * counts the webhooks of the team's current members (a removal disables a leaver's, which then
 * stop counting); the team's owners and admins may delete any webhook of the team, a leaver's
 * included; disabling one's own frees nothing; and a leaver invited back cannot push the team
 * past the cap by enabling what they brought back.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { MAX_WEBHOOKS_PER_TEAM } from '../../src/contract/webhooks.js';
import { upsertMember } from '../../src/team/teams.repository.js';
import { createTestTeam, type Actor } from '../factories.js';
import { expectError, expectStatus, startTestServer, TEST_STORE } from '../harness.js';
import { createWebhook } from './support.js';

// Nothing is delivered (test servers send no webhooks): loopback is allowed, and nobody listens.
const server = await startTestServer();
after(() => server.close());

let hooks = 0;
const hookUrl = () => `http://127.0.0.1:9/hook-${++hooks}`;

/** Creates webhooks for `actor` until they own `count`; returns their ids. */
async function webhooksOf(actor: Actor, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let n = 0; n < count; n++) ids.push((await createWebhook(actor.api, hookUrl())).id);
  return ids;
}

const deliveryCount = async (webhookId: string) =>
  Number(
    (
      await server.store.db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('webhook_id', '=', webhookId)
        .executeTakeFirstOrThrow()
    ).n,
  );

describe(`a leaver's webhooks and the team's cap (${TEST_STORE})`, () => {
  test(`a member who made the team's ${MAX_WEBHOOKS_PER_TEAM} webhooks (disabling some frees nothing) is removed: the owner can then create one, and delete the leaver's with its log`, async () => {
    const team = await createTestTeam(server);
    const leaver = await team.member({ name: 'Lee Leaver' });
    const theirs = await webhooksOf(leaver, MAX_WEBHOOKS_PER_TEAM);
    expectStatus(await leaver.api.post(`/v1/webhooks/${theirs[0]}/test`), 202);
    // Disabling one's own frees no place: the cap counts disabled webhooks too.
    for (const id of theirs.slice(1, 4)) {
      expectStatus(await leaver.api.patch(`/v1/webhooks/${id}`, { enabled: false }), 200);
    }
    expectError(await leaver.api.post('/v1/webhooks', { url: hookUrl() }), 409, /at most 50 webhooks/);
    expectError(await team.owner.api.post('/v1/webhooks', { url: hookUrl() }), 409, /at most 50 webhooks/);

    expectStatus(await team.owner.api.delete(`/v1/members/${leaver.userId}`), 200);
    const listed = expectStatus(await team.owner.api.get('/v1/webhooks'), 200);
    assert.equal(listed.length, MAX_WEBHOOKS_PER_TEAM, "the leaver's webhooks stay, disabled, until deleted");
    assert.ok(listed.every((w: any) => !w.enabled));
    const reasons = new Set(listed.map((w: any) => w.disabledReason));
    assert.deepEqual([...reasons].sort(), ['Disabled by Lee Leaver.', 'Its owner is no longer a member of the team.']);

    const mine = await createWebhook(team.owner.api, hookUrl());
    assert.equal(mine.owner.id, team.owner.userId);

    assert.equal(await deliveryCount(theirs[0]!), 1);
    assert.deepEqual(expectStatus(await team.owner.api.delete(`/v1/webhooks/${theirs[0]}`), 200), {
      id: theirs[0],
      deleted: true,
    });
    expectError(await team.owner.api.get(`/v1/webhooks/${theirs[0]}`), 404, `Webhook ${theirs[0]} not found.`);
    assert.equal(await deliveryCount(theirs[0]!), 0, 'its deliveries went with it');
  });

  test("an admin deletes another member's webhook; a plain member cannot delete a teammate's (404, and it stays)", async () => {
    const team = await createTestTeam(server);
    const admin = await team.member({ role: 'admin', name: 'Ada Admin' });
    const ann = await team.member({ name: 'Ann' });
    const bob = await team.member({ name: 'Bob' });
    const [annsFirst, annsSecond] = await webhooksOf(ann, 2);

    expectError(await bob.api.delete(`/v1/webhooks/${annsFirst}`), 404, `Webhook ${annsFirst} not found.`);
    expectStatus(await ann.api.get(`/v1/webhooks/${annsFirst}`), 200);

    expectStatus(await admin.api.delete(`/v1/webhooks/${annsFirst}`), 200);
    expectError(await ann.api.get(`/v1/webhooks/${annsFirst}`), 404, `Webhook ${annsFirst} not found.`);
    expectStatus(await team.owner.api.delete(`/v1/webhooks/${annsSecond}`), 200);
    assert.deepEqual(expectStatus(await ann.api.get('/v1/webhooks'), 200), []);
  });

  test('a leaver invited back brings their webhooks back, counted: none can be enabled while the team holds more than the cap', async () => {
    const team = await createTestTeam(server);
    const leaver = await team.member({ name: 'Rita Rejoins' });
    const theirs = await webhooksOf(leaver, MAX_WEBHOOKS_PER_TEAM);
    expectStatus(await team.owner.api.delete(`/v1/members/${leaver.userId}`), 200);
    const [ownersOnly] = await webhooksOf(team.owner, 1);
    // Back in the team (as `admin member add` or an invitation does): their key works again.
    await upsertMember(server.store.db, team.id, leaver.userId, 'member');

    const refusal = /^The team's members hold more than 50 webhooks .*delete some before enabling this one\.$/;
    expectError(await leaver.api.patch(`/v1/webhooks/${theirs[0]}`, { enabled: true }), 409, refusal);
    assert.equal(
      expectStatus(await leaver.api.get(`/v1/webhooks/${theirs[0]}`), 200).enabled,
      false,
      'nothing changed',
    );
    expectError(await leaver.api.post('/v1/webhooks', { url: hookUrl() }), 409, /at most 50 webhooks/);

    expectStatus(await team.owner.api.delete(`/v1/webhooks/${ownersOnly}`), 200);
    const enabled = expectStatus(await leaver.api.patch(`/v1/webhooks/${theirs[0]}`, { enabled: true }), 200);
    assert.equal(enabled.enabled, true);
    assert.equal(enabled.disabledReason, null);
  });
});
