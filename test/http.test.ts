/**
 * Framework-level behaviour: every failure the HTTP layer itself produces (bad JSON, wrong content
 * type, unknown route, oversized body, rate limits) is exactly {"error": "<message>"} with a
 * sensible status; plus the operational endpoints /healthz, /openapi.json and /docs.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createTestTeam } from './factories.js';
import {
  expectError,
  expectStatus,
  show,
  startTestServer,
  type Client,
  type Response,
  type TestServer,
} from './harness.js';

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/** Sends a raw body with the given content type. */
function sendRaw(
  client: Client,
  method: string,
  path: string,
  rawBody: string,
  contentType: string,
): Promise<Response> {
  return client.request(method, path, { rawBody, headers: { 'content-type': contentType } });
}

/** A key that looks like a real one but belongs to nobody. */
const unknownKey = () => `tl_${randomBytes(6).toString('base64url')}_${randomBytes(24).toString('base64url')}`;

/** Asserts a 429 {"error"} carrying a Retry-After of a whole number of seconds (or an HTTP date). */
function expectRateLimited(response: Response): void {
  expectError(response, 429);
  const retryAfter = response.headers.get('retry-after');
  assert.ok(retryAfter, `429 without Retry-After: ${show(response)}`);
  assert.ok(
    (/^\d+$/.test(retryAfter) && Number(retryAfter) <= 60) || !Number.isNaN(Date.parse(retryAfter)),
    `Retry-After is neither seconds nor a date: ${retryAfter}`,
  );
}

/** Starts a server with these settings for one test, and closes it afterwards. */
async function withServer(env: Record<string, string>, run: (server: TestServer) => Promise<void>): Promise<void> {
  const server = await startTestServer(env);
  try {
    await run(server);
  } finally {
    await server.close();
  }
}

/** The /v1 paths and methods the spec names, in OpenAPI path syntax. */
const SPEC_OPERATIONS: Record<string, string[]> = {
  '/v1/me': ['get'],
  '/v1/lists': ['get', 'post'],
  '/v1/lists/{listId}': ['get', 'patch'],
  '/v1/lists/{listId}/archive': ['post'],
  '/v1/lists/{listId}/unarchive': ['post'],
  '/v1/task-statuses': ['get'],
  '/v1/users': ['get'],
  '/v1/tasks': ['get', 'post'],
  '/v1/tasks/{taskId}': ['get', 'patch', 'delete'],
};

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

describe('HTTP framework failures', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  test('malformed JSON is a 400 {"error"} on every route that takes a body, and creates nothing', async () => {
    const { owner } = await createTestTeam(server);
    const list = expectStatus(await owner.api.post('/v1/lists', { name: 'Keep' }), 201);
    const task = expectStatus(await owner.api.post('/v1/tasks', { title: 'Keep' }), 201);
    const targets: [string, string][] = [
      ['POST', '/v1/lists'],
      ['PATCH', `/v1/lists/${list.id}`],
      ['POST', `/v1/lists/${list.id}/members`],
      ['POST', '/v1/tasks'],
      ['PATCH', `/v1/tasks/${task.id}`],
    ];
    for (const [method, path] of targets) {
      for (const raw of ['{"name":', '{name: "x"}', "{'title':'x'}", '{"title":"x"}}', 'nul']) {
        const res = await sendRaw(owner.api, method, path, raw, 'application/json');
        expectError(res, 400);
        assert.doesNotMatch(res.body.error, /SyntaxError|at position|Unexpected token/, 'leaks parser internals');
      }
    }
    expectError(await sendRaw(owner.api, 'POST', '/v1/lists', '{"name":', 'application/json'), 400, 'Invalid input.');
    assert.deepEqual(expectStatus(await owner.api.get('/v1/lists'), 200), [list]);
    assert.equal(expectStatus(await owner.api.get('/v1/tasks'), 200).length, 1);
  });

  test('a body that is not JSON is a 415 {"error"}; JSON with a charset is accepted', async () => {
    const { owner } = await createTestTeam(server);
    expectError(await sendRaw(owner.api, 'POST', '/v1/lists', '{"name":"Plain"}', 'text/plain'), 415);
    expectError(await sendRaw(owner.api, 'POST', '/v1/lists', 'name=Form', 'application/x-www-form-urlencoded'), 415);
    expectError(await sendRaw(owner.api, 'POST', '/v1/tasks', '<task/>', 'application/xml'), 415);
    assert.deepEqual(expectStatus(await owner.api.get('/v1/lists'), 200), []);
    const list = expectStatus(
      await sendRaw(owner.api, 'POST', '/v1/lists', '{"name":"Charset"}', 'application/json; charset=utf-8'),
      201,
    );
    assert.equal(list.name, 'Charset');
  });

  test('an unknown route or method is a 404 {"error"}, with or without a key', async () => {
    const { owner } = await createTestTeam(server);
    for (const client of [owner.api, server.client()]) {
      expectError(await client.get('/nope'), 404);
      expectError(await client.get('/v2/lists'), 404);
      expectError(await client.request('PUT', '/healthz'), 404);
    }
    expectError(await owner.api.get('/v1/nope'), 404);
    expectError(await owner.api.delete('/v1/lists'), 404);
    expectError(await owner.api.request('PUT', '/v1/tasks'), 404);
  });

  test('GET /healthz answers 200 {"status":"ok"} without a key', async () => {
    const res = await server.client().get('/healthz');
    assert.deepEqual(expectStatus(res, 200), { status: 'ok' });
    assert.ok(res.headers.get('content-type')?.startsWith('application/json'));
  });

  test('GET /openapi.json is an OpenAPI 3.1 document, version 1.0.0, listing every /v1 operation of the spec', async () => {
    const doc = expectStatus(await server.client().get('/openapi.json'), 200);
    assert.match(doc.openapi, /^3\.1\./);
    assert.equal(doc.info?.version, '1.0.0');
    for (const [path, methods] of Object.entries(SPEC_OPERATIONS)) {
      assert.ok(
        doc.paths?.[path],
        `${path} is missing from the document (paths: ${Object.keys(doc.paths ?? {}).join(', ')})`,
      );
      for (const method of methods) assert.ok(doc.paths[path][method], `${method.toUpperCase()} ${path} is missing`);
    }
  });

  test('GET /docs answers 200 HTML (after redirects)', async () => {
    const res = await server.client().get('/docs');
    assert.equal(res.status, 200, show(res));
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(res.text, /<html/i);
  });
});

