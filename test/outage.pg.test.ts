/**
 * Database outages (PostgreSQL only): while the database cannot be reached, every request that
 * needs it answers 503 {"error"} promptly (never a hang, a 500 or a crash), /healthz still
 * answers, and once the database is back the same process serves requests again by itself.
 *
 * The shared PostgreSQL server is never stopped (other test files use it concurrently): an
 * outage is simulated either by a TCP proxy between tasklane and PostgreSQL that can be cut and
 * restored, or by terminating every backend of this test's own database.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { startServer, type RunningServer } from '../src/server.js';
import { openStore, type Store } from '../src/storage/database.js';
import { createTestTeam, type Team } from './factories.js';
import {
  Client,
  expectError,
  expectStatus,
  show,
  tempDatabase,
  type Response,
  type TempDatabase,
  type TestServer,
} from './harness.js';

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/** How long any single request may take while the database is gone (boundedness, not speed). */
const REQUEST_BOUND_MS = 10_000;
/** Requests are aborted after this, so a hang fails the test instead of stalling it. */
const ABORT_AFTER_MS = 20_000;

const POSTGRES_HOST = '127.0.0.1';
const POSTGRES_PORT = 5432;

/**
 * A TCP proxy to PostgreSQL with three faults:
 * - cut: every open connection is destroyed and new ones are closed as soon as they arrive
 *   (PostgreSQL down or restarting: the client sees resets at once);
 * - stall: nothing moves in either direction and new connections get no answer, but nothing
 *   is closed either (a network partition: the client only ever sees silence);
 * - restore / resume: forward again (after a stall, the held bytes are delivered in order,
 *   as TCP retransmission would once the partition heals).
 */
class FaultyProxy {
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private up = true;
  private stalled = false;
  private held: { to: net.Socket; chunk: Buffer }[] = [];
  private stallTrigger: { marker: string; fired: () => void } | undefined;

  private constructor() {
    this.server = net.createServer((client) => this.accept(client));
  }

  static async start(): Promise<FaultyProxy> {
    const proxy = new FaultyProxy();
    await new Promise<void>((resolve, reject) => {
      proxy.server.once('error', reject);
      proxy.server.listen(0, '127.0.0.1', () => {
        proxy.server.off('error', reject);
        resolve();
      });
    });
    return proxy;
  }

  get port(): number {
    return (this.server.address() as net.AddressInfo).port;
  }

  /** Open sockets on either side of the proxy. */
  get openSockets(): number {
    return this.sockets.size;
  }

  /** `url` with its host and port replaced by the proxy's. */
  route(url: string): string {
    const routed = new URL(url);
    routed.hostname = '127.0.0.1';
    routed.port = String(this.port);
    return routed.toString();
  }

  cut(): void {
    this.up = false;
    this.held = [];
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  restore(): void {
    this.up = true;
  }

  /**
   * Stalls every connection right after the client sends a message containing `marker`
   * (that message still reaches PostgreSQL, its answer does not come back). Resolves when
   * the stall begins.
   */
  stallAfter(marker: string): Promise<void> {
    return new Promise((fired) => {
      this.stallTrigger = { marker, fired };
    });
  }

  /** Delivers everything held during the stall, in order, and forwards again. */
  resume(): void {
    this.stalled = false;
    this.stallTrigger = undefined;
    const held = this.held;
    this.held = [];
    for (const { to, chunk } of held) if (!to.destroyed) to.write(chunk);
  }

  async close(): Promise<void> {
    this.resume();
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: net.Socket): void {
    client.on('error', () => {});
    if (!this.up) {
      client.destroy();
      return;
    }
    const upstream = net.connect(POSTGRES_PORT, POSTGRES_HOST);
    upstream.on('error', () => {});
    this.sockets.add(client);
    this.sockets.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    client.on('close', drop);
    upstream.on('close', drop);
    client.on('data', (chunk: Buffer) => {
      if (this.stalled) return void this.held.push({ to: upstream, chunk });
      upstream.write(chunk);
      const trigger = this.stallTrigger;
      if (trigger && chunk.includes(trigger.marker)) {
        this.stallTrigger = undefined;
        this.stalled = true;
        trigger.fired();
      }
    });
    upstream.on('data', (chunk: Buffer) => {
      if (this.stalled) this.held.push({ to: client, chunk });
      else client.write(chunk);
    });
  }
}

/**
 * Uncaught exceptions in this process. node:test keeps the process alive through them, but in
 * `tasklane serve` each one would have killed the server.
 */
const uncaught: unknown[] = [];
process.on('uncaughtException', (error) => uncaught.push(error));

/** Fails when anything went uncaught (checked after a moment, so late socket events count). */
async function expectNoCrash(): Promise<void> {
  await sleep(200);
  const errors = uncaught.splice(0);
  assert.deepEqual(
    errors.map((e) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e))),
    [],
    'uncaught exceptions: a real `tasklane serve` process would have crashed',
  );
}

