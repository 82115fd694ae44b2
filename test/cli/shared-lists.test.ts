/**
 * The operator's side of lists shared with the whole team: `admin list share [--off]`, and
 * `admin member add` making a newcomer a member of every shared list, with the events a running
 * server's streams receive.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { live as liveStream } from '../events/support.js';
import { createTestTeam } from '../factories.js';
import { expectStatus } from '../harness.js';
import { TIMEOUT } from '../processes.js';
import { adminOk, adminRefuses, serverOnTempDatabase } from './support.js';

const live = serverOnTempDatabase();

const ids = (rows: { id: string | number }[]) => rows.map((row) => row.id).sort();

describe('admin list share', { timeout: 4 * TIMEOUT }, () => {
  test('shares a list with its whole team (its members hear taskList.updated); --off keeps them and stops adding newcomers', async () => {
    const team = await createTestTeam(live.server);
    const member = await team.member();
    const list = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Ops' }), 201);
    const stream = await liveStream(live.server, member, 'member');

    const { value: shared } = await adminOk(live.db.url, ['list', 'share', '--list', String(list.id)]);
    assert.deepEqual(shared, { listId: list.id, name: 'Ops', sharedWithTeam: true });
    assert.deepEqual(ids(expectStatus(await member.api.get('/v1/lists'), 200)), [list.id]);
    const event = await stream.waitFor((e) => e.type === 'taskList.updated');
    assert.deepEqual(JSON.parse(event.data), { listId: list.id });

    const { value: off } = await adminOk(live.db.url, ['list', 'share', '--list', String(list.id), '--off']);
    assert.deepEqual(off, { listId: list.id, name: 'Ops', sharedWithTeam: false });
    assert.equal(expectStatus(await member.api.get(`/v1/lists/${list.id}`), 200).sharedWithTeam, false);
    const { value: user } = await adminOk(live.db.url, [
      'user',
      'create',
      '--email',
      `late.${list.id}@example.test`,
      '--name',
      'Late',
    ]);
    await adminOk(live.db.url, ['member', 'add', '--org', team.id, '--user', user.id]);
    assert.deepEqual(
      ids(expectStatus(await team.owner.api.get(`/v1/lists/${list.id}/members`), 200)),
      [team.owner.userId, member.userId].sort(),
    );
  });

  test('admin member add makes a newcomer a member of every shared list, whose members hear it; the newcomer then gets its events', async () => {
    const team = await createTestTeam(live.server);
    const shared = expectStatus(await team.owner.api.post('/v1/lists', { name: 'All', sharedWithTeam: true }), 201);
    // Not shared: the newcomer does not get it.
    expectStatus(await team.owner.api.post('/v1/lists', { name: 'Mine' }), 201);
    const ownerStream = await liveStream(live.server, team.owner, 'owner');

    const { value: user } = await adminOk(live.db.url, [
      'user',
      'create',
      '--email',
      `new.${shared.id}@example.test`,
      '--name',
      'New',
    ]);
    await adminOk(live.db.url, ['member', 'add', '--org', team.id, '--user', user.id]);
    const joined = await ownerStream.waitFor((e) => e.type === 'taskList.updated');
    assert.deepEqual(JSON.parse(joined.data), { listId: shared.id });

    const { value: key } = await adminOk(live.db.url, ['key', 'create', '--org', team.id, '--user', user.id]);
    const newcomer = {
      userId: user.id,
      teamId: team.id,
      key: key.key,
      keyId: key.id,
      api: live.server.client(key.key),
    };
    assert.deepEqual(ids(expectStatus(await newcomer.api.get('/v1/lists'), 200)), [shared.id]);
    const newcomerStream = await liveStream(live.server, newcomer, 'newcomer');
    expectStatus(await team.owner.api.patch(`/v1/lists/${shared.id}`, { color: 'Teal' }), 200);
    const recoloured = await newcomerStream.waitFor((e) => e.type === 'taskList.updated');
    assert.deepEqual(JSON.parse(recoloured.data), { listId: shared.id });

    // A role change is no join: nothing more happens.
    await adminOk(live.db.url, ['member', 'add', '--org', team.id, '--user', user.id, '--role', 'admin']);
    assert.deepEqual(ids(expectStatus(await newcomer.api.get('/v1/lists'), 200)), [shared.id]);
  });

  test('refusals: an unknown list, a list id that is no number, and list-member remove on a shared list', async () => {
    const team = await createTestTeam(live.server);
    const member = await team.member();
    const list = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Kept', sharedWithTeam: true }), 201);
    assert.match(await adminRefuses(live.db.url, ['list', 'share', '--list', '99999999']), /^list 99999999 not found/);
    assert.match(await adminRefuses(live.db.url, ['list', 'share', '--list', 'abc']), /^list abc not found/);
    assert.match(await adminRefuses(live.db.url, ['list', 'share']), /--list/);
    assert.match(
      await adminRefuses(live.db.url, ['list-member', 'remove', '--list', String(list.id), '--user', member.userId]),
      new RegExp(`^List ${list.id} is shared with the whole team`),
    );
    assert.deepEqual(ids(expectStatus(await member.api.get('/v1/lists'), 200)), [list.id]);
  });
});
