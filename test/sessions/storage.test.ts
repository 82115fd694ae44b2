/**
 * What sign-in stores: argon2id password hashes only, and session ids that are hashes of the
 * cookie's secret.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createHash } from 'node:crypto';
import { findUser } from '../../src/team/users.repository.js';
import { PASSWORD, setPassword, signedInOwner, signIn } from '../browser.js';
import { expectStatus, startTestServer, type TestServer } from '../harness.js';

describe('web sessions', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  describe('storage', () => {
    test('passwords are stored only as argon2id hashes (OWASP parameters or stronger): no column of users holds the password', async () => {
      const { team, browser } = await signedInOwner(server);
      const newPassword = 'Stored-Only-As-A-Hash 42';
      expectStatus(
        await browser.post('/auth/password', { currentPassword: PASSWORD, newPassword }, browser.csrf()),
        200,
      );
      const row = await server.store.db
        .selectFrom('users')
        .selectAll()
        .where('id', '=', team.owner.userId)
        .executeTakeFirstOrThrow();
      for (const [column, value] of Object.entries(row)) {
        const text = String(value);
        for (const secret of [newPassword, PASSWORD, newPassword.toLowerCase()]) {
          assert.ok(!text.includes(secret), `users.${column} holds the password`);
        }
        assert.ok(!text.includes(Buffer.from(newPassword).toString('base64')), `users.${column} holds it in base64`);
        assert.ok(!text.includes(Buffer.from(newPassword).toString('hex')), `users.${column} holds it in hex`);
      }
      // $argon2id$v=19$m=<KiB>,t=<passes>,p=<lanes>$<salt>$<hash>, salt and hash in unpadded base64.
      const [, scheme, , parameters, salt, hash] = row.password_hash!.split('$');
      assert.equal(scheme, 'argon2id', `not argon2id: ${row.password_hash}`);
      const { m, t, p } = Object.fromEntries(parameters!.split(',').map((pair) => pair.split('='))) as Record<
        string,
        string
      >;
      assert.ok(Number(m) >= 19_456 && Number(t) >= 2 && Number(p) >= 1, `below OWASP's minimum: m=${m} t=${t} p=${p}`);
      assert.ok(Buffer.from(salt!, 'base64').length >= 16, 'the salt is too short');
      assert.ok(Buffer.from(hash!, 'base64').length >= 32, 'the hash is too short');

      // Two users with the same password get different hashes (salted).
      const other = await team.member();
      await setPassword(server, other, newPassword);
      const otherRow = await findUser(server.store.db, other.userId);
      assert.match(otherRow!.passwordHash ?? '', /^\$argon2id\$/);
      assert.notEqual(otherRow!.passwordHash, row.password_hash);
      await signIn(server, other.email, newPassword);
    });

    test('the session cookie’s secret is not stored: sessions ids are its sha256, and no column holds it', async () => {
      const { team, browser } = await signedInOwner(server);
      const token = browser.sessionToken!;
      const rows = await server.store.db
        .selectFrom('sessions')
        .selectAll()
        .where('user_id', '=', team.owner.userId)
        .execute();
      assert.equal(rows.length, 1);
      const row = rows[0]!;
      assert.notEqual(row.id, token);
      assert.equal(row.id, createHash('sha256').update(token).digest('hex'));
      for (const [column, value] of Object.entries(row)) {
        assert.ok(!String(value).includes(token), `sessions.${column} holds the cookie secret`);
      }
      assert.equal(row.team_id, team.id);
      assert.ok(Date.parse(row.expires_at) > Date.now(), 'the session must expire in the future');

      expectStatus(await browser.post('/auth/sign-out', undefined, browser.csrf()), 200);
      const left = await server.store.db
        .selectFrom('sessions')
        .select('id')
        .where('user_id', '=', team.owner.userId)
        .execute();
      assert.deepEqual(left, [], 'sign-out must delete the session row');
    });
  });
});
