/**
 * Invitations: owners and admins make, list and revoke them (/v1/invitations); the link's page
 * reads one (POST /auth/invitation) and accepts it (POST /auth/accept-invitation) as a newcomer
 * or with an existing account. A token is stored only as its hash and used at most once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hashSecret } from '../../src/secret-hash.js';
import { Browser, PASSWORD, setPassword } from '../browser.js';
import { createTestTeam, type Team } from '../factories.js';
import { expectError, expectStatus, startTestServer, type TestServer } from '../harness.js';
import { together } from '../together.js';
import { accept, invite, newEmail, tokenOf } from './support.js';

const DAY_MS = 86_400_000;

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

/** Moves an invitation's expiry into the past, as time passing would. */
async function expire(id: string): Promise<void> {
  await server.store.db
    .updateTable('invitations')
    .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
    .where('id', '=', id)
    .execute();
}

const preview = (token: unknown) => new Browser(server.url).post('/auth/invitation', { token });

async function invitationRow(id: string) {
  return server.store.db.selectFrom('invitations').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

describe('making, listing and revoking invitations (/v1/invitations)', () => {
  let team: Team;
  before(async () => {
    team = await createTestTeam(server);
  });

  test('an owner invites: 201 with the invitation and its link, to the request origin + /join#<token>; only the hash is stored', async () => {
    const before = Date.now();
    const created = expectStatus(await team.owner.api.post('/v1/invitations', { role: 'admin' }), 201);
    assert.deepEqual(Object.keys(created).sort(), [
      'createdAt',
      'email',
      'expiresAt',
      'id',
      'invitedBy',
      'link',
      'role',
    ]);
    assert.equal(created.role, 'admin');
    assert.equal(created.email, null);
    assert.deepEqual(created.invitedBy, { id: team.owner.userId, name: team.owner.name });
    assert.ok(created.link.startsWith(`${server.url}/join#tli_`), created.link);
    const token = tokenOf(created.link);
    // Seven days by default.
    const days = (Date.parse(created.expiresAt) - before) / DAY_MS;
    assert.ok(days > 6.99 && days < 7.01, `expires in ${days} days`);
    const row = await invitationRow(created.id);
    assert.equal(row.token_hash, hashSecret(token));
    assert.ok(!JSON.stringify(row).includes(token), 'the token itself is stored');
  });

  test('expiresInDays 1 to 30 sets the expiry; outside it, a bad role or a bad email is a 400 naming it, and nothing is made', async () => {
    const created = await invite(team.owner, { role: 'member', expiresInDays: 30 });
    const days = (Date.parse(String(created.expiresAt)) - Date.now()) / DAY_MS;
    assert.ok(days > 29.99 && days <= 30, `expires in ${days} days`);
    const pending = expectStatus(await team.owner.api.get('/v1/invitations'), 200).length;
    for (const [body, message] of [
      [{ role: 'member', expiresInDays: 0 }, 'expiresInDays must be a whole number of days from 1 to 30.'],
      [{ role: 'member', expiresInDays: 31 }, 'expiresInDays must be a whole number of days from 1 to 30.'],
      [{ role: 'boss' }, 'role must be one of: owner, admin, member.'],
      [{}, 'role is required.'],
      [{ role: 'member', email: 'not an email' }, 'email must be an email address.'],
    ] as const) {
      expectError(await team.owner.api.post('/v1/invitations', body), 400, message);
    }
    assert.equal(expectStatus(await team.owner.api.get('/v1/invitations'), 200).length, pending);
  });

  test('an invitation naming an email keeps it in lower case; one naming a member of the team is a 409', async () => {
    const created = await invite(team.owner, { role: 'member', email: '  Somebody.New@Example.TEST ' });
    assert.equal(created.email, 'somebody.new@example.test');
    const member = await team.member();
    expectError(
      await team.owner.api.post('/v1/invitations', { role: 'member', email: member.email.toUpperCase() }),
      409,
      `${member.email} is already a member of this team.`,
    );
  });

  test('admins invite members and admins but not owners; plain members may not touch invitations (403)', async () => {
    const admin = await team.member({ role: 'admin' });
    const member = await team.member();
    const made = await invite(admin, { role: 'admin' });
    expectError(await admin.api.post('/v1/invitations', { role: 'owner' }), 403, 'Only an owner can invite an owner.');
    const refusal = "Only the team's owners and admins can manage invitations.";
    expectError(await member.api.post('/v1/invitations', { role: 'member' }), 403, refusal);
    expectError(await member.api.get('/v1/invitations'), 403, refusal);
    expectError(await member.api.delete(`/v1/invitations/${made.id}`), 403, refusal);
    expectStatus(await admin.api.get('/v1/invitations'), 200);
    expectStatus(await admin.api.delete(`/v1/invitations/${made.id}`), 200);
  });

  test('the list holds only pending invitations, newest first: not used, not expired, not revoked', async () => {
    const own = await createTestTeam(server);
    const used = await invite(own.owner);
    const expired = await invite(own.owner);
    const revoked = await invite(own.owner);
    const pending = await invite(own.owner, { role: 'admin', email: newEmail() });
    const newest = await invite(own.owner);
    expectStatus(
      await accept(server, { token: used.token, name: 'New', email: newEmail(), password: PASSWORD }).then(
        (a) => a.response,
      ),
      200,
    );
    await expire(expired.id);
    expectStatus(await own.owner.api.delete(`/v1/invitations/${revoked.id}`), 200);
    const listed = expectStatus(await own.owner.api.get('/v1/invitations'), 200);
    assert.deepEqual(
      listed.map((i: { id: string }) => i.id),
      [newest.id, pending.id],
    );
    const shown = Object.fromEntries(
      Object.entries(pending).filter(([field]) => field !== 'link' && field !== 'token'),
    );
    assert.deepEqual(listed[1], shown, 'a listed invitation is the created one without its link');
  });

  test('DELETE revokes: {"id", "revoked": true}; its link then says it was revoked; again is harmless; a used one is a 409; another team\'s is a 404', async () => {
    const own = await createTestTeam(server);
    const made = await invite(own.owner);
    assert.deepEqual(expectStatus(await own.owner.api.delete(`/v1/invitations/${made.id}`), 200), {
      id: made.id,
      revoked: true,
    });
    expectError(await preview(made.token), 410, 'This invitation was revoked.');
    expectStatus(await own.owner.api.delete(`/v1/invitations/${made.id}`), 200);

    const used = await invite(own.owner);
    expectStatus(
      (await accept(server, { token: used.token, name: 'N', email: newEmail(), password: PASSWORD })).response,
      200,
    );
    expectError(
      await own.owner.api.delete(`/v1/invitations/${used.id}`),
      409,
      `Invitation ${used.id} has already been used; remove the member instead.`,
    );

    const theirs = await invite(team.owner);
    expectError(await own.owner.api.delete(`/v1/invitations/${theirs.id}`), 404, `Invitation ${theirs.id} not found.`);
    expectStatus(await preview(theirs.token), 200);
  });

  test('with PUBLIC_URL set, links point there (its path kept), whatever origin the request came to', async () => {
    const publicServer = await startTestServer({ PUBLIC_URL: 'https://tasks.example.com/tasklane/' });
    try {
      const own = await createTestTeam(publicServer);
      const created = expectStatus(await own.owner.api.post('/v1/invitations', { role: 'member' }), 201);
      assert.match(created.link, /^https:\/\/tasks\.example\.com\/tasklane\/join#tli_[A-Za-z0-9_-]{43}$/);
    } finally {
      await publicServer.close();
    }
  });
});

describe('the link: POST /auth/invitation', () => {
  test('a usable token answers what the page shows: team, role, email, who invited, until when', async () => {
    const team = await createTestTeam(server, 'Rocket crew');
    const email = newEmail();
    const made = await invite(team.owner, { role: 'admin', email });
    const shown = expectStatus(await preview(made.token), 200);
    assert.deepEqual(shown, {
      teamName: 'Rocket crew',
      role: 'admin',
      email,
      invitedBy: { id: team.owner.userId, name: team.owner.name },
      expiresAt: made.expiresAt,
    });
    const open = await invite(team.owner);
    assert.equal(expectStatus(await preview(open.token), 200).email, null);
  });

  test('a used, expired, revoked or unknown token is refused saying which (410, 410, 410, 404)', async () => {
    const team = await createTestTeam(server);
    const used = await invite(team.owner);
    expectStatus(
      (await accept(server, { token: used.token, name: 'N', email: newEmail(), password: PASSWORD })).response,
      200,
    );
    expectError(await preview(used.token), 410, 'This invitation has already been used.');
    const expired = await invite(team.owner);
    await expire(expired.id);
    expectError(await preview(expired.token), 410, 'This invitation has expired.');
    const revoked = await invite(team.owner);
    expectStatus(await team.owner.api.delete(`/v1/invitations/${revoked.id}`), 200);
    expectError(await preview(revoked.token), 410, 'This invitation was revoked.');
    for (const token of [`tli_${'A'.repeat(43)}`, 'nonsense', used.token.slice(0, -1)]) {
      expectError(await preview(token), 404, 'This invitation link is not valid.');
    }
    expectError(await preview(''), 400);
    expectError(await new Browser(server.url).post('/auth/invitation', {}), 400, 'token is required.');
  });
});

describe('accepting: POST /auth/accept-invitation', () => {
  test("a newcomer signs up: a new user in the team with the invitation's role, signed in as POST /auth/sign-in answers", async () => {
    const team = await createTestTeam(server, 'Welcoming');
    const made = await invite(team.owner, { role: 'admin' });
    const email = newEmail();
    const { browser, response } = await accept(server, {
      token: made.token,
      name: 'Nora Newcomer',
      email: email.toUpperCase(),
      password: PASSWORD,
    });
    const info = expectStatus(response, 200);
    assert.deepEqual(Object.keys(info).sort(), ['csrfToken', 'role', 'setupRequired', 'team', 'teams', 'user']);
    assert.equal(info.setupRequired, false);
    assert.equal(info.user.email, email);
    assert.equal(info.user.name, 'Nora Newcomer');
    assert.deepEqual(info.team, { id: team.id, name: 'Welcoming' });
    assert.equal(info.role, 'admin');
    assert.deepEqual(info.teams, [{ id: team.id, name: 'Welcoming', role: 'admin' }]);
    // The cookie works at once, and so does signing in with the new password later.
    assert.equal(expectStatus(await browser.get('/auth/session'), 200).user.id, info.user.id);
    expectStatus(await browser.post('/v1/lists', { name: 'Mine' }, browser.csrf()), 201);
    expectStatus(await new Browser(server.url).post('/auth/sign-in', { email, password: PASSWORD }), 200);
    const members = expectStatus(await team.owner.api.get('/v1/users'), 200);
    assert.ok(members.some((m: { id: string; role: string }) => m.id === info.user.id && m.role === 'admin'));
    const row = await invitationRow(made.id);
    assert.equal(row.used_by, info.user.id);
    assert.ok(row.used_at);
    // Used once: never again.
    expectError(
      (await accept(server, { token: made.token, name: 'Again', email: newEmail(), password: PASSWORD })).response,
      410,
      'This invitation has already been used.',
    );
  });

  test('an invitation naming an email fixes it: the newcomer may leave it out, and another one is a 400', async () => {
    const team = await createTestTeam(server);
    const email = newEmail();
    const made = await invite(team.owner, { role: 'member', email });
    expectError(
      (await accept(server, { token: made.token, name: 'Other', email: newEmail(), password: PASSWORD })).response,
      400,
      `This invitation is for ${email}; join with that email.`,
    );
    const info = expectStatus(
      (await accept(server, { token: made.token, name: 'Fixed', password: PASSWORD })).response,
      200,
    );
    assert.equal(info.user.email, email);
  });

  test("a newcomer's refusals change nothing and leave the invitation usable: no email, a short password, a blank name, an email with an account and a password not its own (401, as at sign-in)", async () => {
    const team = await createTestTeam(server);
    const made = await invite(team.owner);
    const taken = await team.member();
    const users = async () => (await server.store.db.selectFrom('users').select('id').execute()).length;
    const count = await users();
    const refusals: [Record<string, unknown>, number, string][] = [
      [{ name: 'N', password: PASSWORD }, 400, 'email is required.'],
      [{ name: 'N', email: 'nope', password: PASSWORD }, 400, 'email must be an email address.'],
      [{ name: 'N', email: newEmail(), password: 'short' }, 400, 'password must be 8 to 200 characters long.'],
      [
        { name: ' ', email: newEmail(), password: PASSWORD },
        400,
        'name must be 1 to 200 characters with at least one non-whitespace character.',
      ],
      [{ name: 'N', email: taken.email.toUpperCase(), password: PASSWORD }, 401, 'Wrong email or password.'],
    ];
    for (const [body, status, message] of refusals) {
      const { response } = await accept(server, { token: made.token, ...body });
      expectError(response, status, message);
      assert.deepEqual(response.setCookies, [], 'a refusal set a cookie');
    }
    assert.equal(await users(), count);
    expectStatus(await preview(made.token), 200);
  });

  test('someone with an account (in another team) joins with its email and password: added with the role, signed in to the new team', async () => {
    const home = await createTestTeam(server, 'Home');
    const joining = await createTestTeam(server, 'Joining');
    await setPassword(server, home.owner);
    const made = await invite(joining.owner, { role: 'member' });
    const { browser, response } = await accept(server, {
      token: made.token,
      email: home.owner.email,
      password: PASSWORD,
    });
    const info = expectStatus(response, 200);
    assert.equal(info.user.id, home.owner.userId);
    assert.deepEqual(info.team, { id: joining.id, name: 'Joining' });
    assert.equal(info.role, 'member');
    assert.deepEqual(info.teams.map((t: { name: string; role: string }) => `${t.name}:${t.role}`).sort(), [
      'Home:owner',
      'Joining:member',
    ]);
    assert.equal(expectStatus(await browser.get('/v1/me'), 200).team.id, joining.id);
    // Their place in their own team is unchanged.
    assert.equal(expectStatus(await home.owner.api.get('/v1/me'), 200).role, 'owner');
  });

  test('an existing account: a wrong password is 401 (the invitation stays usable); a member of the team already is told so (409)', async () => {
    const team = await createTestTeam(server);
    const other = await createTestTeam(server);
    await setPassword(server, other.owner);
    await setPassword(server, team.owner);
    const made = await invite(team.owner);
    expectError(
      (await accept(server, { token: made.token, email: other.owner.email, password: 'not the password' })).response,
      401,
      'Wrong email or password.',
    );
    expectError(
      (await accept(server, { token: made.token, email: newEmail(), password: PASSWORD })).response,
      401,
      'Wrong email or password.',
    );
    expectError(
      (await accept(server, { token: made.token, email: team.owner.email, password: PASSWORD })).response,
      409,
      `You are already a member of ${team.name}: sign in to it instead.`,
    );
    expectStatus(await preview(made.token), 200);
    expectStatus(
      (await accept(server, { token: made.token, email: other.owner.email, password: PASSWORD })).response,
      200,
    );
  });

  test('a used, expired, revoked or unknown token cannot be accepted either, and nothing is made', async () => {
    const team = await createTestTeam(server);
    const expired = await invite(team.owner);
    await expire(expired.id);
    const revoked = await invite(team.owner);
    expectStatus(await team.owner.api.delete(`/v1/invitations/${revoked.id}`), 200);
    const body = { name: 'N', password: PASSWORD };
    expectError(
      (await accept(server, { ...body, token: expired.token, email: newEmail() })).response,
      410,
      'This invitation has expired.',
    );
    expectError(
      (await accept(server, { ...body, token: revoked.token, email: newEmail() })).response,
      410,
      'This invitation was revoked.',
    );
    expectError(
      (await accept(server, { ...body, token: `tli_${'B'.repeat(43)}`, email: newEmail() })).response,
      404,
      'This invitation link is not valid.',
    );
    assert.equal(expectStatus(await team.owner.api.get('/v1/users'), 200).length, 1);
  });

  test('there is still no way to sign up without an invitation', async () => {
    for (const path of ['/auth/sign-up', '/auth/register', '/v1/users']) {
      const response = await new Browser(server.url).post(path, { name: 'N', email: newEmail(), password: PASSWORD });
      assert.ok([401, 404].includes(response.status), `${path}: ${response.status} ${response.text}`);
    }
  });

  test('two accepts of one token at the same moment: exactly one joins, the other is told it was used', async () => {
    for (let round = 0; round < 5; round++) {
      const team = await createTestTeam(server);
      const made = await invite(team.owner);
      const answers = await together(server.url, [
        {
          method: 'POST',
          path: '/auth/accept-invitation',
          body: { token: made.token, name: 'A', email: newEmail(), password: PASSWORD },
        },
        {
          method: 'POST',
          path: '/auth/accept-invitation',
          body: { token: made.token, name: 'B', email: newEmail(), password: PASSWORD },
        },
      ]);
      const statuses = answers.map((a) => a.status).sort();
      assert.deepEqual(
        statuses,
        [200, 410],
        `round ${round}: ${answers.map((a) => `${a.status} ${a.text}`).join(' | ')}`,
      );
      assert.equal(answers.find((a) => a.status === 410)!.body.error, 'This invitation has already been used.');
      assert.equal(expectStatus(await team.owner.api.get('/v1/users'), 200).length, 2, `round ${round}`);
    }
  });
});

describe('accepting never tells whether an email has an account, unless it makes one or holds its password', () => {
  const WRONG = 'Wrong email or password.';
  const users = async () => (await server.store.db.selectFrom('users').select('id').execute()).length;

  test('an email with an account (in another team) and one without get the same status and body to every request that makes no account, and nothing changes', async () => {
    const team = await createTestTeam(server);
    const elsewhere = (await createTestTeam(server)).owner;
    await setPassword(server, elsewhere);
    const nobody = newEmail();
    const open = await invite(team.owner, { role: 'admin' });
    const forEmail = async (email: string) => invite(team.owner, { role: 'admin', email });
    const bound = { [elsewhere.email]: await forEmail(elsewhere.email), [nobody]: await forEmail(nobody) };
    // Each request, as sent for `email`: none holds the account's password, none can make an account.
    const requests: [string, (email: string) => Record<string, unknown>][] = [
      [
        'an account sign-in with a wrong password',
        (email) => ({ token: open.token, email, password: 'not it at all' }),
      ],
      ['a newcomer with a short password', (email) => ({ token: open.token, name: 'N', email, password: 'short' })],
      ['a newcomer with a blank name', (email) => ({ token: open.token, name: ' ', email, password: PASSWORD })],
      ['a link for the email, signing in without it', (email) => ({ token: bound[email]!.token, password: 'not it' })],
      [
        'a link for the email, a newcomer with a short password',
        (email) => ({ token: bound[email]!.token, name: 'N', password: 'short' }),
      ],
      [
        'a link for the other email',
        (email) => ({
          token: bound[email === nobody ? elsewhere.email : nobody]!.token,
          name: 'N',
          email,
          password: PASSWORD,
        }),
      ],
    ];
    const count = await users();
    const answered: Record<string, unknown>[] = [];
    for (const [what, body] of requests) {
      const answers = [];
      for (const email of [elsewhere.email, nobody]) {
        const { response } = await accept(server, body(email));
        assert.ok(
          response.status >= 400 && response.status < 500,
          `${what}, ${email}: ${response.status} ${response.text}`,
        );
        assert.deepEqual(response.setCookies, [], `${what}: a refusal set a cookie`);
        // The one difference a link for an email makes is the email it names, which its sender chose.
        const text = JSON.stringify(response.body).replaceAll(elsewhere.email, '<email>').replaceAll(nobody, '<email>');
        answers.push({ status: response.status, body: text });
      }
      assert.deepEqual(answers[0], answers[1], `${what}: the answers tell the two emails apart`);
      answered.push(answers[0]!);
    }
    // The one request they answer differently makes an account for the email without one; for the
    // email with one, it gets the first request's answer, which any email may get.
    const { response } = await accept(server, {
      token: open.token,
      name: 'N',
      email: elsewhere.email,
      password: 'a new password',
    });
    assert.deepEqual({ status: response.status, body: JSON.stringify(response.body) }, answered[0]);
    assert.equal(await users(), count, 'a refusal made a user');
    expectStatus(await preview(open.token), 200);
  });

  test("a newcomer asking for an account with an email that has one is that account's sign-in: a wrong password is the 401 sign-in gives an unknown email, its own password joins with it (the name unused)", async () => {
    const team = await createTestTeam(server, 'Signed up twice');
    const home = await createTestTeam(server);
    await setPassword(server, home.owner);
    const made = await invite(team.owner, { role: 'member' });
    const count = await users();

    const { response: wrong } = await accept(server, {
      token: made.token,
      name: 'Someone Else',
      email: home.owner.email,
      password: 'a new password',
    });
    const { response: unknown } = await accept(server, {
      token: made.token,
      email: newEmail(),
      password: 'a new password',
    });
    const signIn = await new Browser(server.url).post('/auth/sign-in', {
      email: newEmail(),
      password: 'a new password',
    });
    for (const response of [wrong, unknown, signIn]) expectError(response, 401, WRONG);
    assert.equal(await users(), count);
    expectStatus(await preview(made.token), 200);

    const { browser, response } = await accept(server, {
      token: made.token,
      name: 'Someone Else',
      email: home.owner.email,
      password: PASSWORD,
    });
    const info = expectStatus(response, 200);
    assert.equal(info.user.id, home.owner.userId);
    assert.equal(info.user.name, home.owner.name, 'the account kept its name');
    assert.equal(info.role, 'member');
    assert.deepEqual(info.team, { id: team.id, name: 'Signed up twice' });
    assert.equal(expectStatus(await browser.get('/v1/me'), 200).team.id, team.id);
    assert.equal(await users(), count, 'no second account');

    // Already in the team: said only to whoever holds the password.
    const again = await invite(team.owner);
    const newcomer = { token: again.token, name: 'N', email: home.owner.email };
    expectError((await accept(server, { ...newcomer, password: 'a new password' })).response, 401, WRONG);
    expectError(
      (await accept(server, { ...newcomer, password: PASSWORD })).response,
      409,
      'You are already a member of Signed up twice: sign in to it instead.',
    );
  });

  test('a client that sends a name, an email without an account and a password still gets its new account', async () => {
    const team = await createTestTeam(server);
    const made = await invite(team.owner);
    const email = newEmail();
    const info = expectStatus(
      (await accept(server, { token: made.token, name: 'Fresh', email, password: PASSWORD })).response,
      200,
    );
    assert.deepEqual([info.user.name, info.user.email], ['Fresh', email]);
  });
});
