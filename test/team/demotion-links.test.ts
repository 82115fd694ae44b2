/**
 * A link gives no more than its sender may give now (issue 25, item 2): a demotion revokes, in
 * its transaction, the links its new role could not make, and accepting a link checks the
 * sender again in the accept's transaction, after any demotion in flight. So a demoted admin's
 * admin link makes no admin, and a demoted owner's owner link makes no owner, also when the
 * accept races the demotion; the links the new role may still make keep working.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { after, before, describe, test } from 'node:test';
import type { Caller } from '../../src/caller.js';
import type { Store } from '../../src/storage/database.js';
import { changeRole, setMembership } from '../../src/membership/members.service.js';
import { Browser, PASSWORD } from '../browser.js';
import { createTestTeam, type Actor, type Team } from '../factories.js';
import { expectError, expectStatus, startTestServer, TEST_STORE, type TestServer } from '../harness.js';
import { together } from '../together.js';
import { accept, invite, newEmail } from './support.js';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

const REVOKED = 'This invitation was revoked.';
const beyondSender = (role: string) =>
  `This invitation is no longer valid: its sender can no longer invite someone as ${role}.`;

const preview = (token: string) => new Browser(server.url).post('/auth/invitation', { token });

async function invitationRow(id: string) {
  return server.store.db.selectFrom('invitations').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

const userWithEmail = (email: string) =>
  server.store.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();

const pendingIds = async (team: Team) =>
  expectStatus(await team.owner.api.get('/v1/invitations'), 200).map((i: { id: string }) => i.id);

/** The link cannot be used: its preview and an accept both answer `message` (410), and the accept makes nothing. */
async function assertRefused(made: { id: string; token: string }, message: string | RegExp): Promise<void> {
  expectError(await preview(made.token), 410, message);
  const email = newEmail();
  const { response } = await accept(server, { token: made.token, name: 'Mallory', email, password: PASSWORD });
  expectError(response, 410, message);
  assert.deepEqual(response.setCookies, [], 'a refused accept set a cookie');
  assert.equal(await userWithEmail(email), undefined, 'a refused accept made a user');
  assert.equal((await invitationRow(made.id)).used_at, null, 'a refused accept used the invitation');
}

/** A newcomer accepts the link: 200, with the role the link gives. */
async function assertJoins(made: { token: string }, role: string): Promise<void> {
  const { response } = await accept(server, { token: made.token, name: 'Nia', email: newEmail(), password: PASSWORD });
  assert.equal(expectStatus(response, 200).role, role);
}

const demote = async (by: Actor, who: Actor, role: string) =>
  expectStatus(await by.api.patch(`/v1/members/${who.userId}`, { role }), 200);

describe('a demotion revokes the links its new role could not make', () => {
  test('an admin demoted to member: every link they made is revoked, its page says so, and accepting it makes nothing', async () => {
    const team = await createTestTeam(server);
    const admin = await team.member({ role: 'admin' });
    const adminLink = await invite(admin, { role: 'admin' });
    const memberLink = await invite(admin, { role: 'member' });
    const ownersLink = await invite(team.owner, { role: 'admin' });
    await demote(team.owner, admin, 'member');
    await assertRefused(adminLink, REVOKED);
    await assertRefused(memberLink, REVOKED);
    assert.ok((await invitationRow(adminLink.id)).revoked_at, 'the admin link is revoked in the database');
    assert.deepEqual(await pendingIds(team), [ownersLink.id], "only the owner's link is still pending");
    // Made an admin again, the old links stay revoked: a demotion is not undone by a promotion.
    await demote(team.owner, admin, 'admin');
    expectError(await preview(adminLink.token), 410, REVOKED);
    await assertJoins(ownersLink, 'admin');
  });

  test('an owner demoted to admin: their owner links are revoked, their admin and member links still work', async () => {
    const team = await createTestTeam(server);
    const second = await team.member({ role: 'owner' });
    const ownerLink = await invite(second, { role: 'owner' });
    const adminLink = await invite(second, { role: 'admin' });
    const memberLink = await invite(second, { role: 'member' });
    await demote(team.owner, second, 'admin');
    await assertRefused(ownerLink, REVOKED);
    assert.deepEqual((await pendingIds(team)).sort(), [adminLink.id, memberLink.id].sort());
    await assertJoins(adminLink, 'admin');
    await assertJoins(memberLink, 'member');
    // No one became an owner, so the original owner is the only one and stays so.
    const owners = expectStatus(await team.owner.api.get('/v1/users'), 200).filter(
      (u: { role: string }) => u.role === 'owner',
    );
    assert.deepEqual(
      owners.map((u: { id: string }) => u.id),
      [team.owner.userId],
    );
  });

  test('a promotion revokes nothing, and the same role again changes nothing', async () => {
    const team = await createTestTeam(server);
    const admin = await team.member({ role: 'admin' });
    const link = await invite(admin, { role: 'admin' });
    await demote(team.owner, admin, 'admin');
    await demote(team.owner, admin, 'owner');
    expectStatus(await preview(link.token), 200);
    await assertJoins(link, 'admin');
  });

  test('a removal revokes every link the member made', async () => {
    const team = await createTestTeam(server);
    const second = await team.member({ role: 'owner' });
    const links = [await invite(second, { role: 'owner' }), await invite(second, { role: 'member' })];
    expectStatus(await team.owner.api.delete(`/v1/members/${second.userId}`), 200);
    for (const link of links) await assertRefused(link, REVOKED);
  });
});