interface TimedResponse extends Response {
  elapsedMs: number;
}

/**
 * One request with raw fetch (the harness Client fails the test on any 5xx, and 503s are
 * expected here), aborted after `abortMs` so a hang is reported rather than waited out.
 */
async function send(
  baseUrl: string,
  method: string,
  path: string,
  options: { key?: string; body?: unknown; abortMs?: number } = {},
): Promise<TimedResponse> {
  const headers: Record<string, string> = {};
  if (options.key !== undefined) headers['x-api-key'] = options.key;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  const abortMs = options.abortMs ?? ABORT_AFTER_MS;
  const started = performance.now();
  let res: globalThis.Response;
  try {
    res = await fetch(baseUrl + path, { method, headers, body, signal: AbortSignal.timeout(abortMs) });
  } catch (error) {
    const elapsed = Math.round(performance.now() - started);
    assert.fail(`${method} ${path} got no response after ${elapsed} ms (a hang, or the server died): ${error}`);
  }
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  const elapsedMs = Math.round(performance.now() - started);
  return { status: res.status, headers: res.headers, body: parsed, text, elapsedMs };
}

/** Asserts the answer came in bounded time. */
function expectBounded(response: TimedResponse, what: string, boundMs = REQUEST_BOUND_MS): void {
  assert.ok(
    response.elapsedMs < boundMs,
    `${what} took ${response.elapsedMs} ms (bound ${boundMs} ms): ${show(response)}`,
  );
}

/** Asserts a bounded 503 {"error"} with a Retry-After in seconds: the database-unavailable answer. */
function expectUnavailable(response: TimedResponse, what: string, boundMs = REQUEST_BOUND_MS): void {
  expectBounded(response, what, boundMs);
  expectError(response, 503);
  const retryAfter = response.headers.get('retry-after');
  assert.ok(retryAfter && /^\d+$/.test(retryAfter), `${what}: 503 without a Retry-After in seconds: ${show(response)}`);
}

/** Asserts a bounded answer that is a success or 503 {"error"}: never a 500, never another 5xx. */
function expectSuccessOrUnavailable(response: TimedResponse, what: string, boundMs = REQUEST_BOUND_MS): void {
  expectBounded(response, what, boundMs);
  if (response.status === 503) expectError(response, 503);
  else
    assert.ok(response.status >= 200 && response.status < 300, `${what}: expected 2xx or 503, got ${show(response)}`);
}

/**
 * Repeats `attempt` until it answers 2xx, asserting every answer before that is a bounded
 * 503 {"error"}; fails after `attempts` tries. Returns the successful response.
 */
async function untilSuccess(
  what: string,
  attempt: () => Promise<TimedResponse>,
  attempts = 40,
  boundMs = REQUEST_BOUND_MS,
): Promise<TimedResponse> {
  const seen: string[] = [];
  for (let i = 0; i < attempts; i++) {
    const response = await attempt();
    expectSuccessOrUnavailable(response, what, boundMs);
    if (response.status < 300) return response;
    seen.push(show(response));
    await sleep(250);
  }
  assert.fail(`${what} never succeeded in ${attempts} tries; last answers: ${seen.slice(-3).join(' | ')}`);
}

/**
 * Sends a mix of reads and task creations from `workers` concurrent loops until `stop()`
 * resolves; returns every answer (the caller judges them).
 */
async function underLoad(
  url: string,
  key: string,
  workers: number,
  stop: () => Promise<void>,
): Promise<TimedResponse[]> {
  let done = false;
  let i = 0;
  const loop = async (): Promise<TimedResponse[]> => {
    const seen: TimedResponse[] = [];
    while (!done) {
      const n = ++i;
      seen.push(
        n % 3 === 0
          ? await send(url, 'POST', '/v1/tasks', { key, body: { title: `Load ${n}` } })
          : await send(url, 'GET', n % 3 === 1 ? '/v1/tasks' : '/v1/me', { key }),
      );
    }
    return seen;
  };
  const loops = Array.from({ length: workers }, loop);
  await stop();
  done = true;
  return (await Promise.all(loops)).flat();
}

/** Starts tasklane in-process on `databaseUrl`, the same way as the harness does. */
async function startTasklane(databaseUrl: string): Promise<RunningServer> {
  return startServer(
    loadConfig({
      DATABASE_URL: databaseUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      RATE_LIMIT_PER_MINUTE: '0',
      // The outages log warnings on purpose; keep the output to real errors (a 500).
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
    }),
  );
}

