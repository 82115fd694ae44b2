/**
 * Idempotency-Key across processes: retries of one request spread over two `tasklane serve`
 * processes on one database, all in flight at once, create exactly one task and all get the same
 * answer; the same key with another body is refused by the other process too. On both stores: in
 * PostgreSQL the retries meet on the reservation's unique index, in SQLite on the file's write
 * lock (within one process SQLite runs requests one after another, so only separate processes
 * truly overlap there).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { MESSAGES } from '../src/http/idempotency.js';
import { Client, expectError, expectStatus, show, tempDatabase, type Response, type TempDatabase } from './harness.js';
import { killAll, printedKey, serve, TIMEOUT, type Serving } from './processes.js';

const ENV = { RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'error' };
const RETRIES = 12;

describe('Idempotency-Key across two server processes on one database', { timeout: 4 * TIMEOUT }, () => {
  let db: TempDatabase;
  const servers: Serving[] = [];
  let apis: Client[];

  before(async () => {
    db = await tempDatabase();
    servers.push(await serve(db.url, ENV)); // the first start bootstraps and prints the owner's key
    servers.push(await serve(db.url, ENV));
    const { key } = printedKey(servers[0]!.stdout());
    apis = servers.map((s) => new Client(s.url, key));
  });

  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    killAll();
    await db?.remove();
  });

  const output = () => servers.map((s, i) => `--- process ${i}:\n${s.stderr().slice(-2000)}`).join('\n');

  test(`${RETRIES} retries at once over two processes create one task and all answer alike`, async () => {
    const before = expectStatus(await apis[0]!.get('/v1/tasks'), 200).length as number;
    const headers = { 'idempotency-key': randomUUID() };
    // Open every connection first, so that the retries reach both processes together.
    await Promise.all(Array.from({ length: RETRIES }, (_, i) => apis[i % 2]!.get('/v1/me')));
    const responses: Response[] = await Promise.all(
      Array.from({ length: RETRIES }, (_, i) => apis[i % 2]!.post('/v1/tasks', { title: 'Exactly once' }, headers)),
    );
    for (const response of responses) {
      expectStatus(response, 201);
      assert.equal(response.text, responses[0]!.text, `${show(response)}\n${output()}`);
      assert.equal(response.headers.get('etag'), responses[0]!.headers.get('etag'));
    }
    const ran = responses.filter((r) => r.headers.get('idempotent-replayed') === null);
    assert.equal(ran.length, 1, `exactly one request may run, ${ran.length} did`);
    for (const api of apis) {
      assert.equal(expectStatus(await api.get('/v1/tasks'), 200).length, before + 1, 'one task more, seen by both');
    }
  });

  test('a key used through one process is refused for another body by the other process', async () => {
    const headers = { 'idempotency-key': randomUUID() };
    expectStatus(await apis[0]!.post('/v1/lists', { name: 'One' }, headers), 201);
    expectError(await apis[1]!.post('/v1/lists', { name: 'Two' }, headers), 422, MESSAGES.reused);
    const replay = await apis[1]!.post('/v1/lists', { name: 'One' }, headers);
    assert.equal(expectStatus(replay, 201).name, 'One');
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  });
});
