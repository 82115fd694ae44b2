/**
 * What browsers are told by the API: nosniff and no-store on its answers, CORS closed unless
 * CORS_ORIGINS lists an origin, and error bodies that never carry a stack trace or SQL. (The web
 * app's own headers: web-app-headers.web.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import type { App } from '../src/http/app-types.js';
import { openStore, type Store } from '../src/storage/database.js';
import { migrateToLatest } from '../src/storage/migrate.js';
import { createTestTeam, type Actor } from './factories.js';
import {
  expectError,
  expectStatus,
  show,
  startTestServer,
  tempDatabase,
  type TempDatabase,
  type TestServer,
} from './harness.js';

const PAGE_ORIGIN = 'https://board.example.com';

/** Asserts the headers every API answer carries, whatever its status. */
function expectApiHeaders(response: { status: number; headers: Headers; text?: string }, what: string): void {
  assert.equal(response.headers.get('x-content-type-options'), 'nosniff', `${what}: nosniff`);
  assert.equal(response.headers.get('cache-control'), 'no-store', `${what}: cache-control`);
}

describe('security headers and closed CORS (no CORS_ORIGINS)', () => {
  let server: TestServer;
  let owner: Actor;
  before(async () => {
    server = await startTestServer();
    owner = (await createTestTeam(server)).owner;
  });
  after(() => server?.close());

  test('every API answer, success or error, is nosniff and Cache-Control: no-store', async () => {
    const api = owner.api;
    const list = await api.post('/v1/lists', { name: 'Headers' });
    expectStatus(list, 201);
    expectApiHeaders(list, 'POST 201');
    const read = await api.get(`/v1/lists/${list.body.id}`);
    expectStatus(read, 200);
    expectApiHeaders(read, 'GET 200 with ETag');

    const errors = [
      [await server.client().get('/v1/me'), 401],
      [await api.patch(`/v1/lists/${list.body.id}`, { name: '' }), 400],
      [await api.get('/v1/lists/999999'), 404],
      [await api.get('/v1/no-such-thing'), 404],
      [
        await api.request('POST', '/v1/lists', {
          rawBody: '{"name":',
          headers: { 'content-type': 'application/json' },
        }),
        400,
      ],
      [await api.request('POST', '/v1/lists', { rawBody: 'name=x', headers: { 'content-type': 'text/plain' } }), 415],
    ] as const;
    for (const [res, status] of errors) {
      expectError(res, status);
      expectApiHeaders(res, show(res));
    }
  });

  test('the event stream, which bypasses the normal reply, is nosniff too', async () => {
    const abort = new AbortController();
    const res = await fetch(`${server.url}/v1/events`, { headers: { 'x-api-key': owner.key }, signal: abort.signal });
    try {
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      // Its own cache-control (no-transform, so proxies do not buffer it) wins over the default.
      assert.equal(res.headers.get('cache-control'), 'no-cache, no-transform');
    } finally {
      abort.abort();
    }
  });

  test('without CORS_ORIGINS no answer carries Access-Control headers and preflights are refused', async () => {
    const preflight = await server.client().request('OPTIONS', '/v1/tasks', {
      headers: {
        origin: PAGE_ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-api-key, content-type',
      },
    });
    expectError(preflight, 404);
    const simple = await owner.api.get('/v1/me', { origin: PAGE_ORIGIN });
    expectStatus(simple, 200);
    for (const res of [preflight, simple]) {
      const corsHeaders = [...res.headers.keys()].filter((name) => name.startsWith('access-control-'));
      assert.deepEqual(corsHeaders, [], show(res));
    }
  });
});

