/**
 * Resource limits: bodies over BODY_LIMIT_BYTES (declared or chunked) get 413 {"error"}; titles,
 * list names and descriptions have bounded lengths; an id array or a repeated query parameter
 * holds at most 1,000 ids; and slow or idle clients are disconnected, while event streams live on.
 */
import assert from 'node:assert/strict';
import type net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../src/config.js';
import { createTestTeam, type Actor } from './factories.js';
import { configProblems, expectError, expectStatus, startTestServer, type TestServer } from './harness.js';
import { parseAnswer, rawExchange } from './raw-exchange.js';

/** Writes `text` one byte at a time, `everyMs` apart, until it is sent or the socket closes. */
function dribble(socket: net.Socket, text: string, everyMs: number): void {
  let at = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || at >= text.length) return clearInterval(timer);
    socket.write(text[at++]!);
  }, everyMs);
}

const requestHead = (method: string, path: string, key: string, extra: string) =>
  `${method} ${path} HTTP/1.1\r\nHost: tasklane.test\r\nx-api-key: ${key}\r\ncontent-type: application/json\r\n${extra}\r\n`;

/** A JSON body `{"name": "<name>"}` padded with whitespace to exactly `bytes` bytes. */
function listBodyOfSize(bytes: number, name = 'Padded'): string {
  const json = JSON.stringify({ name });
  return `${json.slice(0, -1)}${' '.repeat(bytes - json.length)}}`;
}

async function listNames(actor: Actor): Promise<string[]> {
  return expectStatus(await actor.api.get('/v1/lists'), 200).map((list: { name: string }) => list.name);
}

describe('request body limit (BODY_LIMIT_BYTES=4096)', () => {
  const LIMIT = 4096;
  let server: TestServer;
  let owner: Actor;
  before(async () => {
    server = await startTestServer({ BODY_LIMIT_BYTES: String(LIMIT) });
    owner = (await createTestTeam(server)).owner;
  });
  after(() => server?.close());

  test('a body of exactly BODY_LIMIT_BYTES is accepted, with Content-Length and chunked', async () => {
    const body = listBodyOfSize(LIMIT, 'At the limit');
    assert.equal(Buffer.byteLength(body), LIMIT);
    expectStatus(
      await owner.api.request('POST', '/v1/lists', { rawBody: body, headers: { 'content-type': 'application/json' } }),
      201,
    );

    const chunked = await rawExchange(
      server.url,
      (socket) => {
        socket.write(
          requestHead('POST', '/v1/lists', owner.key, 'transfer-encoding: chunked\r\nconnection: close\r\n'),
        );
        const chunkedBody = listBodyOfSize(LIMIT, 'Chunked at the limit');
        for (let at = 0; at < chunkedBody.length; at += 1000) {
          const piece = chunkedBody.slice(at, at + 1000);
          socket.write(`${Buffer.byteLength(piece).toString(16)}\r\n${piece}\r\n`);
        }
        socket.write('0\r\n\r\n');
      },
      5_000,
    );
    assert.equal(parseAnswer(chunked.text).status, 201, chunked.text);
    assert.deepEqual(await listNames(owner), ['At the limit', 'Chunked at the limit']);
  });

  test('a body one byte over BODY_LIMIT_BYTES with Content-Length answers 413 {"error"} and creates nothing', async () => {
    const before = await listNames(owner);
    const res = await owner.api.request('POST', '/v1/lists', {
      rawBody: listBodyOfSize(LIMIT + 1, 'Too big'),
      headers: { 'content-type': 'application/json' },
    });
    expectError(res, 413, 'The request body is too large.');
    assert.deepEqual(await listNames(owner), before);
  });

  test('a chunked body (no Content-Length) that grows past BODY_LIMIT_BYTES answers 413 {"error"} and is cut off', async () => {
    const before = await listNames(owner);
    // 300 KiB in 1 KiB chunks, one every 10 ms (3 s in all): the answer must come long before the body ends.
    const result = await rawExchange(
      server.url,
      (socket) => {
        socket.write(requestHead('POST', '/v1/lists', owner.key, 'transfer-encoding: chunked\r\n'));
        socket.write(`1\r\n{\r\n`);
        let sent = 0;
        const timer = setInterval(() => {
          if (socket.destroyed || sent++ >= 300) return clearInterval(timer);
          socket.write(`400\r\n${' '.repeat(0x400)}\r\n`);
        }, 10);
      },
      5_000,
    );
    const answer = parseAnswer(result.text);
    assert.equal(answer.status, 413, result.text);
    assert.deepEqual(answer.body, { error: 'The request body is too large.' });
    assert.notEqual(result.closedAfterMs, null, 'the connection is closed after the 413');
    assert.ok(result.closedAfterMs! < 1_500, `closed only after ${result.closedAfterMs} ms`);
    assert.deepEqual(await listNames(owner), before);
  });

  test('a declared Content-Length over the limit is refused before the body is read', async () => {
    const result = await rawExchange(
      server.url,
      (socket) => socket.write(requestHead('POST', '/v1/lists', owner.key, `content-length: ${100 * 1024 * 1024}\r\n`)),
      5_000,
    );
    assert.deepEqual(parseAnswer(result.text), { status: 413, body: { error: 'The request body is too large.' } });
  });
});

