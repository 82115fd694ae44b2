/**
 * Rate limits with several `tasklane serve` processes on one PostgreSQL database: the processes
 * count in one table, so a budget is shared rather than multiplied by the number of processes,
 * also when the requests arrive at all of them at once. If the counters cannot be read the
 * processes go on answering, unlimited, and limit again once they can. PostgreSQL only.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { insertKey } from '../src/keys/keys.repository.js';
import { openStore, type Store } from '../src/storage/database.js';
import { upsertMember } from '../src/teams/teams.repository.js';
import { createTeam } from '../src/teams/teams.service.js';
import { insertUser } from '../src/users/users.repository.js';
import { Client, show, tempDatabase, type Response, type TempDatabase } from './harness.js';
import { killAll, serve, TIMEOUT, type Serving } from './processes.js';

const LIMIT = 30;
const PROCESSES = 3;
const ENV = { RATE_LIMIT_PER_MINUTE: String(LIMIT), LOG_LEVEL: 'error' };

/** Sends `count` requests at once, spread round-robin over the processes. */
function roundRobin(servers: Serving[], count: number, client: (url: string) => Client, path: string) {
  return Promise.all(Array.from({ length: count }, (_, i) => client(servers[i % servers.length]!.url).get(path)));
}

/** How many responses had each status, e.g. { 200: 30, 429: 60 }. */
function statusCounts(responses: Response[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const res of responses) counts[res.status] = (counts[res.status] ?? 0) + 1;
  return counts;
}

describe('rate limits across several serve processes on one PostgreSQL database', { timeout: 4 * TIMEOUT }, () => {
  let database: TempDatabase;
  let servers: Serving[] = [];
  /** A direct connection for making keys (as `tasklane admin` would, without its start-up time). */
  let store: Store;

  /** A new team, owner and API key: a budget no other test has touched. */
  async function newKey(): Promise<string> {
    const team = await store.transaction((trx) => createTeam(trx, 'Rate limits'));
    const email = `${randomUUID()}@example.test`;
    const user = await insertUser(store.db, { email, name: 'Counter', passwordHash: null });
    await upsertMember(store.db, team.id, user.id, 'owner');
    return (await insertKey(store.db, { teamId: team.id, userId: user.id, name: 'limits' })).key;
  }

  before(async () => {
    database = await tempDatabase();
    servers.push(await serve(database.url, ENV)); // the first migrates and bootstraps
    servers.push(...(await Promise.all(Array.from({ length: PROCESSES - 1 }, () => serve(database.url, ENV)))));
    store = openStore(database.url);
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    killAll();
    await store?.close();
    await database?.remove();
  });

  test(`a key gets exactly RATE_LIMIT_PER_MINUTE (${LIMIT}) answers in its window from ${PROCESSES} processes together, each counted once`, async () => {
    const key = await newKey();
    const responses = await roundRobin(servers, PROCESSES * LIMIT, (url) => new Client(url, key), '/v1/me');
    assert.deepEqual(statusCounts(responses), { 200: LIMIT, 429: (PROCESSES - 1) * LIMIT });
    // Every successful answer saw a different count: no two concurrent requests read the same one.
    const remaining = responses
      .filter((res) => res.status === 200)
      .map((res) => Number(res.headers.get('ratelimit-remaining')))
      .sort((a, b) => a - b);
    assert.deepEqual(
      remaining,
      Array.from({ length: LIMIT }, (_, i) => i),
    );
    for (const server of servers) {
      const res = await new Client(server.url, key).get('/v1/lists');
      assert.equal(res.status, 429, `a process let a spent key through: ${show(res)}`);
    }
  });

  test('failed authentication from one address is counted across the processes, and a valid key still gets through each', async () => {
    // A different invalid key on every request: only the address is shared.
    const randomKey = () => `tl_${randomBytes(32).toString('base64url')}`;
    const responses = await roundRobin(servers, PROCESSES * LIMIT, (url) => new Client(url, randomKey()), '/v1/lists');
    assert.deepEqual(statusCounts(responses), { 401: LIMIT, 429: (PROCESSES - 1) * LIMIT });
    const key = await newKey();
    for (const server of servers) {
      const res = await new Client(server.url, key).get('/v1/me');
      assert.equal(res.status, 200, `a valid key was locked out by its address's failures: ${show(res)}`);
    }
  });

  test('when the counters cannot be read the processes answer unlimited (no 5xx), and limit again once they can', async () => {
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    const key = await newKey();
    try {
      await admin.query('alter table rate_limit_counters rename to rate_limit_counters_away');
      const responses = await roundRobin(servers, LIMIT + 6, (url) => new Client(url, key), '/v1/me');
      assert.deepEqual(statusCounts(responses), { 200: LIMIT + 6 });
      assert.ok(
        responses.every((res) => res.headers.get('ratelimit-limit') === null),
        'RateLimit headers sent without counters to back them',
      );
    } finally {
      await admin.query('alter table if exists rate_limit_counters_away rename to rate_limit_counters');
      await admin.end();
    }
    const res = await new Client(servers[0]!.url, key).get('/v1/me');
    assert.equal(res.status, 200, show(res));
    assert.equal(res.headers.get('ratelimit-remaining'), String(LIMIT - 1));
  });
});
