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
 * A TCP proxy to PostgreSQL that can be cut (every open connection destroyed, new ones closed
 * as soon as they arrive) and restored (new connections forwarded again).
 */
class CuttableProxy {
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private up = true;

  private constructor() {
    this.server = net.createServer((client) => this.accept(client));
  }

  static async start(): Promise<CuttableProxy> {
    const proxy = new CuttableProxy();
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
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  restore(): void {
    this.up = true;
  }

  async close(): Promise<void> {
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
    client.pipe(upstream);
    upstream.pipe(client);
  }
}

interface TimedResponse extends Response {
  elapsedMs: number;
}

/**
 * One request with raw fetch (the harness Client fails the test on any 5xx, and 503s are
 * expected here), aborted after ABORT_AFTER_MS so a hang is reported rather than waited out.
 */
async function send(
  baseUrl: string,
  method: string,
  path: string,
  options: { key?: string; body?: unknown } = {},
): Promise<TimedResponse> {
  const headers: Record<string, string> = {};
  if (options.key !== undefined) headers['x-api-key'] = options.key;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  const started = performance.now();
  let res: globalThis.Response;
  try {
    res = await fetch(baseUrl + path, { method, headers, body, signal: AbortSignal.timeout(ABORT_AFTER_MS) });
  } catch (error) {
    const elapsed = Math.round(performance.now() - started);
    assert.fail(`${method} ${path} got no response after ${elapsed} ms (hang or dropped connection): ${error}`);
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
function expectBounded(response: TimedResponse, what: string): void {
  assert.ok(
    response.elapsedMs < REQUEST_BOUND_MS,
    `${what} took ${response.elapsedMs} ms (bound ${REQUEST_BOUND_MS} ms): ${show(response)}`,
  );
}

/** Asserts a prompt 503 {"error"} with a Retry-After, as the database-unavailable answer. */
function expectUnavailable(response: TimedResponse, what: string): void {
  expectBounded(response, what);
  expectError(response, 503);
  const retryAfter = response.headers.get('retry-after');
  assert.ok(retryAfter && /^\d+$/.test(retryAfter), `${what}: 503 without a Retry-After in seconds: ${show(response)}`);
}

/** Asserts a bounded answer that is either a success or 503 {"error"}: never a 500, never another 5xx. */
function expectSuccessOrUnavailable(response: TimedResponse, what: string): void {
  expectBounded(response, what);
  if (response.status === 503) expectError(response, 503);
  else
    assert.ok(response.status >= 200 && response.status < 300, `${what}: expected 2xx or 503, got ${show(response)}`);
}

/**
 * Repeats `attempt` until it answers 2xx, asserting every intermediate answer is a bounded
 * 503 {"error"}; fails after `attempts` tries. Returns the successful response.
 */
async function untilSuccess(
  what: string,
  attempt: () => Promise<TimedResponse>,
  attempts = 40,
  pauseMs = 250,
): Promise<TimedResponse> {
  const seen: string[] = [];
  for (let i = 0; i < attempts; i++) {
    const response = await attempt();
    expectSuccessOrUnavailable(response, what);
    if (response.status < 300) return response;
    seen.push(show(response));
    await sleep(pauseMs);
  }
  assert.fail(`${what} never succeeded after ${attempts} tries; last answers: ${seen.slice(-3).join(' | ')}`);
}

/** Starts tasklane in-process on `databaseUrl`, the same way as the harness does. */
async function startTasklane(databaseUrl: string): Promise<RunningServer> {
  return startServer(
    loadConfig({
      DATABASE_URL: databaseUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      RATE_LIMIT_PER_MINUTE: '0',
      // The outage itself logs warnings on purpose; keep the output to real errors (a 500).
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
    }),
  );
}

/**
 * The running server as the factories expect it, but with `store` replaced by one opened
 * directly on the database, so setup and checks never go through the proxy.
 */
function asTestServer(server: RunningServer, directStore: Store): TestServer {
  return { ...server, store: directStore, client: (key?: string) => new Client(server.url, key) };
}

/** Number of this team's tasks with this title, read straight from the database. */
async function countTasks(store: Store, teamId: string, title: string): Promise<number> {
  const row = await store.db
    .selectFrom('tasks')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('team_id', '=', teamId)
    .where('title', '=', title)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

describe('PostgreSQL unreachable, then back (connection cut by a proxy)', () => {
  let database: TempDatabase;
  let proxy: CuttableProxy;
  let server: RunningServer | undefined;
  let direct: Store | undefined;
  let team: Team;

  before(async () => {
    database = await tempDatabase();
    proxy = await CuttableProxy.start();
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
    // A few concurrent requests leave several idle connections in the pool to be cut.
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
    // Concurrent requests during the outage too.
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
    // The failed POSTs created nothing: the numbering continues without a gap.
    assert.equal(created.body.number, second.number + 1, `task numbers must not skip: ${show(created)}`);

    // Data written before the outage is intact; nothing from the gap exists.
    const list = expectStatus(await team.owner.api.get('/v1/tasks'), 200);
    assert.deepEqual(
      list.map((t: { number: number; title: string }) => [t.number, t.title]).sort((a: any, b: any) => a[0] - b[0]),
      [
        [first.number, 'Before outage 1'],
        [second.number, 'Before outage 2'],
        [second.number + 1, 'After outage'],
      ],
    );
    assert.equal(await countTasks(direct!, team.id, 'During outage'), 0, 'a POST answered 503 must create nothing');
    expectStatus(await team.owner.api.get(`/v1/tasks/${first.id}`), 200);

    // Healthy again under concurrency.
    const after = await Promise.all([1, 2, 3, 4, 5].map(() => team.owner.api.get('/v1/tasks')));
    for (const response of after) assert.equal(response.body.length, 3);
  });

  test('a second outage on the same process behaves the same', async () => {
    const key = team.owner.key;
    const url = server!.url;
    expectStatus(await team.owner.api.get('/v1/me'), 200);

    proxy.cut();
    expectUnavailable(await send(url, 'GET', '/v1/tasks', { key }), 'GET /v1/tasks');
    expectUnavailable(
      await send(url, 'POST', '/v1/tasks', { key, body: { title: 'During outage' } }),
      'POST /v1/tasks',
    );
    proxy.restore();

    const created = await untilSuccess('POST /v1/tasks after the second restore', () =>
      send(url, 'POST', '/v1/tasks', { key, body: { title: 'After second outage' } }),
    );
    assert.equal(created.body.number, 4, `task numbers must not skip: ${show(created)}`);
    assert.equal(await countTasks(direct!, team.id, 'During outage'), 0);
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

    const terminated = await terminateAll();
    assert.ok(terminated > 0, 'expected backends of the test database to terminate');

    const responses: TimedResponse[] = [];
    for (let i = 0; i < 3; i++) {
      responses.push(await send(url, 'GET', '/v1/tasks', { key }));
      responses.push(await send(url, 'GET', '/v1/me', { key }));
    }
    for (const response of responses) expectSuccessOrUnavailable(response, 'request after pg_terminate_backend');

    const created = await untilSuccess(
      'POST /v1/tasks after pg_terminate_backend',
      () => send(url, 'POST', '/v1/tasks', { key, body: { title: 'After termination' } }),
      10,
    );
    assert.equal(created.status, 201, show(created));
    const list = expectStatus(await team.owner.api.get('/v1/tasks'), 200);
    const titles = new Set(list.map((t: { title: string }) => t.title));
    assert.ok(titles.has('Before termination'), 'data written before the termination is intact');
    assert.ok(created.body.number > first.number);
  });

  test('backends killed while requests are in flight: 2xx or 503, never 500 or a hang', async () => {
    const key = team.owner.key;
    const url = server!.url;
    await Promise.all([1, 2, 3, 4].map(() => team.owner.api.get('/v1/tasks')));

    // Keep a stream of requests going while the backends are terminated a few times.
    let stop = false;
    const load = async (): Promise<TimedResponse[]> => {
      const seen: TimedResponse[] = [];
      let i = 0;
      while (!stop) {
        i++;
        seen.push(
          i % 3 === 0
            ? await send(url, 'POST', '/v1/tasks', { key, body: { title: `Load ${i}` } })
            : await send(url, 'GET', i % 3 === 1 ? '/v1/tasks' : '/v1/me', { key }),
        );
      }
      return seen;
    };
    const workers = [load(), load(), load(), load()];
    for (let round = 0; round < 3; round++) {
      await sleep(100);
      await terminateAll();
    }
    await sleep(200);
    stop = true;
    const responses = (await Promise.all(workers)).flat();
    assert.ok(responses.length > 0);
    for (const response of responses) expectSuccessOrUnavailable(response, 'request during pg_terminate_backend');

    await untilSuccess('GET /v1/me after the terminations', () => send(url, 'GET', '/v1/me', { key }), 10);

    // Task numbers stay dense: every created task got the next number, none was skipped.
    const list = expectStatus(await team.owner.api.get('/v1/tasks'), 200);
    const numbers = list.map((t: { number: number }) => t.number).sort((a: number, b: number) => a - b);
    assert.deepEqual(
      numbers,
      numbers.map((_: number, i: number) => i + 1),
      'task numbers must have no gaps',
    );

    // The process is still up and healthy.
    const health = await send(url, 'GET', '/healthz');
    assert.equal(health.status, 200, show(health));
  });
});
