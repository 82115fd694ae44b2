/**
 * Revocation is effective on the next request in every process: two `tasklane serve` processes on
 * one PostgreSQL database, a key revoked with the admin CLI (or through one process's web app
 * API) is refused by both on their very next request. No process caches keys. PostgreSQL only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openStore } from '../src/storage/database.js';
import { migrateToLatest } from '../src/storage/migrate.js';
import { upsertMember } from '../src/team/teams.repository.js';
import { createTeam } from '../src/membership/accounts.service.js';
import { hashPassword } from '../src/team/passwords.js';
import { insertUser } from '../src/team/users.repository.js';
import { Client, expectError, expectStatus, tempDatabase, type TempDatabase } from './harness.js';
import { admin, killAll, serve, TIMEOUT, type Serving } from './processes.js';

const ENV = { RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'error' };
const PASSWORD = 'two processes, one database';
const REVOKED = 'Invalid API key: it is unknown or has been revoked.';

describe('API key revocation across processes (PostgreSQL)', { timeout: TIMEOUT }, () => {
  let database: TempDatabase;
  let servers: Serving[] = [];
  let teamId: string;
  let user: { id: string; email: string };

  before(async () => {
    database = await tempDatabase();
    // Made directly (as the admin CLI does) before the servers start, so no process bootstraps a
    // starter workspace; the CLI itself is what revokes below.
    const store = openStore(database.url, { poolSize: 1 });
    try {
      await migrateToLatest(store);
      teamId = (await store.transaction((trx) => createTeam(trx, 'Two processes'))).id;
      const passwordHash = await hashPassword(PASSWORD);
      user = await insertUser(store.db, { email: 'ops@example.test', name: 'Ops', passwordHash });
      await upsertMember(store.db, teamId, user.id, 'owner');
    } finally {
      await store.close();
    }
    servers = await Promise.all([serve(database.url, ENV), serve(database.url, ENV)]);
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    killAll();
    await database?.remove();
  });

  test('a key revoked with admin key revoke is a 401 on the next request to each process', async () => {
    const created = await admin(database.url, 'key', 'create', '--org', teamId, '--user', user.id);
    const clients = servers.map((s) => new Client(s.url, created.key));
    // Both processes have just accepted the key (and one has recorded its use).
    for (const api of clients) expectStatus(await api.get('/v1/me'), 200);

    assert.deepEqual(await admin(database.url, 'key', 'revoke', '--id', created.id), { revoked: true });
    for (const api of clients) expectError(await api.get('/v1/me'), 401, REVOKED);
  });

  test('a key revoked through one process’s web app API is a 401 on the next request to the other', async () => {
    const [first, second] = servers as [Serving, Serving];
    const signIn = await fetch(`${first.url}/auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: user.email, password: PASSWORD }),
    });
    const info: any = await signIn.json();
    assert.equal(signIn.status, 200, JSON.stringify(info));
    const cookie = signIn.headers
      .getSetCookie()
      .find((c) => c.startsWith('tasklane_session='))!
      .split(';')[0]!;
    const session = { cookie, 'x-csrf-token': info.csrfToken as string };

    const web = new Client(first.url);
    const created = expectStatus(await web.post('/v1/api-keys', { name: 'two processes' }, session), 201);
    const onSecond = new Client(second.url, created.key);
    expectStatus(await onSecond.get('/v1/lists'), 200);

    expectStatus(await web.delete(`/v1/api-keys/${created.id}`, session), 200);
    expectError(await onSecond.get('/v1/lists'), 401, REVOKED);
    expectError(await new Client(first.url, created.key).get('/v1/lists'), 401, REVOKED);
  });
});
