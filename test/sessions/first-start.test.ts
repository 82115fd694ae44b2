/**
 * The first start's set-up (issue 28): the team `serve` makes on an empty database waits for its
 * owner, who signs in with the printed password and gives, in one form (POST /auth/setup), the
 * team's name and their own name, email and new password. The session says when it is due
 * (`setupRequired`); it happens once; the printed API key keeps working.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Browser, PASSWORD, signIn, signedInOwner } from '../browser.js';
import { hashPassword } from '../../src/team/passwords.js';
import { upsertMember } from '../../src/team/teams.repository.js';
import { setPasswordHash } from '../../src/team/users.repository.js';
import { createTestTeam } from '../factories.js';
import { expectError, expectStatus, startTestServer, type TestServer } from '../harness.js';
import { live } from '../events/support.js';
import { closeAllStreams } from '../sse/stream.js';
import { snapshotDatabase } from '../snapshot.js';
import { together } from '../together.js';

/** A server on an empty database: it makes the first start's team and prints its secrets (`bootstrap`). */
let server: TestServer;
before(async () => {
  server = await startTestServer({ EVENTS_HEARTBEAT_SECONDS: '1' });
});
after(async () => {
  await closeAllStreams();
  await server.close();
});

const ALREADY = 'This team is already set up.';

/** The first start's owner, signed in with the printed password. */
async function firstOwner(target: TestServer = server) {
  const printed = target.bootstrap!;
  return signIn(target, printed.email, printed.password);
}

const setUp = (browser: Browser, body: Record<string, unknown>) => browser.post('/auth/setup', body, browser.csrf());

const SETUP = { teamName: 'Acme', name: 'Ada Lovelace', email: 'Ada@Acme.test', password: 'a fresh password' };

