/**
 * Rate limits with several `tasklane serve` processes on one PostgreSQL database: the processes
 * count in one table, so a budget is shared rather than multiplied by the number of processes,
 * also when the requests arrive at all of them at once. If the counters cannot be read the
 * processes go on answering, unlimited, and limit again once they can; with PostgreSQL down
 * (a proxy that cuts the connections) nothing answers 500. PostgreSQL only.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { insertKey } from '../src/keys/keys.repository.js';
import { openStore, type Store } from '../src/storage/database.js';
import { upsertMember } from '../src/team/teams.repository.js';
import { createTeam } from '../src/membership/accounts.service.js';
import { hashPassword } from '../src/team/passwords.js';
import { insertUser } from '../src/team/users.repository.js';
import { Client, show, tempDatabase, type Response, type TempDatabase } from './harness.js';
import { killAll, serve, TIMEOUT, type Serving } from './processes.js';

const LIMIT = 30;
const PROCESSES = 3;
// Trusting the loopback proxy lets a test speak from addresses of its own (X-Forwarded-For).
const ENV = { RATE_LIMIT_PER_MINUTE: String(LIMIT), LOG_LEVEL: 'error', TRUST_PROXY: '127.0.0.1' };
/** Wrong passwords a minute per account: min(RATE_LIMIT_PER_MINUTE, 10). */
const ACCOUNT_LIMIT = 10;

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

/** A TCP proxy to the PostgreSQL server of `databaseUrl` that can be cut (PostgreSQL down) and restored. */
async function cuttableProxy(databaseUrl: string) {
  const target = new URL(databaseUrl);
  const sockets = new Set<net.Socket>();
  let up = true;
  const server = net.createServer((client) => {
    if (!up) return client.destroy();
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => sockets.delete(socket));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const proxied = new URL(databaseUrl);
  proxied.host = `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return {
    url: proxied.toString(),
    cut() {
      up = false;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      up = true;
    },
    close: () => new Promise<void>((closed) => server.close(() => closed())),
  };
}

describe('rate limits across several serve processes on one PostgreSQL database', { timeout: 4 * TIMEOUT }, () => {
  let database: TempDatabase;
  let servers: Serving[] = [];
  /** One more process, whose connections to PostgreSQL pass through a proxy that can cut them. */
  let proxy: Awaited<ReturnType<typeof cuttableProxy>>;
  let behindProxy: Serving;
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
    proxy = await cuttableProxy(database.url);
    // Started together: one migrates and bootstraps, the others wait for it.
    [behindProxy, ...servers] = await Promise.all([
      serve(proxy.url, ENV),
      ...Array.from({ length: PROCESSES }, () => serve(database.url, ENV)),
    ]);
    store = openStore(database.url);
  });
  after(async () => {
    await Promise.all([...servers, behindProxy].map((s) => s?.stop()));
    killAll();
    await proxy?.close();
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

  test(`wrong passwords for one account sent at once to ${PROCESSES} processes from many addresses: exactly ${ACCOUNT_LIMIT} are checked`, async () => {
    const email = `${randomUUID()}@example.test`;
    const team = await store.transaction((trx) => createTeam(trx, 'Sign-in budget'));
    const user = await insertUser(store.db, {
      email,
      name: 'Guessed',
      passwordHash: await hashPassword('the real one'),
    });
    await upsertMember(store.db, team.id, user.id, 'owner');
    const responses = await Promise.all(
      Array.from({ length: 3 * LIMIT }, (_, i) =>
        new Client(servers[i % servers.length]!.url).post(
          '/auth/sign-in',
          { email, password: `guess ${i}` },
          { 'x-forwarded-for': `198.51.100.${i + 1}` },
        ),
      ),
    );
    assert.deepEqual(statusCounts(responses), { 401: ACCOUNT_LIMIT, 429: 3 * LIMIT - ACCOUNT_LIMIT });
    const right = await new Client(servers[0]!.url).post(
      '/auth/sign-in',
      { email, password: 'the real one' },
      { 'x-forwarded-for': '198.51.100.250' },
    );
    assert.equal(right.status, 429, `the account's spent budget did not hold in every process: ${show(right)}`);
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

  test('with PostgreSQL down, limited requests answer 503 {"error"} (or their own 401/404), never a 500, and are limited again once it is back', async () => {
    try {
      const key = await newKey();
      const get = (path: string, headers: Record<string, string> = {}) => fetch(behindProxy.url + path, { headers });
      assert.equal((await get('/v1/me', { 'x-api-key': key })).status, 200);
      proxy.cut();
      const down = await get('/v1/me', { 'x-api-key': key });
      const body = await down.text();
      assert.equal(down.status, 503, body);
      assert.equal(down.headers.get('retry-after'), '1');
      assert.deepEqual(Object.keys(JSON.parse(body)), ['error']);
      // Neither needs the database to answer; the counters being gone must not change that.
      assert.equal((await get('/v1/me')).status, 401);
      assert.equal((await get('/v1/nope')).status, 404);
      proxy.restore();
      let back: globalThis.Response | undefined;
      for (let attempt = 0; attempt < 50 && back?.status !== 200; attempt++) {
        if (attempt > 0) await sleep(100);
        back = await get('/v1/me', { 'x-api-key': key });
        assert.ok(back.status === 200 || back.status === 503, `after restore: ${back.status}`);
      }
      assert.equal(back?.status, 200);
      assert.equal(back?.headers.get('ratelimit-limit'), String(LIMIT));
    } finally {
      proxy.restore();
    }
  });
});
