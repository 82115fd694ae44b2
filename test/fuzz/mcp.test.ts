/**
 * Fuzzing /mcp (issue 33): malformed JSON-RPC, unknown methods and tools, hostile arguments to
 * every tool, as raw HTTP. For every request:
 * - the answer is never a 5xx, and never a JSON-RPC internal error (-32603: a bug, server.ts);
 * - a body Fastify refuses is exactly {"error": "<message>"}; any other answer is JSON-RPC.
 * MCP_FUZZ_RUNS cases per property (default 60); FUZZ_SEED replays a run. On PostgreSQL with
 * TASKLANE_TEST_STORE=postgres and TEST_DATABASE_URL.
 */
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { createTestTeam } from '../factories.js';
import { expectStatus, startTestServer, type TestServer } from '../harness.js';

const RUNS = Number(process.env.MCP_FUZZ_RUNS ?? 60);
const SEED = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : randomInt(2 ** 31);
const TOOLS = [
  'find_tasks',
  'my_tasks',
  'get_task',
  'create_task',
  'update_task',
  'add_comment',
  'list_lists',
  'list_statuses',
  'list_members',
  'list_labels',
];
const METHODS = [
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'resources/list',
  'prompts/get',
  'notifications/initialized',
];

let server: TestServer;
let key: string;
let taskId: number;
before(async () => {
  server = await startTestServer();
  const team = await createTestTeam(server);
  key = team.owner.key;
  taskId = expectStatus(await team.owner.api.post('/v1/tasks', { title: 'Fuzzed' }), 201).id;
});
after(() => server.close());

/** Sends `body` (text) to /mcp as an MCP client would; checks the answer's rules; returns it. */
async function send(body: string, headers: Record<string, string> = {}): Promise<{ status: number; json: any }> {
  const response = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${key}`,
      ...headers,
    },
    body,
  });
  const text = await response.text();
  const shown = `${response.status} ${text.slice(0, 500)}\nfor ${body.slice(0, 500)}`;
  assert.ok(response.status < 500, `a server error: ${shown}`);
  let json: any;
  if (text !== '') {
    try {
      json = JSON.parse(text);
    } catch {
      assert.fail(`not JSON: ${shown}`);
    }
  }
  if (json && typeof json.error === 'string') {
    assert.deepEqual(Object.keys(json), ['error'], `an error body beside {"error"}: ${shown}`);
  } else if (text !== '') {
    for (const message of Array.isArray(json) ? json : [json]) {
      assert.equal(message?.jsonrpc, '2.0', `neither {"error"} nor JSON-RPC: ${shown}`);
      assert.notEqual(message.error?.code, -32603, `an internal error (a bug): ${shown}`);
    }
  } else {
    // Only notifications and responses, which get no answer (202).
    assert.equal(response.status, 202, shown);
  }
  return { status: response.status, json };
}

/** Values a client should never send: wrong types, huge and odd strings and numbers, deep trees. */
const hostile: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\ud800',
    'x'.repeat(100_001),
    '../../etc/passwd',
    "'; drop table tasks; --",
    -1,
    0,
    2 ** 31,
    2 ** 53,
    1.5,
    -0,
    1e308,
    null,
    true,
    [],
    {},
    '2030-02-30',
    'me',
    '00000000-0000-0000-0000-000000000000',
  ),
);

/** Arguments for a tool: its own names mixed with others, each given a hostile value or a plausible one. */
const argumentsArb = fc.dictionary(
  fc.oneof(
    fc.constantFrom(
      'taskId',
      'title',
      'description',
      'body',
      'query',
      'listId',
      'statusId',
      'assigneeId',
      'assigneeIds',
      'listIds',
      'labelIds',
      'dueFrom',
      'dueTo',
      'dueDate',
      'completed',
      'limit',
      'priority',
      'expectedVersion',
      'idempotencyKey',
      'parentId',
      'constructor',
    ),
    fc.string({ maxLength: 12 }),
  ),
  fc.oneof(hostile, fc.constant('TASK_ID')),
  { maxKeys: 6 },
);

const idArb = fc.oneof(fc.integer(), fc.string({ maxLength: 10 }), fc.constant(null), fc.constant({}));

test('malformed bodies and JSON-RPC: never a 5xx', async () => {
  const body = fc.oneof(
    fc.string({ maxLength: 200 }),
    fc.json({ maxDepth: 4 }),
    fc.constantFrom('', '[]', '{}', 'null', '[{}]', '{"jsonrpc":"1.0"}', '{"jsonrpc":"2.0"}', '{"__proto__":{"x":1}}'),
    fc
      .record(
        {
          jsonrpc: fc.oneof(fc.constant('2.0'), fc.string({ maxLength: 4 })),
          id: idArb,
          method: fc.oneof(fc.constantFrom(...METHODS), fc.string({ maxLength: 30 })),
          params: fc.oneof(hostile, fc.dictionary(fc.string({ maxLength: 8 }), hostile, { maxKeys: 4 })),
        },
        { requiredKeys: [] },
      )
      .map((message) => JSON.stringify(message)),
  );
  await fc.assert(
    fc.asyncProperty(body, async (text) => {
      await send(text);
    }),
    { numRuns: RUNS, seed: SEED },
  );
});

test('unknown and known tools with hostile arguments: never a 5xx nor an internal error', async () => {
  const call = fc.record({
    id: fc.integer({ min: 1, max: 1000 }),
    name: fc.oneof(fc.constantFrom(...TOOLS), fc.string({ maxLength: 20 })),
    args: fc.oneof(argumentsArb, hostile),
    batch: fc.boolean(),
  });
  await fc.assert(
    fc.asyncProperty(call, async ({ id, name, args, batch }) => {
      const resolved = JSON.parse(JSON.stringify(args ?? null).replaceAll('"TASK_ID"', String(taskId)));
      const message = { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: resolved } };
      await send(JSON.stringify(batch ? [message, { ...message, id: id + 1 }] : message));
    }),
    { numRuns: RUNS * 3, seed: SEED },
  );
});

test('odd headers: protocol versions, content types, keys', async () => {
  const listTools = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  const headers = fc.record(
    {
      'mcp-protocol-version': fc.oneof(
        fc.constantFrom('2025-06-18', '2025-03-26', '1999-01-01'),
        fc.string({ maxLength: 12 }),
      ),
      'mcp-session-id': fc.string({ maxLength: 20 }),
      accept: fc.constantFrom('application/json', 'text/event-stream', '*/*', 'text/html'),
      'content-type': fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain'),
      authorization: fc.constantFrom('Bearer', 'Bearer tl_x', 'Basic abc', `bearer ${'x'.repeat(300)}`),
    },
    { requiredKeys: [] },
  );
  await fc.assert(
    fc.asyncProperty(headers, async (sent) => {
      const usable = Object.fromEntries(Object.entries(sent).filter(([, v]) => /^[\x20-\x7e]*$/.test(v)));
      await send(listTools, usable);
    }),
    { numRuns: RUNS, seed: SEED },
  );
});