describe('CORS with CORS_ORIGINS', () => {
  let server: TestServer;
  let owner: Actor;
  before(async () => {
    server = await startTestServer({ CORS_ORIGINS: `${PAGE_ORIGIN}, http://localhost:5173` });
    owner = (await createTestTeam(server)).owner;
  });
  after(() => server?.close());

  const preflight = (origin: string) =>
    server.client().request('OPTIONS', '/v1/tasks/1', {
      headers: {
        origin,
        'access-control-request-method': 'PATCH',
        'access-control-request-headers': 'x-api-key, content-type, idempotency-key, if-match',
      },
    });

  test('a listed origin passes the preflight with the API headers allowed', async () => {
    const res = await preflight(PAGE_ORIGIN);
    assert.equal(res.status, 204, show(res));
    assert.equal(res.headers.get('access-control-allow-origin'), PAGE_ORIGIN);
    const allowed = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/\s*,\s*/);
    for (const header of ['x-api-key', 'content-type', 'idempotency-key', 'if-match']) {
      assert.ok(allowed.includes(header), `${header} not allowed: ${allowed.join(', ')}`);
    }
    const methods = (res.headers.get('access-control-allow-methods') ?? '').split(/\s*,\s*/);
    for (const method of ['GET', 'POST', 'PATCH', 'DELETE']) assert.ok(methods.includes(method), methods.join(', '));
    assert.equal(res.headers.get('access-control-allow-credentials'), null, 'no cookies cross-origin');
    assert.match(res.headers.get('vary') ?? '', /origin/i);
    // The second listed origin works too.
    assert.equal(
      (await preflight('http://localhost:5173')).headers.get('access-control-allow-origin'),
      'http://localhost:5173',
    );
  });

  test('a listed origin reads answers, errors included, and the ETag, next-page Link and rate-limit headers', async () => {
    const list = await owner.api.post('/v1/lists', { name: 'Cross-origin' }, { origin: PAGE_ORIGIN });
    expectStatus(list, 201);
    const read = await owner.api.get(`/v1/lists/${list.body.id}`, { origin: PAGE_ORIGIN });
    expectStatus(read, 200);
    const denied = await server.client('tl_wrong').get('/v1/me', { origin: PAGE_ORIGIN });
    expectError(denied, 401);
    for (const res of [list, read, denied]) {
      assert.equal(res.headers.get('access-control-allow-origin'), PAGE_ORIGIN, show(res));
      const exposed = (res.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/\s*,\s*/);
      for (const header of [
        'etag',
        'link',
        'ratelimit-limit',
        'ratelimit-remaining',
        'ratelimit-reset',
        'retry-after',
      ]) {
        assert.ok(exposed.includes(header), `${header} not exposed: ${exposed.join(', ')}`);
      }
    }
  });

  test('an unlisted origin gets no Access-Control headers, on a preflight or a simple request', async () => {
    for (const origin of [
      'https://evil.example',
      'https://board.example.com.evil.example',
      'null',
      'http://board.example.com',
    ]) {
      const pre = await preflight(origin);
      expectError(pre, 404);
      const simple = await owner.api.get('/v1/me', { origin });
      expectStatus(simple, 200);
      for (const res of [pre, simple]) {
        const corsHeaders = [...res.headers.keys()].filter((name) => name.startsWith('access-control-'));
        assert.deepEqual(corsHeaders, [], `${origin}: ${show(res)}`);
      }
    }
  });

  test('CORS_ORIGINS accepts only exact origins', () => {
    for (const bad of [
      '*',
      'https://*.example.com',
      'https://app.example.com/',
      'app.example.com',
      'HTTPS://APP.EXAMPLE.COM',
    ]) {
      assert.throws(() => loadConfig({ CORS_ORIGINS: bad }), /CORS_ORIGINS must list exact origins/, bad);
    }
    assert.deepEqual(loadConfig({ CORS_ORIGINS: '' }).corsOrigins, []);
  });
});

describe('error bodies never carry a stack trace or SQL', () => {
  let database: TempDatabase;
  let store: Store;
  let app: App;
  const INTERNAL = JSON.stringify({ error: 'Internal server error.' });
  before(async () => {
    database = await tempDatabase();
    store = openStore(database.url);
    await migrateToLatest(store);
    app = await buildApp({ store, config: loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'silent' }) });
    // Routes that fail the ways real code can: a message quoting SQL, a driver error, a non-Error.
    app.get('/test/throws-sql', async () => {
      throw new Error(
        `insert into "api_keys" ("secret_hash") values ('0123') violates unique constraint "api_keys_pkey"`,
      );
    });
    app.get('/test/driver-error', async () => {
      await sql`select secret_hash from no_such_table where id = ${1}`.execute(store.db);
      return {};
    });
    app.get('/test/syntax-error', async () => {
      await sql`selec * from tasks`.execute(store.db);
      return {};
    });
    app.get('/test/type-error', async () => {
      const missing = undefined as unknown as { title: string };
      return { title: missing.title };
    });
    await app.ready();
  });
  after(async () => {
    await app?.close();
    await store?.close();
    await database?.remove();
  });

  for (const path of ['/test/throws-sql', '/test/driver-error', '/test/syntax-error', '/test/type-error']) {
    test(`an internal failure (${path}) answers exactly 500 {"error": "Internal server error."}`, async () => {
      const res = await app.inject({ method: 'GET', url: path });
      assert.equal(res.statusCode, 500, res.body);
      assert.equal(res.body, INTERNAL);
      assert.match(res.headers['content-type'] as string, /^application\/json/);
    });
  }

  test('a server whose database connection is gone answers 500 or 503 with only its fixed message', async () => {
    const own = await tempDatabase();
    const server = await startTestServer({ DATABASE_URL: own.url, LOG_LEVEL: 'silent' });
    try {
      const { owner } = await createTestTeam(server);
      await server.store.close();
      for (const [method, path, body] of [
        ['GET', '/v1/me', undefined],
        ['GET', '/v1/tasks?query=x', undefined],
        ['POST', '/v1/tasks', { title: 'Lost' }],
      ] as const) {
        const res = await fetch(`${server.url}${path}`, {
          method,
          headers: { 'x-api-key': owner.key, 'content-type': 'application/json' },
          body: body && JSON.stringify(body),
        });
        const text = await res.text();
        const expected =
          res.status === 503 ? JSON.stringify({ error: 'The database is unavailable. Try again shortly.' }) : INTERNAL;
        assert.ok([500, 503].includes(res.status), `${method} ${path}: ${res.status} ${text}`);
        assert.equal(text, expected, `${method} ${path}`);
      }
    } finally {
      await server.app.close();
      await own.remove();
    }
  });
});
