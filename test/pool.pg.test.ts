/**
 * PostgreSQL connection handling: the pool never opens more than DATABASE_POOL_SIZE connections,
 * and a statement that runs past DATABASE_STATEMENT_TIMEOUT_MS is cancelled: the request answers
 * 503 {"error"} and changes nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { createTestTeam } from './factories.js';
import { expectStatus, startTestServer, tempDatabase, type TempDatabase, type TestServer } from './harness.js';

describe('PostgreSQL pool and statement timeout', () => {
  let database: TempDatabase;
  let server: TestServer;
  let blocker: pg.Client;
  before(async () => {
    database = await tempDatabase();
    server = await startTestServer({
      DATABASE_URL: database.url,
      DATABASE_POOL_SIZE: '2',
      DATABASE_STATEMENT_TIMEOUT_MS: '300',
    });
    blocker = new pg.Client({ connectionString: database.url });
    await blocker.connect();
  });
  after(async () => {
    await blocker?.end().catch(() => {});
    await server?.close();
    await database?.remove();
  });

  /** The server's pooled connections (its one LISTEN connection for events is not pooled). */
  async function serverConnections(): Promise<number> {
    const { rows } = await blocker.query(
      `select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and query not ilike 'LISTEN%'`,
    );
    return rows[0].n;
  }

  test('40 concurrent requests share at most DATABASE_POOL_SIZE connections and all succeed', async () => {
    const { owner } = await createTestTeam(server);
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, i) => owner.api.post('/v1/tasks', { title: `Pooled ${i}` })),
    );
    for (const response of responses) expectStatus(response, 201);
    assert.ok((await serverConnections()) <= 2, 'more connections than DATABASE_POOL_SIZE');
  });

  test('a statement held past the timeout answers 503 {"error"} quickly and commits nothing', async () => {
    const { owner, id: teamId } = await createTestTeam(server);
    expectStatus(await owner.api.post('/v1/tasks', { title: 'Before' }), 201);

    // Another session holds the team's row lock, so the create's numbering waits on it.
    await blocker.query('begin');
    await blocker.query('select id from teams where id = $1 for update', [teamId]);
    const started = Date.now();
    const res = await fetch(`${server.url}/v1/tasks`, {
      method: 'POST',
      headers: { 'x-api-key': owner.key, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Blocked' }),
    });
    const elapsed = Date.now() - started;
    await blocker.query('rollback');

    assert.equal(res.status, 503, await res.clone().text());
    assert.deepEqual(Object.keys((await res.json()) as object), ['error']);
    assert.ok(elapsed < 5_000, `the request took ${elapsed} ms with a 300 ms statement timeout`);

    // Nothing of the refused create exists, and numbering continues without a gap.
    const titles = expectStatus(await owner.api.get('/v1/tasks'), 200).map((t: { title: string }) => t.title);
    assert.deepEqual(titles, ['Before']);
    assert.equal(expectStatus(await owner.api.post('/v1/tasks', { title: 'After' }), 201).number, 2);
  });
});
