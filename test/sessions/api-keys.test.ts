/**
 * API keys in settings (/v1/api-keys): list, create (the secret shown once), revoke; only with a
 * signed-in session.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { signedInOwner } from '../browser.js';
import { createTestTeam } from '../factories.js';
import { expectError, expectStatus, startTestServer, type TestServer } from '../harness.js';

describe('web sessions', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  describe('API keys in settings', () => {
    test('the list shows name, prefix, createdAt and lastUsedAt of the user’s keys and never a secret', async () => {
      const { team, browser } = await signedInOwner(server);
      const colleague = await team.member();

      let keys = expectStatus(await browser.get('/v1/api-keys'), 200);
      assert.equal(keys.length, 1, 'only the user’s own keys: ' + JSON.stringify(keys));
      const [factoryKey] = keys;
      assert.deepEqual(Object.keys(factoryKey).sort(), [
        'createdAt',
        'expiresAt',
        'id',
        'lastUsedAt',
        'listIds',
        'name',
        'prefix',
        'scopes',
      ]);
      assert.equal(factoryKey.id, team.owner.keyId);
      assert.equal(factoryKey.name, 'test');
      // A key without scopes or lists (issue 33): its user's full power.
      assert.deepEqual([factoryKey.scopes, factoryKey.listIds], [null, null]);
      assert.ok(team.owner.key.startsWith(factoryKey.prefix), 'the prefix is the start of the key');
      assert.ok(factoryKey.prefix.length < team.owner.key.length / 2, 'the prefix must not reveal the key');
      assert.ok(!Number.isNaN(Date.parse(factoryKey.createdAt)), `createdAt is not a time: ${factoryKey.createdAt}`);
      assert.equal(factoryKey.lastUsedAt, null, 'a key never used has lastUsedAt null');

      const before = Date.now();
      expectStatus(await team.owner.api.get('/v1/me'), 200);
      keys = expectStatus(await browser.get('/v1/api-keys'), 200);
      assert.equal(typeof keys[0].lastUsedAt, 'string');
      assert.ok(Date.parse(keys[0].lastUsedAt) >= before - 1000, `lastUsedAt is stale: ${keys[0].lastUsedAt}`);

      const listing = await browser.get('/v1/api-keys');
      for (const secret of [team.owner.key, colleague.key])
        assert.ok(!listing.text.includes(secret), 'a secret leaked');
      assert.ok(!listing.text.includes(colleague.keyId), 'another user’s key is listed');
    });

    test('creating a key answers its secret once; the secret works as x-api-key and is never shown again', async () => {
      const { team, browser } = await signedInOwner(server);
      const response = await browser.post('/v1/api-keys', { name: 'CI pipeline' }, browser.csrf());
      const created = expectStatus(response, 201);
      assert.deepEqual(Object.keys(created).sort(), [
        'createdAt',
        'expiresAt',
        'id',
        'key',
        'lastUsedAt',
        'listIds',
        'name',
        'prefix',
        'scopes',
      ]);
      assert.equal(created.name, 'CI pipeline');
      assert.equal(created.lastUsedAt, null);
      assert.ok(created.key.startsWith(created.prefix));
      assert.ok(created.key.length >= 32, 'the secret is too short');

      const me = expectStatus(await server.client(created.key).get('/v1/me'), 200);
      assert.equal(me.user.id, team.owner.userId);
      assert.equal(me.team.id, team.id);

      const listing = await browser.get('/v1/api-keys');
      const keys = expectStatus(listing, 200);
      assert.deepEqual(keys.map((k: any) => k.name).sort(), ['CI pipeline', 'test']);
      assert.ok(!listing.text.includes(created.key), 'the list shows the secret again');
      assert.ok(!(await browser.get('/auth/session')).text.includes(created.key));

      // The secret is stored only as a hash.
      const row = await server.store.db
        .selectFrom('api_keys')
        .selectAll()
        .where('id', '=', created.id)
        .executeTakeFirstOrThrow();
      for (const [column, value] of Object.entries(row)) {
        assert.ok(!String(value).includes(created.key), `api_keys.${column} holds the secret`);
      }

      for (const name of ['', '   ', 'x'.repeat(101)]) {
        expectError(await browser.post('/v1/api-keys', { name }, browser.csrf()), 400, /name/);
      }
    });

    test('revoking a key makes it 401 at once and drops it from the list; revoking it again is 404', async () => {
      const { browser } = await signedInOwner(server);
      const created = expectStatus(await browser.post('/v1/api-keys', { name: 'Temporary' }, browser.csrf()), 201);
      const api = server.client(created.key);
      expectStatus(await api.get('/v1/lists'), 200);

      assert.deepEqual(expectStatus(await browser.delete(`/v1/api-keys/${created.id}`, browser.csrf()), 200), {
        id: created.id,
        revoked: true,
      });
      expectError(await api.get('/v1/lists'), 401);
      expectError(await api.get('/v1/me'), 401);
      const keys = expectStatus(await browser.get('/v1/api-keys'), 200);
      assert.ok(!keys.some((k: any) => k.id === created.id), 'a revoked key is still listed');
      expectError(await browser.delete(`/v1/api-keys/${created.id}`, browser.csrf()), 404);
      expectError(await browser.delete('/v1/api-keys/not-a-key-id', browser.csrf()), 404);
    });

    test('an API key cannot list, create or revoke keys (403), and nothing changes', async () => {
      const { team, browser } = await signedInOwner(server);
      const api = team.owner.api;
      const before = expectStatus(await browser.get('/v1/api-keys'), 200);

      expectError(await api.get('/v1/api-keys'), 403);
      expectError(await api.post('/v1/api-keys', { name: 'By a key' }), 403);
      expectError(await api.delete(`/v1/api-keys/${team.owner.keyId}`), 403);
      // Not even with a CSRF token, nor with the session's cookie and a key at once.
      expectError(await api.post('/v1/api-keys', { name: 'By a key' }, browser.csrf()), 403);
      expectError(await browser.get('/v1/api-keys', { 'x-api-key': team.owner.key }), 403);

      const after = expectStatus(await browser.get('/v1/api-keys'), 200);
      assert.deepEqual(
        after.map((k: any) => [k.id, k.name]),
        before.map((k: any) => [k.id, k.name]),
      );
      expectStatus(await api.get('/v1/me'), 200);
    });

    test('a user cannot revoke another user’s key (404), in the same team or another', async () => {
      const { team, browser } = await signedInOwner(server);
      const colleague = await team.member();
      const stranger = (await createTestTeam(server)).owner;

      expectError(await browser.delete(`/v1/api-keys/${colleague.keyId}`, browser.csrf()), 404);
      expectError(await browser.delete(`/v1/api-keys/${stranger.keyId}`, browser.csrf()), 404);
      expectStatus(await colleague.api.get('/v1/me'), 200);
      expectStatus(await stranger.api.get('/v1/me'), 200);
    });
  });
});