describe('field length and id count limits', () => {
  let server: TestServer;
  let owner: Actor;
  before(async () => {
    server = await startTestServer();
    owner = (await createTestTeam(server)).owner;
  });
  after(() => server?.close());

  async function newTask(fields: Record<string, unknown> = {}) {
    return expectStatus(await owner.api.post('/v1/tasks', { title: 'Bounded', ...fields }), 201);
  }

  test('a title holds 500 characters, counted as characters not UTF-16 units; 501 is refused, naming the limit', async () => {
    const task = await newTask({ title: 'x'.repeat(500) });
    const emoji = '\u{1F680}'.repeat(500); // 500 characters, 1,000 UTF-16 units, 2,000 bytes
    const patched = expectStatus(await owner.api.patch(`/v1/tasks/${task.id}`, { title: emoji }), 200);
    assert.equal(patched.title, emoji);
    assert.equal(expectStatus(await owner.api.get(`/v1/tasks/${task.id}`), 200).title, emoji);

    expectError(
      await owner.api.patch(`/v1/tasks/${task.id}`, { title: 'y'.repeat(501) }),
      400,
      'title must be at most 500 characters long.',
    );
    // POST /v1/tasks: the spec fixes one message for every 400 of the route.
    expectError(await owner.api.post('/v1/tasks', { title: 'y'.repeat(501) }), 400, 'Invalid input.');
    assert.equal(expectStatus(await owner.api.get(`/v1/tasks/${task.id}`), 200).title, emoji);
  });

  test('a description holds 100,000 characters; 100,001 is refused, naming the limit', async () => {
    const task = await newTask({ description: 'd'.repeat(100_000) });
    assert.equal(expectStatus(await owner.api.get(`/v1/tasks/${task.id}`), 200).description.length, 100_000);
    expectError(
      await owner.api.patch(`/v1/tasks/${task.id}`, { description: 'e'.repeat(100_001) }),
      400,
      'description must be at most 100,000 characters long.',
    );
    expectError(
      await owner.api.post('/v1/tasks', { title: 'x', description: 'e'.repeat(100_001) }),
      400,
      'Invalid input.',
    );
    assert.equal(expectStatus(await owner.api.get(`/v1/tasks/${task.id}`), 200).description, 'd'.repeat(100_000));
  });

  test('a list name holds 200 characters; 201 is refused, naming the limit', async () => {
    const list = expectStatus(await owner.api.post('/v1/lists', { name: 'n'.repeat(200) }), 201);
    expectError(
      await owner.api.patch(`/v1/lists/${list.id}`, { name: 'm'.repeat(201) }),
      400,
      'name must be at most 200 characters long.',
    );
    expectError(await owner.api.post('/v1/lists', { name: 'm'.repeat(201) }), 400, 'Invalid input.');
    assert.equal(expectStatus(await owner.api.get(`/v1/lists/${list.id}`), 200).name, 'n'.repeat(200));
  });

  test('assigneeIds and taskListIds take at most 1,000 ids; 1,001 is refused, naming the limit', async () => {
    const list = expectStatus(await owner.api.post('/v1/lists', { name: 'Many' }), 201);
    const task = await newTask();
    // 1,000 entries pass the limit (repeats of one id count once once accepted).
    const accepted = expectStatus(
      await owner.api.patch(`/v1/tasks/${task.id}`, {
        assigneeIds: Array(1_000).fill(owner.userId),
        taskListIds: Array(1_000).fill(list.id),
      }),
      200,
    );
    assert.equal(accepted.id, task.id);
    const detail = expectStatus(await owner.api.get(`/v1/tasks/${task.id}`), 200);
    assert.deepEqual(
      detail.assignees.map((a: { id: string }) => a.id),
      [owner.userId],
    );

    expectError(
      await owner.api.patch(`/v1/tasks/${task.id}`, { assigneeIds: Array(1_001).fill(owner.userId) }),
      400,
      'assigneeIds must have at most 1,000 items.',
    );
    expectError(
      await owner.api.patch(`/v1/tasks/${task.id}`, { taskListIds: Array(1_001).fill(list.id) }),
      400,
      'taskListIds must have at most 1,000 items.',
    );
    expectError(
      await owner.api.post('/v1/tasks', { title: 'x', taskListIds: Array(1_001).fill(list.id) }),
      400,
      'Invalid input.',
    );
    expectError(
      await owner.api.post('/v1/tasks', { title: 'x', assigneeIds: Array(1_001).fill(owner.userId) }),
      400,
      'Invalid input.',
    );
  });

  test('a repeated query parameter takes at most 1,000 values; 1,001 is refused, naming the limit', async () => {
    const list = expectStatus(await owner.api.post('/v1/lists', { name: 'Filtered' }), 201);
    await newTask({ title: 'In the list', taskListIds: [list.id] });
    const repeat = (name: string, value: string | number, times: number) =>
      Array.from({ length: times }, () => `${name}=${value}`).join('&');

    const found = expectStatus(await owner.api.get(`/v1/tasks?${repeat('taskListId', list.id, 1_000)}`), 200);
    assert.deepEqual(
      found.map((t: { title: string }) => t.title),
      ['In the list'],
    );
    expectError(
      await owner.api.get(`/v1/tasks?${repeat('taskListId', list.id, 1_001)}`),
      400,
      'taskListId may be given at most 1,000 times.',
    );
    expectError(
      await owner.api.get(`/v1/tasks?${repeat('taskStatusId', 1, 1_001)}`),
      400,
      'taskStatusId may be given at most 1,000 times.',
    );
  });

  test('text a store cannot keep as sent (NUL, an unpaired surrogate) is refused with 400 on every store', async () => {
    const list = expectStatus(await owner.api.post('/v1/lists', { name: 'Plain' }), 201);
    const task = await newTask({ title: 'Plain' });
    expectError(await owner.api.post('/v1/lists', { name: 'a\u0000b' }), 400, 'Invalid input.');
    expectError(await owner.api.post('/v1/tasks', { title: 'half \ud83d' }), 400, 'Invalid input.');
    expectError(
      await owner.api.patch(`/v1/lists/${list.id}`, { name: 'a\u0000b' }),
      400,
      'name must not contain NUL characters or unpaired UTF-16 surrogates.',
    );
    expectError(
      await owner.api.patch(`/v1/tasks/${task.id}`, { description: 'tail \udc00 first' }),
      400,
      'description must not contain NUL characters or unpaired UTF-16 surrogates.',
    );
    expectError(
      await owner.api.get('/v1/tasks?query=a%00b'),
      400,
      'query must not contain NUL characters or unpaired UTF-16 surrogates.',
    );
    expectError(await owner.api.delete(`/v1/lists/${list.id}/members/%00`), 400);
    assert.equal(expectStatus(await owner.api.get(`/v1/lists/${list.id}`), 200).name, 'Plain');
    assert.equal(expectStatus(await owner.api.get(`/v1/tasks/${task.id}`), 200).description, null);
  });

  test('a request line and headers over 16 KiB answer 431 {"error"}', async () => {
    // 400 UUIDs: under the id limit, over the size of a request head.
    const query = Array.from({ length: 400 }, () => `assigneeId=${owner.userId}`).join('&');
    const res = await owner.api.get(`/v1/tasks?${query}`);
    expectError(res, 431, /too large \(at most 16 KiB/);
  });
});

describe('timeouts: slow and idle clients are disconnected, event streams are not', () => {
  // Short bounds so the test is quick; the defaults are 10 s, 30 s, 60 s and 72 s.
  const HEADERS_MS = 400;
  const REQUEST_MS = 800;
  const KEEP_ALIVE_MS = 300;
  const CONNECTION_MS = 1_500;
  /** Node checks for expired headers and requests every quarter of the shorter bound. */
  const CHECK_SLACK_MS = 400;
  /** Node keeps an idle keep-alive socket 1 s past keepAliveTimeout (its announced timeout=). */
  const NODE_KEEP_ALIVE_BUFFER_MS = 1_000;
  /** Room for a busy machine; each bound is still far below the defaults (tens of seconds) it proves are replaced. */
  const LOAD_SLACK_MS = 700;
  let server: TestServer;
  let owner: Actor;
  before(async () => {
    server = await startTestServer({
      HEADERS_TIMEOUT_MS: String(HEADERS_MS),
      REQUEST_TIMEOUT_MS: String(REQUEST_MS),
      KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_MS),
      CONNECTION_TIMEOUT_MS: String(CONNECTION_MS),
      EVENTS_HEARTBEAT_SECONDS: '1',
    });
    owner = (await createTestTeam(server)).owner;
  });
  after(() => server?.close());

  test('headers sent a byte at a time too slowly get 408 {"error"} and the connection closed within HEADERS_TIMEOUT_MS', async () => {
    const head = `GET /v1/me HTTP/1.1\r\nHost: tasklane.test\r\nx-api-key: ${owner.key}\r\n\r\n`;
    const result = await rawExchange(server.url, (socket) => dribble(socket, head, 50), 5_000);
    assert.notEqual(result.closedAfterMs, null, `still open after 5 s: ${result.text}`);
    assert.ok(
      result.closedAfterMs! <= HEADERS_MS + CHECK_SLACK_MS + LOAD_SLACK_MS,
      `closed after ${result.closedAfterMs} ms`,
    );
    assert.ok(result.closedAfterMs! >= HEADERS_MS - 50, `closed too early (${result.closedAfterMs} ms)`);
    assert.deepEqual(parseAnswer(result.text), {
      status: 408,
      body: { error: 'The request took too long to arrive; send the headers and body without pausing.' },
    });
  });

  test('a connection that sends nothing is closed within HEADERS_TIMEOUT_MS', async () => {
    const result = await rawExchange(server.url, () => {}, 5_000);
    assert.notEqual(result.closedAfterMs, null, 'still open after 5 s');
    assert.ok(
      result.closedAfterMs! <= HEADERS_MS + CHECK_SLACK_MS + LOAD_SLACK_MS,
      `closed after ${result.closedAfterMs} ms`,
    );
  });

  test('a body that stalls halfway gets 408 {"error"} within REQUEST_TIMEOUT_MS and creates nothing', async () => {
    const before = await listNames(owner);
    const result = await rawExchange(
      server.url,
      (socket) =>
        socket.write(requestHead('POST', '/v1/lists', owner.key, 'content-length: 40\r\n') + '{"name": "Half'),
      5_000,
    );
    assert.notEqual(result.closedAfterMs, null, `still open after 5 s: ${result.text}`);
    assert.ok(
      result.closedAfterMs! <= REQUEST_MS + CHECK_SLACK_MS + LOAD_SLACK_MS,
      `closed after ${result.closedAfterMs} ms`,
    );
    assert.equal(parseAnswer(result.text).status, 408, result.text);
    assert.deepEqual(await listNames(owner), before);
  });

  test('a chunked body that keeps trickling is cut at REQUEST_TIMEOUT_MS even though bytes keep coming', async () => {
    const result = await rawExchange(
      server.url,
      (socket) => {
        socket.write(requestHead('POST', '/v1/lists', owner.key, 'transfer-encoding: chunked\r\n'));
        const timer = setInterval(() => (socket.destroyed ? clearInterval(timer) : socket.write('1\r\n \r\n')), 50);
      },
      5_000,
    );
    assert.notEqual(result.closedAfterMs, null, 'still open after 5 s');
    assert.ok(
      result.closedAfterMs! <= REQUEST_MS + CHECK_SLACK_MS + LOAD_SLACK_MS,
      `closed after ${result.closedAfterMs} ms`,
    );
  });

  test('an idle keep-alive connection is closed after KEEP_ALIVE_TIMEOUT_MS', async () => {
    const result = await rawExchange(
      server.url,
      (socket) => socket.write('GET /healthz HTTP/1.1\r\nHost: tasklane.test\r\n\r\n'),
      5_000,
    );
    assert.equal(parseAnswer(result.text).status, 200, result.text);
    assert.match(result.text, /connection: keep-alive/i);
    assert.notEqual(result.closedAfterMs, null, 'still open after 5 s');
    assert.ok(
      result.closedAfterMs! <= KEEP_ALIVE_MS + NODE_KEEP_ALIVE_BUFFER_MS + LOAD_SLACK_MS,
      `closed after ${result.closedAfterMs} ms`,
    );
  });

  test('an event stream outlives every timeout and still delivers events', async () => {
    const outlive = CONNECTION_MS + REQUEST_MS; // past each bound above, the longest included
    let list: { id: number } | undefined;
    const result = await rawExchange(
      server.url,
      (socket) => {
        socket.write(`GET /v1/events HTTP/1.1\r\nHost: tasklane.test\r\nx-api-key: ${owner.key}\r\n\r\n`);
        setTimeout(async () => {
          list = expectStatus(await owner.api.post('/v1/lists', { name: 'Still streaming' }), 201);
        }, outlive);
      },
      outlive + 1_000,
    );
    assert.equal(result.closedAfterMs, null, `the stream was closed after ${result.closedAfterMs} ms: ${result.text}`);
    assert.match(result.text, /^HTTP\/1\.1 200/);
    assert.ok(list, 'the list was created');
    assert.match(result.text, new RegExp(`event: taskList\\.created\\ndata: \\{"listId":${list.id}\\}`));
  });

  test('timeouts that would contradict each other or cut event streams are refused at start', () => {
    assert.deepEqual(configProblems({ CONNECTION_TIMEOUT_MS: '20000', EVENTS_HEARTBEAT_SECONDS: '20' }), [
      'CONNECTION_TIMEOUT_MS must be longer than EVENTS_HEARTBEAT_SECONDS',
    ]);
    assert.deepEqual(configProblems({ HEADERS_TIMEOUT_MS: '5000', REQUEST_TIMEOUT_MS: '4000' }), [
      'HEADERS_TIMEOUT_MS must not be longer than REQUEST_TIMEOUT_MS',
    ]);
    const defaults = loadConfig({});
    assert.deepEqual(
      [defaults.headersTimeoutMs, defaults.requestTimeoutMs, defaults.connectionTimeoutMs, defaults.keepAliveTimeoutMs],
      [10_000, 30_000, 60_000, 72_000],
    );
  });
});