describe('request body limit', () => {
  test('a body larger than BODY_LIMIT_BYTES is a 413 {"error"}; a smaller one is accepted', async () => {
    await withServer({ BODY_LIMIT_BYTES: '1000' }, async (server) => {
      const { owner } = await createTestTeam(server);
      const big = JSON.stringify({ title: 'Big', description: 'x'.repeat(2000) });
      assert.ok(Buffer.byteLength(big) >= 2000);
      expectError(await sendRaw(owner.api, 'POST', '/v1/tasks', big, 'application/json'), 413);
      expectError(
        await sendRaw(owner.api, 'POST', '/v1/lists', JSON.stringify({ name: 'y'.repeat(2000) }), 'application/json'),
        413,
      );
      assert.deepEqual(expectStatus(await owner.api.get('/v1/tasks'), 200), []);

      const small = JSON.stringify({ title: 'Small', description: 'x'.repeat(800) });
      assert.ok(Buffer.byteLength(small) < 1000);
      expectStatus(await sendRaw(owner.api, 'POST', '/v1/tasks', small, 'application/json'), 201);
    });
  });
});

describe('rate limiting', () => {
  test('the request after RATE_LIMIT_PER_MINUTE with one key is a 429 {"error"} with Retry-After; another key is unaffected', async () => {
    await withServer({ RATE_LIMIT_PER_MINUTE: '5' }, async (server) => {
      const team = await createTestTeam(server);
      const mate = await team.member();
      for (let i = 0; i < 5; i++) expectStatus(await team.owner.api.get('/v1/me'), 200);
      expectRateLimited(await team.owner.api.get('/v1/me'));
      expectRateLimited(await team.owner.api.get('/v1/lists'));
      expectStatus(await mate.api.get('/v1/me'), 200);
    });
  });

  test('repeated failed authentication from one address is limited with 429', async () => {
    await withServer({ RATE_LIMIT_PER_MINUTE: '5' }, async (server) => {
      const client = () => server.client(unknownKey()); // a new key each time: only the address is shared
      const statuses: number[] = [];
      let limited: Response | undefined;
      for (let i = 0; i < 10 && !limited; i++) {
        const res = await client().get('/v1/me');
        statuses.push(res.status);
        if (res.status === 429) limited = res;
        else expectError(res, 401);
      }
      assert.ok(limited, `never limited: ${statuses.join(', ')}`);
      assert.ok(statuses.length <= 6, `limited only after ${statuses.length - 1} failures: ${statuses.join(', ')}`);
      expectRateLimited(limited);
      expectRateLimited(await client().get('/v1/lists'));
    });
  });

  test('requests without any key are limited per address', async () => {
    await withServer({ RATE_LIMIT_PER_MINUTE: '5' }, async (server) => {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await server.client().get('/v1/me')).status);
      assert.deepEqual(statuses.slice(0, 5), [401, 401, 401, 401, 401]);
      expectRateLimited(await server.client().get('/v1/me'));
    });
  });

  test('a valid key keeps its own budget while its address is refused for failed authentication', async () => {
    // CONTRACT: limiting is "per API key (and per client address for requests without a valid key)".
    await withServer({ RATE_LIMIT_PER_MINUTE: '5' }, async (server) => {
      const { owner } = await createTestTeam(server);
      let limited = false;
      for (let i = 0; i < 10 && !limited; i++)
        limited = (await server.client(unknownKey()).get('/v1/me')).status === 429;
      assert.ok(limited);
      expectStatus(await owner.api.get('/v1/me'), 200);
    });
  });

  test('RATE_LIMIT_PER_MINUTE=0 turns all limiting off, failed authentication included', async () => {
    await withServer({ RATE_LIMIT_PER_MINUTE: '0' }, async (server) => {
      const { owner } = await createTestTeam(server);
      for (let i = 0; i < 30; i++) expectStatus(await owner.api.get('/v1/me'), 200);
      for (let i = 0; i < 30; i++) expectError(await server.client(unknownKey()).get('/v1/me'), 401);
      for (let i = 0; i < 10; i++) expectError(await server.client().get('/v1/me'), 401);
      expectStatus(await owner.api.get('/v1/me'), 200);
    });
  });
});