/**
 * The running server as the factories expect it, but with `store` replaced by one opened
 * directly on the database, so setup and checks never go through the proxy.
 */
function asTestServer(server: RunningServer, directStore: Store): TestServer {
  return { ...server, store: directStore, client: (key?: string) => new Client(server.url, key), attachmentsDir: '' };
}

/** This team's tasks as [number, title], read straight from the database. */
async function committedTasks(store: Store, teamId: string): Promise<[number, string][]> {
  const rows = await store.db
    .selectFrom('tasks')
    .select(['number', 'title'])
    .where('team_id', '=', teamId)
    .orderBy('number')
    .execute();
  return rows.map((r) => [Number(r.number), r.title]);
}

/** Asserts the team's task numbers are exactly 1..n: none skipped, none repeated. */
function expectDenseNumbers(tasks: [number, string][]): void {
  const numbers = tasks.map(([n]) => n);
  assert.deepEqual(
    numbers,
    numbers.map((_, i) => i + 1),
    'task numbers must run 1..n without gaps',
  );
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

describe('PostgreSQL unreachable, then back (connections cut by a proxy)', () => {
  let database: TempDatabase;
  let proxy: FaultyProxy;
  let server: RunningServer | undefined;
  let direct: Store | undefined;
  let team: Team;

  before(async () => {
    database = await tempDatabase();
    proxy = await FaultyProxy.start();
    server = await startTasklane(proxy.route(database.url));
    direct = openStore(database.url, { poolSize: 2 });
    team = await createTestTeam(asTestServer(server, direct), 'Outage team');
  });

  after(async () => {
    proxy?.restore(); // lets the pool close cleanly even if a test failed mid-outage
    await server?.close();
    await direct?.close();
    await proxy?.close();
    await database?.remove();
  });

  test('requests in the gap answer 503 promptly, /healthz stays up, and the process recovers alone', async () => {
    const key = team.owner.key;
    const url = server!.url;

    // Before: everything works, and two tasks exist.
    expectStatus(await team.owner.api.get('/v1/me'), 200);
    const first = expectStatus(await team.owner.api.post('/v1/tasks', { title: 'Before outage 1' }), 201);
    const second = expectStatus(await team.owner.api.post('/v1/tasks', { title: 'Before outage 2' }), 201);
    assert.equal(second.number, first.number + 1);
    // Concurrent requests leave several idle connections in the pool to be cut.
    await Promise.all([1, 2, 3, 4].map(() => team.owner.api.get('/v1/tasks')));
    assert.ok(proxy.openSockets > 0, 'the server should be connected through the proxy');

    // Cut: existing connections die, new ones are refused.
    proxy.cut();

    for (let round = 1; round <= 2; round++) {
      expectUnavailable(await send(url, 'GET', '/v1/tasks', { key }), `GET /v1/tasks (round ${round})`);
      expectUnavailable(
        await send(url, 'POST', '/v1/tasks', { key, body: { title: 'During outage' } }),
        `POST /v1/tasks (round ${round})`,
      );
      expectUnavailable(await send(url, 'GET', '/v1/me', { key }), `GET /v1/me (round ${round})`);
    }
    const concurrent = await Promise.all([
      send(url, 'GET', '/v1/tasks', { key }),
      send(url, 'GET', '/v1/me', { key }),
      send(url, 'POST', '/v1/tasks', { key, body: { title: 'During outage' } }),
      send(url, 'GET', '/v1/task-statuses', { key }),
    ]);
    for (const response of concurrent) expectUnavailable(response, 'concurrent request during the outage');

    // Liveness does not need the database.
    const health = await send(url, 'GET', '/healthz');
    expectBounded(health, 'GET /healthz');
    assert.equal(health.status, 200, show(health));
    assert.deepEqual(health.body, { status: 'ok' });

    // Restore: the same process serves requests again within a bounded number of tries.
    proxy.restore();
    await untilSuccess('GET /v1/me after restore', () => send(url, 'GET', '/v1/me', { key }));
    const created = await untilSuccess('POST /v1/tasks after restore', () =>
      send(url, 'POST', '/v1/tasks', { key, body: { title: 'After outage' } }),
    );
    assert.equal(created.status, 201, show(created));
    // The POSTs answered 503 created nothing: the numbering continues without a gap.
    assert.equal(created.body.number, second.number + 1, `task numbers must not skip: ${show(created)}`);

    // Data written before the outage is intact; nothing from the gap exists.
    const expected: [number, string][] = [
      [first.number, 'Before outage 1'],
      [second.number, 'Before outage 2'],
      [second.number + 1, 'After outage'],
    ];
    assert.deepEqual(await committedTasks(direct!, team.id), expected);
    const listed = expectStatus(await team.owner.api.get('/v1/tasks'), 200);
    assert.deepEqual(
      listed.map((t: { number: number; title: string }) => [t.number, t.title]).reverse(),
      expected,
      'GET /v1/tasks lists the same tasks, newest first',
    );
    expectStatus(await team.owner.api.get(`/v1/tasks/${first.id}`), 200);

    // Healthy again under concurrency.
    const again = await Promise.all([1, 2, 3, 4, 5].map(() => team.owner.api.get('/v1/tasks')));
    for (const response of again) assert.equal(response.body.length, 3);
    await expectNoCrash();
  });

  test('a cut while requests are in flight: 2xx or 503 only, and a second recovery of the same process', async () => {
    const key = team.owner.key;
    const url = server!.url;
    expectStatus(await team.owner.api.get('/v1/me'), 200);

    const responses = await underLoad(url, key, 6, async () => {
      await sleep(300);
      proxy.cut();
      await sleep(700);
    });
    assert.ok(
      responses.some((r) => r.status === 503),
      'some requests should have met the outage',
    );
    for (const response of responses) expectSuccessOrUnavailable(response, 'request around the cut');

    proxy.restore();
    await untilSuccess('POST /v1/tasks after the second restore', () =>
      send(url, 'POST', '/v1/tasks', { key, body: { title: 'After second outage' } }),
    );
    // A POST cut off after its COMMIT may exist although it answered 503 (the server cannot
    // know); but numbers are still handed out without gaps.
    expectDenseNumbers(await committedTasks(direct!, team.id));
    await expectNoCrash();
  });
});

describe('PostgreSQL backends terminated (pg_terminate_backend)', () => {
  let database: TempDatabase;
  let server: RunningServer | undefined;
  let direct: Store | undefined;
  let admin: pg.Client | undefined;
  let team: Team;

  /** Terminates every backend connected to this test's database; returns how many. */
  async function terminateAll(): Promise<number> {
    const name = new URL(database.url).pathname.slice(1);
    const result = await admin!.query(
      'select pg_terminate_backend(pid) as terminated from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
      [name],
    );
    return result.rows.filter((row) => row.terminated).length;
  }

  before(async () => {
    database = await tempDatabase();
    server = await startTasklane(database.url);
    direct = openStore(database.url, { poolSize: 2 });
    team = await createTestTeam(asTestServer(server, direct), 'Terminated team');
    admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    admin.on('error', () => {});
    await admin.connect();
  });

  after(async () => {
    await server?.close();
    await direct?.close();
    await admin?.end();
    await database?.remove();
  });

  test('idle pooled connections killed: requests answer 2xx or 503, then succeed again', async () => {
    const key = team.owner.key;
    const url = server!.url;
    const first = expectStatus(await team.owner.api.post('/v1/tasks', { title: 'Before termination' }), 201);
    // Fill the pool with several idle connections.
    await Promise.all([1, 2, 3, 4, 5].map(() => team.owner.api.get('/v1/tasks')));

    assert.ok((await terminateAll()) > 0, 'expected backends of the test database to terminate');

    for (let i = 0; i < 3; i++) {
      expectSuccessOrUnavailable(await send(url, 'GET', '/v1/tasks', { key }), 'GET /v1/tasks after termination');
      expectSuccessOrUnavailable(await send(url, 'GET', '/v1/me', { key }), 'GET /v1/me after termination');
    }
    const created = await untilSuccess(
      'POST /v1/tasks after pg_terminate_backend',
      () => send(url, 'POST', '/v1/tasks', { key, body: { title: 'After termination' } }),
      10,
    );
    assert.equal(created.status, 201, show(created));
    assert.equal(created.body.number, first.number + 1, show(created));
    assert.deepEqual(await committedTasks(direct!, team.id), [
      [first.number, 'Before termination'],
      [first.number + 1, 'After termination'],
    ]);
    await expectNoCrash();
  });

  test('backends killed while requests are in flight: 2xx or 503, never 500, a hang or a crash', async () => {
    const key = team.owner.key;
    const url = server!.url;
    await Promise.all([1, 2, 3, 4].map(() => team.owner.api.get('/v1/tasks')));

    const responses = await underLoad(url, key, 4, async () => {
      for (let round = 0; round < 3; round++) {
        await sleep(100);
        await terminateAll();
      }
      await sleep(200);
    });
    assert.ok(responses.length > 0);
    for (const response of responses) expectSuccessOrUnavailable(response, 'request during pg_terminate_backend');

    await untilSuccess('GET /v1/me after the terminations', () => send(url, 'GET', '/v1/me', { key }), 10);
    expectDenseNumbers(await committedTasks(direct!, team.id));

    const health = await send(url, 'GET', '/healthz');
    assert.equal(health.status, 200, show(health));
    await expectNoCrash();
  });
});

/**
 * A network partition is harder than a refused connection: the client hears nothing at all, so
 * only its own timeouts end a request (pg's connectionTimeoutMillis 3 s for a new connection,
 * query_timeout 15 s for a query on an open one). The bound here is therefore looser than for a
 * cut, and the interesting part is what the pool holds once the partition heals.
 */
describe('PostgreSQL silent (network partition mid-transaction), then back', { timeout: 180_000 }, () => {
  /** One query_timeout (15 s) plus margin: a stalled request must not wait for two. */
  const STALL_BOUND_MS = 20_000;

  let database: TempDatabase;
  let proxy: FaultyProxy;
  let server: RunningServer | undefined;
  let direct: Store | undefined;
  let team: Team;
  let before1: { number: number };

  before(async () => {
    database = await tempDatabase();
    proxy = await FaultyProxy.start();
    server = await startTasklane(proxy.route(database.url));
    direct = openStore(database.url, { poolSize: 2 });
    team = await createTestTeam(asTestServer(server, direct), 'Partition team');
  });

  after(async () => {
    proxy?.resume();
    await server?.close();
    await direct?.close();
    await proxy?.close();
    await database?.remove();
  });

  test('a POST whose INSERT reached PostgreSQL but whose answer never came back answers 503 in bounded time', async () => {
    const key = team.owner.key;
    const url = server!.url;
    before1 = expectStatus(await team.owner.api.post('/v1/tasks', { title: 'Before partition' }), 201);

    // The INSERT runs inside the task-creating transaction (before its last statement numbers
    // the task under the team row's lock, and before COMMIT); then the network goes silent. It is recognised by its title,
    // which only its parameters carry: a prepared statement's text crosses the wire only once.
    const stalled = proxy.stallAfter('Stalled');
    const pending = send(url, 'POST', '/v1/tasks', { key, body: { title: 'Stalled' }, abortMs: 60_000 });
    const finishedFirst = await Promise.race([stalled.then(() => undefined), pending]);
    assert.equal(
      finishedFirst,
      undefined,
      `the POST finished before its INSERT was seen: ${finishedFirst && show(finishedFirst)}`,
    );

    // Meanwhile liveness still answers, and a request needing the database fails in bounded time.
    const health = await send(url, 'GET', '/healthz');
    assert.equal(health.status, 200, show(health));
    expectUnavailable(
      await send(url, 'GET', '/v1/me', { key, abortMs: 60_000 }),
      'GET /v1/me during the partition',
      STALL_BOUND_MS,
    );

    expectUnavailable(await pending, 'the stalled POST /v1/tasks', STALL_BOUND_MS);
  });

  test('after the partition heals: no 500, recovery by itself, and the POST answered 503 created nothing', async () => {
    const key = team.owner.key;
    const url = server!.url;
    proxy.resume(); // the held INSERT answer arrives now, long after the request gave up
    await sleep(200);

    // One request at a time first: the pool hands out the most recently released connection,
    // which is the one that carried the abandoned transaction.
    const created = await untilSuccess(
      'POST /v1/tasks after the partition',
      () => send(url, 'POST', '/v1/tasks', { key, body: { title: 'After partition' } }),
      10,
      STALL_BOUND_MS,
    );
    const stalledTasks = (await committedTasks(direct!, team.id)).filter(([, title]) => title === 'Stalled');
    assert.deepEqual(
      stalledTasks,
      [],
      'the POST that answered 503 must create nothing (its abandoned transaction must never be committed by a later request)',
    );
    assert.equal(created.body.number, before1.number + 1, `task numbers must not skip: ${show(created)}`);

    // Then concurrently: every answer prompt, and never a 500.
    const burst = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        i % 2
          ? send(url, 'GET', '/v1/tasks', { key })
          : send(url, 'POST', '/v1/tasks', { key, body: { title: `After partition ${i}` } }),
      ),
    );
    for (const response of burst) expectSuccessOrUnavailable(response, 'request after the partition healed');

    const tasks = await committedTasks(direct!, team.id);
    assert.deepEqual(
      tasks.filter(([, title]) => title === 'Stalled'),
      [],
    );
    expectDenseNumbers(tasks);
    await expectNoCrash();
  });
});
