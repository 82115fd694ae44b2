/**
 * The operator's side of issue 18: `admin invitation create|list|revoke`, the last owner kept by
 * `admin member add|remove`, and changes made with `tasklane admin` reaching a running server's
 * event streams (a status change as taskStatus.*, a removal ending the member's stream); and
 * issue 28's `admin org rename`, with the team's events the operator's changes send.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Browser, PASSWORD } from '../browser.js';
import { live as liveStream } from '../events/support.js';
import { createTestTeam } from '../factories.js';
import { expectError, expectStatus, TEST_STORE } from '../harness.js';
import { TIMEOUT } from '../processes.js';
import { openStream, show } from '../sse/stream.js';
import { tokenOf } from '../team/support.js';
import { adminOk, adminRefuses, runAdmin, serverOnTempDatabase } from './support.js';

const live = serverOnTempDatabase();
const PUBLIC = { env: { PUBLIC_URL: 'https://tasks.example.com' } };

describe('admin invitation', { timeout: 4 * TIMEOUT }, () => {
  test("create prints the invitation with its link (to PUBLIC_URL), from the team's longest-standing owner unless --invited-by says otherwise", async () => {
    const team = await createTestTeam(live.server, 'Operated');
    const admin = await team.member({ role: 'admin', name: 'Ada Admin' });
    const { value: made, stderr } = await adminOk(
      live.db.url,
      ['invitation', 'create', '--org', team.id, '--role', 'admin', '--email', 'Invited@Example.test'],
      PUBLIC,
    );
    assert.deepEqual(Object.keys(made).sort(), ['createdAt', 'email', 'expiresAt', 'id', 'invitedBy', 'link', 'role']);
    assert.equal(made.role, 'admin');
    assert.equal(made.email, 'invited@example.test');
    assert.deepEqual(made.invitedBy, { id: team.owner.userId, name: team.owner.name });
    assert.match(made.link, /^https:\/\/tasks\.example\.com\/join#tli_/);
    assert.deepEqual(stderr.slice(1), [], 'no note when PUBLIC_URL is set');
    // The link works on the running server.
    const shown = expectStatus(
      await new Browser(live.server.url).post('/auth/invitation', { token: tokenOf(made.link) }),
      200,
    );
    assert.equal(shown.teamName, 'Operated');

    const { value: byAdmin } = await adminOk(
      live.db.url,
      [
        'invitation',
        'create',
        '--org',
        team.id,
        '--role',
        'member',
        '--invited-by',
        admin.userId.toUpperCase(),
        '--expires-in-days',
        '2',
      ],
      PUBLIC,
    );
    assert.deepEqual(byAdmin.invitedBy, { id: admin.userId, name: 'Ada Admin' });
    const days = (Date.parse(byAdmin.expiresAt) - Date.now()) / 86_400_000;
    assert.ok(days > 1.99 && days <= 2, `expires in ${days} days`);
  });

  test('without PUBLIC_URL the link points at HOST:PORT, and a note on stderr says to set PUBLIC_URL', async () => {
    const team = await createTestTeam(live.server);
    const { value: made, stderr } = await adminOk(
      live.db.url,
      ['invitation', 'create', '--org', team.id, '--role', 'member'],
      { env: { PORT: '3000', PUBLIC_URL: undefined } },
    );
    assert.match(made.link, /^http:\/\/127\.0\.0\.1:3000\/join#tli_/);
    assert.ok(
      stderr.some((line) => /PUBLIC_URL is not set/.test(line)),
      stderr.join('\n'),
    );
  });

  test('list prints the pending invitations (never a link); revoke stops one, and its link says so', async () => {
    const team = await createTestTeam(live.server);
    const { value: made } = await adminOk(
      live.db.url,
      ['invitation', 'create', '--org', team.id, '--role', 'member'],
      PUBLIC,
    );
    const { value: listed } = await adminOk(live.db.url, ['invitation', 'list', '--org', team.id]);
    assert.equal(listed.orgId, team.id);
    assert.deepEqual(listed.invitations, expectStatus(await team.owner.api.get('/v1/invitations'), 200));
    assert.equal(listed.invitations[0].id, made.id);
    assert.ok(!JSON.stringify(listed).includes('tli_'), 'a listing shows no token');
    assert.deepEqual((await adminOk(live.db.url, ['invitation', 'revoke', '--id', made.id])).value, { revoked: true });
    expectError(
      await new Browser(live.server.url).post('/auth/invitation', { token: tokenOf(made.link) }),
      410,
      'This invitation was revoked.',
    );
    assert.deepEqual((await adminOk(live.db.url, ['invitation', 'list', '--org', team.id])).value.invitations, []);
  });

  test('refusals: a bad role, days out of range, an inviter who is not a member or may not give the role, an unknown invitation', async () => {
    const team = await createTestTeam(live.server);
    const stranger = (await createTestTeam(live.server)).owner;
    const admin = await team.member({ role: 'admin' });
    const member = await team.member();
    const refused = (...args: string[]) => adminRefuses(live.db.url, ['invitation', ...args], PUBLIC);
    assert.match(
      await refused('create', '--org', team.id, '--role', 'boss'),
      /^--role must be one of owner, admin, member/,
    );
    assert.match(
      await refused('create', '--org', team.id, '--role', 'member', '--expires-in-days', '31'),
      /^--expires-in-days must be a whole number of days from 1 to 30/,
    );
    assert.match(
      await refused('create', '--org', team.id, '--role', 'member', '--invited-by', stranger.userId),
      new RegExp(`^user ${stranger.userId} \\(--invited-by\\) is not a member of team ${team.id}`),
    );
    // Its link would be refused when accepted: a link gives no more than its sender may give.
    assert.match(
      await refused('create', '--org', team.id, '--role', 'owner', '--invited-by', admin.userId),
      new RegExp(
        `^user ${admin.userId} \\(--invited-by\\) is an admin of team ${team.id}, who cannot invite someone as owner`,
      ),
    );
    assert.match(
      await refused('create', '--org', team.id, '--role', 'member', '--invited-by', member.userId),
      new RegExp(
        `^user ${member.userId} \\(--invited-by\\) is a member of team ${team.id}, who cannot invite someone as member`,
      ),
    );
    assert.match(
      await refused('revoke', '--id', '00000000-0000-4000-8000-000000000009'),
      /^Invitation 00000000-0000-4000-8000-000000000009 not found\./,
    );
  });

  test('a newcomer accepts an invitation the operator made', async () => {
    const team = await createTestTeam(live.server);
    const { value: made } = await adminOk(
      live.db.url,
      ['invitation', 'create', '--org', team.id, '--role', 'member'],
      PUBLIC,
    );
    const joined = await new Browser(live.server.url).post('/auth/accept-invitation', {
      token: tokenOf(made.link),
      name: 'Operated newcomer',
      email: `operated.${Date.now()}@example.test`,
      password: PASSWORD,
    });
    assert.equal(expectStatus(joined, 200).team.id, team.id);
  });
});

describe('admin member: the last owner', { timeout: 4 * TIMEOUT }, () => {
  test('member remove and member add --role refuse to take the last owner away; with a second owner they may', async () => {
    const team = await createTestTeam(live.server);
    const last = `${team.owner.name} is the team's last owner: make another member an owner first.`;
    const refusal = await adminRefuses(live.db.url, [
      'member',
      'remove',
      '--org',
      team.id,
      '--user',
      team.owner.userId,
    ]);
    assert.ok(refusal.startsWith(`${last} (database: `), refusal);
    assert.match(
      await adminRefuses(live.db.url, [
        'member',
        'add',
        '--org',
        team.id,
        '--user',
        team.owner.userId,
        '--role',
        'admin',
      ]),
      /the team's last owner: make another member an owner first\./,
    );
    const second = await team.member();
    await adminOk(live.db.url, ['member', 'add', '--org', team.id, '--user', second.userId, '--role', 'owner']);
    await adminOk(live.db.url, ['member', 'add', '--org', team.id, '--user', team.owner.userId, '--role', 'admin']);
    assert.equal(expectStatus(await team.owner.api.get('/v1/me'), 200).role, 'admin');
  });
});

// Run as real processes: on PostgreSQL another process hears of a change only through NOTIFY, which
// a command run in the server's own process would not need.
const AS_PROCESS = { process: true };

describe('admin changes reach running event streams', { timeout: 4 * TIMEOUT }, () => {
  test('status create, update and delete are announced as taskStatus.* to every member', async () => {
    const team = await createTestTeam(live.server);
    const member = await team.member();
    const stream = await liveStream(live.server, member, 'member');
    const { value: made } = await adminOk(
      live.db.url,
      ['status', 'create', '--org', team.id, '--name', 'From the CLI'],
      AS_PROCESS,
    );
    assert.equal(show(await stream.next(5_000)), `taskStatus.created ${made.id}`);
    await adminOk(live.db.url, ['status', 'update', '--id', String(made.id), '--name', 'Renamed'], AS_PROCESS);
    assert.equal(show(await stream.next(5_000)), `taskStatus.updated ${made.id}`);
    const done = expectStatus(await team.owner.api.get('/v1/task-statuses'), 200).find(
      (s: { name: string }) => s.name === 'Done',
    );
    await adminOk(live.db.url, ['status', 'delete', '--id', String(made.id), '--move-to', String(done.id)], AS_PROCESS);
    assert.equal(show(await stream.next(5_000)), `taskStatus.deleted ${made.id}`);
    stream.close();
  });

  test(`member remove ends the member's open stream on the running server (${TEST_STORE === 'postgres' ? 'at once, by NOTIFY' : 'at its next recheck'})`, async () => {
    const team = await createTestTeam(live.server);
    const leaver = await team.member();
    const stream = await openStream(live.server, leaver.key, { label: 'leaver' });
    assert.equal(stream.status, 200);
    await stream.waitForComment('connected');
    await adminOk(live.db.url, ['member', 'remove', '--org', team.id, '--user', leaver.userId], AS_PROCESS);
    // Counted from the commit (the command's end), not from its start: a process's start-up time on
    // a busy machine is no part of the rule.
    await stream.waitClosed(TEST_STORE === 'postgres' ? 2_000 : 7_000);
  });
});

describe('admin org rename', { timeout: 4 * TIMEOUT }, () => {
  test('renames the team and prints {"id", "name"}; GET /v1/me shows the new name', async () => {
    const team = await createTestTeam(live.server, 'Before');
    const { value } = await adminOk(live.db.url, ['org', 'rename', '--org', team.id, '--name', 'After the CLI']);
    assert.deepEqual(value, { id: team.id, name: 'After the CLI' });
    assert.equal(expectStatus(await team.owner.api.get('/v1/me'), 200).team.name, 'After the CLI');
  });

  test('an unknown team, a malformed id, or an empty or too long name is refused on stderr and changes nothing', async () => {
    const team = await createTestTeam(live.server, 'Kept');
    const missing = '00000000-0000-4000-8000-000000000042';
    assert.match(await adminRefuses(live.db.url, ['org', 'rename', '--org', missing, '--name', 'X']), /not found/);
    await adminRefuses(live.db.url, ['org', 'rename', '--org', 'nope', '--name', 'X']);
    assert.match(await adminRefuses(live.db.url, ['org', 'rename', '--org', team.id, '--name', '  ']), /empty/);
    assert.match(
      await adminRefuses(live.db.url, ['org', 'rename', '--org', team.id, '--name', 'x'.repeat(201)]),
      /1 to 200 characters/,
    );
    assert.equal(expectStatus(await team.owner.api.get('/v1/me'), 200).team.name, 'Kept');
  });

  test('is in admin help', async () => {
    const { stdout } = await runAdmin(live.db.url, ['help']);
    assert.match(stdout, /^ {2}org rename --org TEAM_ID --name NAME/m);
  });

  test("the rename, and member add and remove, reach the running server's streams as team.updated and member.*", async () => {
    const team = await createTestTeam(live.server);
    const member = await team.member();
    const stream = await liveStream(live.server, member, 'member');
    await adminOk(live.db.url, ['org', 'rename', '--org', team.id, '--name', 'Live from the CLI']);
    const renamed = await stream.next(5_000);
    assert.deepEqual([renamed.type, JSON.parse(renamed.data)], ['team.updated', { teamId: team.id }]);
    const { value: user } = await adminOk(live.db.url, [
      'user',
      'create',
      '--email',
      `cli.${Date.now()}@example.test`,
      '--name',
      'Cal',
    ]);
    await adminOk(live.db.url, ['member', 'add', '--org', team.id, '--user', user.id]);
    await adminOk(live.db.url, ['member', 'add', '--org', team.id, '--user', user.id, '--role', 'admin']);
    await adminOk(live.db.url, ['member', 'remove', '--org', team.id, '--user', user.id]);
    const events = [await stream.next(5_000), await stream.next(5_000), await stream.next(5_000)];
    assert.deepEqual(
      events.map((e) => [e.type, JSON.parse(e.data)]),
      [
        ['member.joined', { userId: user.id }],
        ['member.updated', { userId: user.id }],
        ['member.removed', { userId: user.id }],
      ],
    );
  });
});