describe('the first start and POST /auth/setup', () => {
  test('the first sign-in with the printed password says setupRequired; the set-up names the team and its owner, and setupRequired is false for good', async () => {
    const { browser, info } = await firstOwner();
    assert.equal(info.setupRequired, true);
    assert.equal(info.team.name, 'My team');
    assert.equal(expectStatus(await browser.get('/auth/session'), 200).setupRequired, true);
    const other = await firstOwner(); // a second tab or device, signed in the same way

    const answer = expectStatus(await setUp(browser, SETUP), 200);
    assert.equal(answer.setupRequired, false);
    assert.deepEqual(answer.team, { id: info.team.id, name: 'Acme' });
    assert.deepEqual(answer.user, { id: info.user.id, name: 'Ada Lovelace', email: 'ada@acme.test' });
    assert.equal(expectStatus(await browser.get('/auth/session'), 200).setupRequired, false);
    // The new password signs in, the printed one no longer does; other sessions ended.
    const again = await signIn(server, 'ada@acme.test', SETUP.password);
    assert.equal(again.info.setupRequired, false);
    expectError(
      await new Browser(server.url).post('/auth/sign-in', {
        email: 'ada@acme.test',
        password: server.bootstrap!.password,
      }),
      401,
    );
    expectError(await other.browser.get('/auth/session'), 401);
    // The printed API key keeps working and sees the new names.
    const me = expectStatus(await server.client(server.bootstrap!.key).get('/v1/me'), 200);
    assert.deepEqual([me.team.name, me.user.name, me.user.email], ['Acme', 'Ada Lovelace', 'ada@acme.test']);
    // Once only.
    const before = await snapshotDatabase(server.store.db);
    expectError(await setUp(browser, { ...SETUP, teamName: 'Again' }), 409, ALREADY);
    assert.deepEqual(await snapshotDatabase(server.store.db), before);
  });

  test('no other team ever asks: a team made by the operator answers setupRequired false and its owner gets 409', async () => {
    const { browser, info } = await signedInOwner(server);
    assert.equal(info.setupRequired, false);
    expectError(await setUp(browser, { ...SETUP, email: 'someone.else@acme.test' }), 409, ALREADY);
  });

  test("a pending team's members are told nothing and may not set it up (403); an API key gets 403", async () => {
    const fresh = await startTestServer();
    try {
      const team = { id: (await firstOwner(fresh)).info.team.id as string };
      const mate = await createTestTeam(fresh); // a user of the server, then made a member of the pending team
      await upsertMember(fresh.store.db, team.id, mate.owner.userId, 'admin');
      await setPasswordHash(fresh.store.db, mate.owner.userId, await hashPassword(PASSWORD));
      const { browser, info } = await signIn(fresh, mate.owner.email, PASSWORD, team.id);
      assert.equal(info.setupRequired, false);
      const before = await snapshotDatabase(fresh.store.db);
      expectError(await setUp(browser, SETUP), 403, "Only the team's owner can set it up.");
      const byKey = await fresh.client(fresh.bootstrap!.key).post('/auth/setup', SETUP);
      expectError(byKey, 403, /needs a signed-in web session/);
      assert.deepEqual(await snapshotDatabase(fresh.store.db), before);
    } finally {
      await fresh.close();
    }
  });

  test('bad fields are 400 with the field named; a taken email is 409; neither changes anything', async () => {
    const fresh = await startTestServer();
    try {
      const { browser } = await firstOwner(fresh);
      const taken = await createTestTeam(fresh);
      const before = await snapshotDatabase(fresh.store.db);
      const cases: [Record<string, unknown>, RegExp][] = [
        [{ ...SETUP, teamName: '  ' }, /^teamName must be/],
        [{ ...SETUP, name: '' }, /^name must be/],
        [{ ...SETUP, email: 'not an email' }, /^email must be an email address/],
        [{ ...SETUP, password: 'short' }, /^password must be 8 to 200 characters/],
        [{ teamName: 'Acme' }, /required|must/],
      ];
      for (const [body, message] of cases) expectError(await setUp(browser, body), 400, message);
      expectError(
        await setUp(browser, { ...SETUP, email: taken.owner.email.toUpperCase() }),
        409,
        `${taken.owner.email} is already the email of another account.`,
      );
      assert.deepEqual(await snapshotDatabase(fresh.store.db), before);
      // Still due, and still possible.
      assert.equal(expectStatus(await browser.get('/auth/session'), 200).setupRequired, true);
      expectStatus(await setUp(browser, SETUP), 200);
    } finally {
      await fresh.close();
    }
  });

  test('of two set-ups sent at the same moment, one is done and the other is 409', async () => {
    const fresh = await startTestServer();
    try {
      const { browser } = await firstOwner(fresh);
      const headers = { cookie: `tasklane_session=${browser.sessionToken}`, ...browser.csrf() };
      const [first, second] = await together(fresh.url, [
        { method: 'POST', path: '/auth/setup', headers, body: { ...SETUP, teamName: 'One' } },
        { method: 'POST', path: '/auth/setup', headers, body: { ...SETUP, teamName: 'Two', email: 'two@acme.test' } },
      ]);
      const statuses = [first!.status, second!.status].sort();
      assert.deepEqual(statuses, [200, 409], `${first!.text} / ${second!.text}`);
      const loser = first!.status === 409 ? first! : second!;
      assert.deepEqual(loser.body, { error: ALREADY });
    } finally {
      await fresh.close();
    }
  });

  test("the set-up's new team name reaches every member's stream as team.updated", async () => {
    const fresh = await startTestServer({ EVENTS_HEARTBEAT_SECONDS: '1' });
    try {
      const { browser, info } = await firstOwner(fresh);
      const owner = { userId: info.user.id, teamId: info.team.id, key: fresh.bootstrap!.key };
      const stream = await live(fresh, owner as never, 'owner');
      expectStatus(await setUp(browser, SETUP), 200);
      const event = await stream.next(5_000);
      assert.deepEqual([event.type, JSON.parse(event.data)], ['team.updated', { teamId: info.team.id }]);
      await stream.close();
    } finally {
      await fresh.close();
    }
  });
});
