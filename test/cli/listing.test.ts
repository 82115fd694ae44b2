/**
 * The admin CLI's lists: teams, users, members, keys and statuses, each one JSON object whose
 * ids are the ones the other commands and the API take. A key list never shows a secret.
 */
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { Client, expectStatus } from '../harness.js';
import { TIMEOUT } from '../processes.js';
import { adminOk, adminRefuses, serverOnTempDatabase } from './support.js';

const live = serverOnTempDatabase();

const run = async (...args: string[]) => (await adminOk(live.db.url, args)).value;
const tag = () => randomUUID().slice(0, 8);

/** A team with an owner (who has a key) and a plain member, made with the CLI. */
async function teamOfTwo(name: string) {
  const org = await run('org', 'create', '--name', name);
  const owner = await run('user', 'create', '--email', `owner-${tag()}@example.test`, '--name', `Owner ${name}`);
  const mate = await run('user', 'create', '--email', `mate-${tag()}@example.test`, '--name', `Mate ${name}`);
  await run('member', 'add', '--org', org.id, '--user', owner.id, '--role', 'owner');
  await run('member', 'add', '--org', org.id, '--user', mate.id);
  const key = await run('key', 'create', '--org', org.id, '--user', owner.id, '--name', 'laptop');
  return { org, owner, mate, key, api: new Client(live.server.url, key.key) };
}

describe('admin … list', { timeout: 4 * TIMEOUT }, () => {
  test('org list prints every team by name; its ids are the team.id of GET /v1/me', async () => {
    const suffix = tag();
    const zeta = await teamOfTwo(`Zeta ${suffix}`);
    const alpha = await teamOfTwo(`Alpha ${suffix}`);
    const listed = await run('org', 'list');
    assert.deepEqual(Object.keys(listed), ['orgs']);
    const ours = listed.orgs.filter((o: { name: string }) => o.name.endsWith(suffix));
    assert.deepEqual(ours, [alpha.org, zeta.org]);
    for (const org of listed.orgs) assert.deepEqual(Object.keys(org).sort(), ['id', 'name']);
    assert.equal(expectStatus(await zeta.api.get('/v1/me'), 200).team.id, zeta.org.id);
    // The starter team the server made at its first start is listed too.
    assert.ok(listed.orgs.some((o: { name: string }) => o.name === 'My team'));
  });

  test('member list prints the team’s members with their roles, as GET /v1/users does', async () => {
    const { org, api } = await teamOfTwo(`Members ${tag()}`);
    const listed = await run('member', 'list', '--org', org.id.toUpperCase());
    assert.deepEqual(Object.keys(listed), ['orgId', 'members']);
    assert.equal(listed.orgId, org.id);
    assert.deepEqual(listed.members, expectStatus(await api.get('/v1/users'), 200));
    assert.deepEqual(listed.members.map((m: { role: string }) => m.role).sort(), ['member', 'owner']);
  });

  test('user list prints every user by email, and with --org only that team’s members', async () => {
    const first = await teamOfTwo(`Users ${tag()}`);
    const second = await teamOfTwo(`Users ${tag()}`);
    const loner = await run('user', 'create', '--email', `loner-${tag()}@example.test`, '--name', 'Loner');

    const all = (await run('user', 'list')).users as { id: string; email: string; name: string }[];
    for (const user of all) assert.deepEqual(Object.keys(user).sort(), ['email', 'id', 'name']);
    const emails = all.map((u) => u.email);
    assert.deepEqual(emails, [...emails].sort());
    for (const user of [first.owner, first.mate, second.owner, loner]) assert.ok(all.some((u) => u.id === user.id));

    const members = await run('user', 'list', '--org', first.org.id);
    assert.deepEqual(Object.keys(members), ['users']);
    const byEmail = (a: { email: string }, b: { email: string }) => (a.email < b.email ? -1 : 1);
    assert.deepEqual(members.users, [first.owner, first.mate].sort(byEmail));
  });

  test('key list shows the user’s unrevoked keys in that team, newest first, and never a secret or its hash', async () => {
    const { org, owner, key: laptop } = await teamOfTwo(`Keys ${tag()}`);
    const other = await run('org', 'create', '--name', `Other ${tag()}`);
    await run('member', 'add', '--org', other.id, '--user', owner.id);
    const phone = await run(
      'key',
      'create',
      '--org',
      org.id,
      '--user',
      owner.id,
      '--name',
      'phone',
      '--expires-in-days',
      '30',
    );
    const revoked = await run('key', 'create', '--org', org.id, '--user', owner.id, '--name', 'old');
    const elsewhere = await run('key', 'create', '--org', other.id, '--user', owner.id, '--name', 'elsewhere');
    await run('key', 'revoke', '--id', revoked.id);
    // Used once, so lastUsedAt is set.
    expectStatus(await new Client(live.server.url, laptop.key).get('/v1/me'), 200);

    const value = await run('key', 'list', '--org', org.id, '--user', owner.id);
    const printed = JSON.stringify(value);
    assert.deepEqual(Object.keys(value), ['orgId', 'userId', 'keys']);
    assert.deepEqual([value.orgId, value.userId], [org.id, owner.id]);
    assert.deepEqual(
      value.keys.map((k: { id: string; name: string }) => [k.id, k.name]),
      [
        [phone.id, 'phone'],
        [laptop.id, 'laptop'],
      ],
    );
    for (const k of value.keys) {
      assert.deepEqual(Object.keys(k).sort(), [
        'createdAt',
        'expiresAt',
        'id',
        'lastUsedAt',
        'listIds',
        'name',
        'prefix',
        'scopes',
      ]);
    }
    assert.equal(value.keys[0].expiresAt, phone.expiresAt);
    assert.notEqual(value.keys[1].lastUsedAt, null);
    for (const secret of [laptop.key, phone.key, revoked.key, elsewhere.key]) {
      assert.ok(!printed.includes(secret), 'a secret is listed');
      assert.ok(!printed.includes(createHash('sha256').update(secret).digest('hex')), 'a secret’s hash is listed');
    }
    assert.ok(laptop.key.startsWith(value.keys[1].prefix), 'the prefix is the start of the key');
  });

  test('status list prints the team’s statuses by order, as GET /v1/task-statuses does', async () => {
    const { org, api } = await teamOfTwo(`Statuses ${tag()}`);
    const listed = await run('status', 'list', '--org', org.id);
    assert.deepEqual(Object.keys(listed), ['orgId', 'statuses']);
    assert.deepEqual(listed.statuses, expectStatus(await api.get('/v1/task-statuses'), 200));
  });

  test('a list of an unknown team or user fails with one line naming it', async () => {
    const { org } = await teamOfTwo(`Unknown ${tag()}`);
    const [noOrg, malformed, noUser, noStatuses] = await Promise.all([
      adminRefuses(live.db.url, ['member', 'list', '--org', randomUUID()]),
      adminRefuses(live.db.url, ['user', 'list', '--org', 'not-an-id']),
      adminRefuses(live.db.url, ['key', 'list', '--org', org.id, '--user', randomUUID()]),
      adminRefuses(live.db.url, ['status', 'list', '--org', randomUUID()]),
    ]);
    assert.match(noOrg, /^team [0-9a-f-]+ not found \(database: /);
    assert.match(malformed, /^team not-an-id not found/);
    assert.match(noUser, /^user [0-9a-f-]+ not found/);
    assert.match(noStatuses, /^team [0-9a-f-]+ not found/);
  });
});