describe('accepting checks the sender again', () => {
  test('a link its sender can no longer give, left pending (made before demotions revoked links), is refused on its page and on accept, and no longer listed', async () => {
    const team = await createTestTeam(server);
    const admin = await team.member({ role: 'admin' });
    const link = await invite(admin, { role: 'admin' });
    const memberLink = await invite(admin, { role: 'member' });
    // The role changed the way an older release changed it: without revoking anything.
    await server.store.db
      .updateTable('team_members')
      .set({ role: 'member' })
      .where('team_id', '=', team.id)
      .where('user_id', '=', admin.userId)
      .execute();
    await assertRefused(link, beyondSender('admin'));
    await assertRefused(memberLink, beyondSender('member'));
    assert.deepEqual(await pendingIds(team), []);
    // Nor may a left member's link, whatever its role.
    const leaver = await team.member({ role: 'owner' });
    const leaversLink = await invite(leaver, { role: 'member' });
    await server.store.db
      .deleteFrom('team_members')
      .where('team_id', '=', team.id)
      .where('user_id', '=', leaver.userId)
      .execute();
    await assertRefused(leaversLink, beyondSender('member'));
  });

  test('an accept racing the demotion of its sender, 20 times: it joins before the demotion (the link used) or is refused after it (the link revoked), and no admin link of theirs is left', async () => {
    for (let round = 0; round < 20; round++) {
      const team = await createTestTeam(server);
      const admin = await team.member({ role: 'admin' });
      const link = await invite(admin, { role: 'admin' });
      const witness = await invite(admin, { role: 'admin' });
      const email = newEmail();
      const [demotion, accepted] = await together(server.url, [
        { method: 'PATCH', path: `/v1/members/${admin.userId}`, key: team.owner.key, body: { role: 'member' } },
        {
          method: 'POST',
          path: '/auth/accept-invitation',
          body: { token: link.token, name: 'Racer', email, password: PASSWORD },
        },
      ]);
      const seen = `round ${round}: ${demotion!.status} ${demotion!.text} | ${accepted!.status} ${accepted!.text}`;
      assert.equal(demotion!.status, 200, seen);
      const row = await invitationRow(link.id);
      const joined = await userWithEmail(email);
      if (accepted!.status === 200) {
        assert.equal(accepted!.body.role, 'admin', seen);
        assert.equal(row.used_by, joined?.id, seen);
        assert.equal(row.revoked_at, null, seen);
      } else {
        assert.equal(accepted!.status, 410, seen);
        assert.ok([REVOKED, beyondSender('admin')].includes(accepted!.body.error), seen);
        assert.equal(joined, undefined, seen);
        assert.equal(row.used_at, null, seen);
        assert.ok(row.revoked_at, `${seen}: the refused link is not revoked`);
      }
      // Whichever came first, the demoted admin has no admin link left.
      expectError(await preview(witness.token), 410, REVOKED);
    }
  });

  // The demotion's transaction is held open after its writes: an accept sent meanwhile must wait
  // for it and then see it. On PostgreSQL the test waits until the accept is blocked on a row
  // lock; SQLite runs one transaction at a time, so the accept simply comes after.
  const demotions: [string, (team: Team, admin: Actor, store: Store) => Promise<unknown>][] = [
    [
      'PATCH /v1/members (its service)',
      (team, admin, store) => changeRole(store, callerOf(team.owner), admin.userId, 'member'),
    ],
    [
      'tasklane admin member add --role (its service)',
      (team, admin, store) => setMembership(store, team.id, admin.userId, 'member'),
    ],
  ];
  for (const [name, demoteWith] of demotions) {
    test(`an accept sent while a demotion commits (${name}) waits for it, then is refused, and nothing is made`, async () => {
      const team = await createTestTeam(server);
      const admin = await team.member({ role: 'admin' });
      const link = await invite(admin, { role: 'admin' });
      let written!: () => void;
      let release!: () => void;
      const writesDone = new Promise<void>((resolve) => (written = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      const held: Store = {
        db: server.store.db,
        dialect: server.store.dialect,
        close: () => Promise.resolve(),
        transaction: (work) =>
          server.store.transaction(async (trx) => {
            const result = await work(trx);
            written();
            await released;
            return result;
          }),
      };
      const demoting = demoteWith(team, admin, held);
      try {
        await writesDone;
        const email = newEmail();
        const accepting = accept(server, { token: link.token, name: 'Late', email, password: PASSWORD });
        let answered = false;
        void accepting.then(() => (answered = true));
        await waitUntilBlocked(() => answered);
        release();
        await demoting;
        const { response } = await accepting;
        expectError(response, 410);
        assert.ok([REVOKED, beyondSender('admin')].includes(response.body.error), response.text);
        assert.deepEqual(response.setCookies, []);
        assert.equal(await userWithEmail(email), undefined, 'the refused accept made a user');
        const row = await invitationRow(link.id);
        assert.equal(row.used_at, null);
        assert.ok(row.revoked_at, 'the demotion revoked the link');
      } finally {
        release();
        await demoting.catch(() => {});
      }
    });
  }
});

/** An owner calling a service directly, as a request of theirs would. */
const callerOf = (actor: Actor): Caller => ({
  userId: actor.userId,
  teamId: actor.teamId,
  role: actor.role,
  credential: { kind: 'key', id: actor.keyId },
});

/**
 * On PostgreSQL: resolves once another connection waits on a row lock of `team_members` (the
 * accept, behind the held demotion), or once the accept has `answered` without waiting, which
 * the caller's assertions then judge. On SQLite, gives the accept a moment to arrive.
 */
async function waitUntilBlocked(answered: () => boolean): Promise<void> {
  if (TEST_STORE === 'sqlite') return sleep(100);
  for (const deadline = Date.now() + 10_000; !answered(); await sleep(20)) {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock' and query like '%team_members%'`.execute(
      server.store.db,
    );
    if (rows[0]!.n > 0) return;
    assert.ok(Date.now() < deadline, 'the accept neither waited for the demotion nor answered');
  }
}
