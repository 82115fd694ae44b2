/**
 * Idempotency-Key on POST under /v1: a retry with the same key and body replays the original
 * response and creates nothing, also when the retries arrive at once; the same key on another
 * request is a 422; keys belong to one credential; a 4xx is replayed, a 5xx is not kept; the
 * change and its saved response commit together; records live 24 hours; the header is checked;
 * requests without it, and other methods, are untouched; records hold no secret in clear.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { IDEMPOTENCY_TTL_MS, MESSAGES } from '../src/http/idempotency.js';
import { CONCURRENT_WAIT_MS, pruneExpired } from '../src/http/idempotency-records.js';
import { IdempotencySeal } from '../src/http/idempotency-seal.js';
import { insertKey } from '../src/keys/keys.repository.js';
import { addListMember } from '../src/lists/lists.repository.js';
import { hashPassword } from '../src/team/passwords.js';
import { insertUser } from '../src/team/users.repository.js';
import { upsertMember } from '../src/team/teams.repository.js';
import type { Db } from '../src/storage/schema.js';
import { createTestTeam, type Team } from './factories.js';
import {
  expectError,
  expectStatus,
  show,
  startTestServer,
  TEST_STORE,
  type Response,
  type TestServer,
} from './harness.js';

const key = () => `retry-${randomUUID()}`;
const withKey = (idempotencyKey: string) => ({ 'idempotency-key': idempotencyKey });

async function countRows(db: Db, table: 'tasks' | 'task_lists' | 'api_keys', teamId: string): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('n'))
    .where('team_id', '=', teamId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Every idempotency record, straight from the table (it is not part of the typed schema). */
async function records(db: Db): Promise<Record<string, unknown>[]> {
  return (await sql<Record<string, unknown>>`select * from idempotency_keys`.execute(db)).rows;
}

/** Moves every record of the team `age` milliseconds into the past. */
async function ageRecords(db: Db, teamId: string, age: number): Promise<void> {
  const createdAt = new Date(Date.now() - age).toISOString();
  await sql`update idempotency_keys set created_at = ${createdAt} where team_id = ${teamId}`.execute(db);
}

/** The parts of a response a replay must repeat exactly. */
function essence(response: Response) {
  return {
    status: response.status,
    body: response.text,
    etag: response.headers.get('etag'),
    location: response.headers.get('location'),
    contentType: response.headers.get('content-type'),
  };
}

const replayed = (response: Response) => response.headers.get('idempotent-replayed');

/** A POST with repeated raw headers, which fetch cannot send (it joins them into one). */
function postWithRawHeaders(
  url: string,
  rawHeaders: string[],
  body: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        // Given as a list, headers are sent exactly as written: Node adds no Host of its own.
        headers: [
          'host',
          target.host,
          ...rawHeaders,
          'content-type',
          'application/json',
          'content-length',
          String(Buffer.byteLength(body)),
        ],
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** An open /v1/events stream: everything received so far, and a wait for a pattern in it. */
async function openEvents(url: string, apiKey: string) {
  const controller = new AbortController();
  const res = await fetch(`${url}/v1/events`, { headers: { 'x-api-key': apiKey }, signal: controller.signal });
  assert.equal(res.status, 200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const until = async (pattern: RegExp) => {
    const deadline = Date.now() + 10_000;
    while (!pattern.test(text)) {
      assert.ok(Date.now() < deadline, `no ${pattern} in the event stream:\n${text}`);
      const { done, value } = await reader.read();
      assert.ok(!done, `the event stream ended without ${pattern}:\n${text}`);
      text += decoder.decode(value, { stream: true });
    }
  };
  await until(/: connected/); // attached to the hub from here on
  return { until, text: () => text, close: () => controller.abort() };
}

describe('Idempotency-Key on POST /v1', () => {
  let server: TestServer;
  let team: Team;
  let db: Db;

  before(async () => {
    server = await startTestServer();
    db = server.store.db;
  });
  after(() => server.close());

  // Each test gets its own team, so counts are its own.
  const freshTeam = async () => (team = await createTestTeam(server));

  test('a retry with the same key and body returns the original response (status, body, ETag) and creates nothing', async () => {
    await freshTeam();
    const k = key();
    const body = { title: 'Write the announcement', priority: 'high' };
    const first = await team.owner.api.post('/v1/tasks', body, withKey(k));
    const created = expectStatus(first, 201);
    assert.equal(replayed(first), null, 'the first response is not a replay');

    // Keys in another order are the same JSON body.
    const retry = await team.owner.api.post(
      '/v1/tasks',
      { priority: 'high', title: 'Write the announcement' },
      withKey(k),
    );
    assert.deepEqual(essence(retry), essence(first), show(retry));
    assert.equal(replayed(retry), 'true');
    assert.equal(retry.body.id, created.id);
    assert.equal(await countRows(db, 'tasks', team.id), 1);
  });

  test('10 identical requests at once create exactly one task, and all 10 answers are identical', async () => {
    await freshTeam();
    const k = key();
    // Open the connections first, so that the 10 requests reach the server together.
    await Promise.all(Array.from({ length: 10 }, () => team.owner.api.get('/v1/me')));
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => team.owner.api.post('/v1/tasks', { title: 'Only once' }, withKey(k))),
    );
    for (const response of responses) {
      assert.deepEqual(essence(response), essence(responses[0]!), show(response));
      expectStatus(response, 201);
    }
    assert.equal(responses.filter((r) => replayed(r) === null).length, 1, 'exactly one request ran');
    assert.equal(await countRows(db, 'tasks', team.id), 1);
  });

  test('the same key with a different body, or on a different route, is a 422 and creates nothing', async () => {
    await freshTeam();
    const k = key();
    expectStatus(await team.owner.api.post('/v1/tasks', { title: 'First' }, withKey(k)), 201);

    expectError(await team.owner.api.post('/v1/tasks', { title: 'Second' }, withKey(k)), 422, MESSAGES.reused);
    // An added field is a different body, even one the schema would have dropped.
    expectError(await team.owner.api.post('/v1/tasks', { title: 'First', extra: 1 }, withKey(k)), 422, MESSAGES.reused);
    expectError(await team.owner.api.post('/v1/lists', { name: 'First' }, withKey(k)), 422, MESSAGES.reused);
    assert.equal(await countRows(db, 'tasks', team.id), 1);
    assert.equal(await countRows(db, 'task_lists', team.id), 0);
  });

  test('a key belongs to one credential: the same key under two API keys of one user makes two tasks', async () => {
    await freshTeam();
    const second = await insertKey(db, { teamId: team.id, userId: team.owner.userId, name: 'second' });
    const otherApi = server.client(second.key);
    const k = key();
    const a = expectStatus(await team.owner.api.post('/v1/tasks', { title: 'Same' }, withKey(k)), 201);
    const b = await otherApi.post('/v1/tasks', { title: 'Same' }, withKey(k));
    expectStatus(b, 201);
    assert.equal(replayed(b), null);
    assert.notEqual(b.body.id, a.id);
    assert.equal(await countRows(db, 'tasks', team.id), 2);

    // …and the same key under another team's credential is just as independent.
    const other = await createTestTeam(server);
    expectStatus(await other.owner.api.post('/v1/tasks', { title: 'Same' }, withKey(k)), 201);
    assert.equal(await countRows(db, 'tasks', other.id), 1);
  });

  test('a 4xx answer is kept and replayed, even after the cause is gone; a new key runs again', async () => {
    await freshTeam();
    const member = await team.member();
    const list = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Private' }), 201);
    const k = key();
    const refused = await member.api.post(`/v1/lists/${list.id}/archive`, undefined, withKey(k));
    expectError(refused, 403);

    await addListMember(db, list.id, member.userId);
    const retry = await member.api.post(`/v1/lists/${list.id}/archive`, undefined, withKey(k));
    assert.deepEqual(essence(retry), essence(refused));
    assert.equal(replayed(retry), 'true');
    assert.equal(expectStatus(await team.owner.api.get(`/v1/lists/${list.id}`), 200).isArchived, false);

    const fresh = await member.api.post(`/v1/lists/${list.id}/archive`, undefined, withKey(key()));
    assert.equal(expectStatus(fresh, 200).isArchived, true);
  });

  test('a malformed Idempotency-Key is a 400 naming the rule, and nothing is created', async () => {
    await freshTeam();
    const body = { title: 'Never' };
    for (const bad of ['x'.repeat(256), 'clé']) {
      expectError(await team.owner.api.post('/v1/tasks', body, withKey(bad)), 400, MESSAGES.invalidKey);
    }
    expectError(await team.owner.api.post('/v1/lists', { name: 'Never' }, withKey('')), 400, MESSAGES.invalidKey);
    const twice = await postWithRawHeaders(
      `${server.url}/v1/tasks`,
      ['x-api-key', team.owner.key, 'Idempotency-Key', 'a', 'Idempotency-Key', 'b'],
      JSON.stringify(body),
    );
    assert.equal(twice.status, 400, twice.text);
    assert.deepEqual(JSON.parse(twice.text), { error: MESSAGES.severalKeys });
    assert.equal(await countRows(db, 'tasks', team.id), 0);

    // 255 printable characters, spaces and quotes included, are a good key.
    const longest = `"${'k '.repeat(126)}"`;
    assert.equal(longest.length, 254);
    expectStatus(await team.owner.api.post('/v1/tasks', body, withKey(`${longest}!`)), 201);
  });

  test('records are kept 24 hours: one just younger still replays, an older one is ignored and pruned', async () => {
    await freshTeam();
    const k = key();
    const first = expectStatus(await team.owner.api.post('/v1/tasks', { title: 'Daily' }, withKey(k)), 201);

    await ageRecords(db, team.id, IDEMPOTENCY_TTL_MS - 60_000);
    const young = await team.owner.api.post('/v1/tasks', { title: 'Daily' }, withKey(k));
    assert.equal(replayed(young), 'true');
    assert.equal(young.body.id, first.id);

    await ageRecords(db, team.id, IDEMPOTENCY_TTL_MS + 60_000);
    const late = await team.owner.api.post('/v1/tasks', { title: 'Daily' }, withKey(k));
    expectStatus(late, 201);
    assert.equal(replayed(late), null, 'an expired record must not be replayed');
    assert.notEqual(late.body.id, first.id);
    assert.equal(await countRows(db, 'tasks', team.id), 2);

    // Pruning deletes expired records and keeps the others.
    await ageRecords(db, team.id, IDEMPOTENCY_TTL_MS + 60_000);
    expectStatus(await team.owner.api.post('/v1/tasks', { title: 'Kept' }, withKey(key())), 201);
    const ofTeam = async () => (await records(db)).filter((r) => r.team_id === team.id);
    assert.equal((await ofTeam()).length, 2);
    assert.ok((await pruneExpired(db, new Date(Date.now() - IDEMPOTENCY_TTL_MS))) >= 1);
    assert.equal((await ofTeam()).length, 1, 'only the fresh record survives pruning');
  });

  test('a keyed create announces task.created once, after its commit; its replay announces nothing', async () => {
    await freshTeam();
    const events = await openEvents(server.url, team.owner.key);
    try {
      const k = key();
      const first = expectStatus(await team.owner.api.post('/v1/tasks', { title: 'Announced' }, withKey(k)), 201);
      await events.until(new RegExp(`"taskId":${first.id}\\b`));
      assert.equal(replayed(await team.owner.api.post('/v1/tasks', { title: 'Announced' }, withKey(k))), 'true');
      // Events arrive in commit order: once the next task's event is in, a replay's would be too.
      const next = expectStatus(await team.owner.api.post('/v1/tasks', { title: 'Next' }), 201);
      await events.until(new RegExp(`"taskId":${next.id}\\b`));
      const created = events.text().match(/event: task\.created/g) ?? [];
      assert.equal(created.length, 2, events.text());
    } finally {
      events.close();
    }
  });

  test('without the header, two identical POSTs create two tasks, as before', async () => {
    await freshTeam();
    expectStatus(await team.owner.api.post('/v1/tasks', { title: 'Twice' }), 201);
    const second = await team.owner.api.post('/v1/tasks', { title: 'Twice' });
    expectStatus(second, 201);
    assert.equal(replayed(second), null);
    assert.equal(await countRows(db, 'tasks', team.id), 2);
    assert.equal((await records(db)).filter((r) => r.team_id === team.id).length, 0, 'no record without a key');
  });

  test('GET, PATCH and DELETE ignore the header: no record, no replay, a bad value is not even checked', async () => {
    await freshTeam();
    const task = expectStatus(await team.owner.api.post('/v1/tasks', { title: 'Plain' }), 201);
    const k = key();
    expectStatus(await team.owner.api.get(`/v1/tasks/${task.id}`, withKey('clé')), 200);
    const one = await team.owner.api.patch(`/v1/tasks/${task.id}`, { title: 'One' }, withKey(k));
    const two = await team.owner.api.patch(`/v1/tasks/${task.id}`, { title: 'Two' }, withKey(k));
    expectStatus(one, 200);
    assert.equal(expectStatus(two, 200).title, 'Two');
    assert.equal(replayed(two), null);
    expectStatus(await team.owner.api.delete(`/v1/tasks/${task.id}`, withKey(k)), 200);
    expectError(await team.owner.api.delete(`/v1/tasks/${task.id}`, withKey(k)), 404);
    assert.equal((await records(db)).filter((r) => r.team_id === team.id).length, 0);
  });

  test('a web session replays POST /v1/api-keys (one key made, same secret) and the record holds nothing in clear', async () => {
    await freshTeam();
    const password = 'a long enough secret';
    const user = await insertUser(db, {
      email: `${randomUUID()}@example.test`,
      name: 'Web',
      passwordHash: await hashPassword(password),
    });
    await upsertMember(db, team.id, user.id, 'member');
    const signIn = await fetch(`${server.url}/auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: user.email, password }),
    });
    assert.equal(signIn.status, 200, await signIn.clone().text());
    const { csrfToken } = (await signIn.json()) as { csrfToken: string };
    const cookie = signIn.headers.getSetCookie()[0]!.split(';')[0]!;
    const k = key();
    const post = () =>
      server.client().post('/v1/api-keys', { name: 'laptop' }, { cookie, 'x-csrf-token': csrfToken, ...withKey(k) });

    const first = await post();
    const secret = expectStatus(first, 201).key as string;
    const retry = await post();
    assert.deepEqual(essence(retry), essence(first));
    assert.equal(replayed(retry), 'true');
    const keys = await db.selectFrom('api_keys').select('id').where('user_id', '=', user.id).execute();
    assert.equal(keys.length, 1);

    const stored = JSON.stringify((await records(db)).filter((r) => r.team_id === team.id));
    assert.ok(stored.includes('session:'), stored);
    for (const clear of [secret, k, 'laptop', cookie.split('=')[1]!]) {
      assert.ok(!stored.includes(clear), `the record holds ${clear} in clear: ${stored}`);
    }
  });
});

describe('Idempotency-Key: the change and its saved response commit together', () => {
  let server: TestServer;
  before(async () => {
    // This test provokes a 500 on purpose; keep its log quiet.
    server = await startTestServer({ LOG_LEVEL: 'silent' });
  });
  after(() => server.close());

  test('when saving the response fails the task is rolled back (500), and the retry runs afresh', async () => {
    const team = await createTestTeam(server);
    const db = server.store.db;
    const postgres = server.store.dialect === 'postgres';
    // A real failure at the last step: the database refuses to save the response.
    if (postgres) {
      await sql`create function refuse_response() returns trigger language plpgsql as
        $$ begin raise exception 'refused'; end $$`.execute(db);
      await sql`create trigger refuse_response before update on idempotency_keys
        for each row execute function refuse_response()`.execute(db);
    } else {
      await sql`create trigger refuse_response before update on idempotency_keys
        begin select raise(abort, 'refused'); end`.execute(db);
    }
    const k = key();
    const send = () =>
      fetch(`${server.url}/v1/tasks`, {
        method: 'POST',
        headers: { 'x-api-key': team.owner.key, 'content-type': 'application/json', ...withKey(k) },
        body: JSON.stringify({ title: 'All or nothing' }),
      });
    const failed = await send();
    assert.equal(failed.status, 500, await failed.text());
    assert.equal(await countRows(db, 'tasks', team.id), 0, 'the task must not outlive its unsaved response');
    assert.equal((await records(db)).length, 0, 'a failed request leaves no reservation');

    await sql`drop trigger refuse_response ${sql.raw(postgres ? 'on idempotency_keys' : '')}`.execute(db);
    const retry = await send();
    assert.equal(retry.status, 201, await retry.clone().text());
    assert.equal(retry.headers.get('idempotent-replayed'), null);
    assert.equal(await countRows(db, 'tasks', team.id), 1);
  });
});

describe('Idempotency-Key: a retry waits for the request that holds the key', () => {
  let server: TestServer;
  let team: Team;
  before(async () => {
    server = await startTestServer();
    team = await createTestTeam(server);
  });
  after(() => server.close());

  /**
   * Plays "the first request": holds the key's reservation in an open transaction, as a running
   * request does, for `ms`; then commits it with `response` sealed in, or rolls it back.
   */
  async function holdKey(k: string, body: unknown, ms: number, response?: string) {
    const seal = new IdempotencySeal(team.owner.key, k);
    let held!: () => void;
    const holding = new Promise<void>((resolve) => (held = resolve));
    const done = server.store
      .transaction(async (trx) => {
        await sql`insert into idempotency_keys (credential, team_id, key_hash, fingerprint, response, created_at)
          values (${`key:${team.owner.keyId}`}, ${team.id}, ${seal.keyHash},
                  ${seal.fingerprint('POST', '/v1/tasks', body)}, null, ${new Date().toISOString()})`.execute(trx);
        held();
        await sleep(ms);
        if (response === undefined) throw new Error('rolled back on purpose');
        const sealed = seal.seal({
          status: 201,
          headers: { 'content-type': 'application/json; charset=utf-8' },
          body: response,
        });
        await sql`update idempotency_keys set response = ${sealed} where key_hash = ${seal.keyHash}`.execute(trx);
      })
      .catch(() => {});
    await holding;
    return { done };
  }

  test('a retry that arrives while the first request runs waits for it, then replays its answer', async () => {
    const k = key();
    const body = { title: 'Slow first' };
    const first = await holdKey(k, body, 1_000, '{"answer":"of the first request"}');
    const started = Date.now();
    const retry = await team.owner.api.post('/v1/tasks', body, withKey(k));
    await first.done;
    assert.ok(Date.now() - started >= 900, `the retry did not wait (${Date.now() - started} ms)`);
    assert.equal(expectStatus(retry, 201).answer, 'of the first request');
    assert.equal(replayed(retry), 'true');
    assert.equal(await countRows(server.store.db, 'tasks', team.id), 0);
  });

  test(
    'PostgreSQL: the wait is bounded (409 with Retry-After), and once the holder rolls back the retry runs',
    { skip: TEST_STORE !== 'postgres' && 'SQLite serializes writers on one lock; the bound is busy_timeout' },
    async () => {
      const k = key();
      const body = { title: 'Stuck first' };
      const first = await holdKey(k, body, CONCURRENT_WAIT_MS + 1_000);
      const started = Date.now();
      const busy = await team.owner.api.post('/v1/tasks', body, withKey(k));
      expectError(busy, 409, MESSAGES.inProgress);
      assert.equal(busy.headers.get('retry-after'), '1');
      assert.ok(Date.now() - started >= CONCURRENT_WAIT_MS - 100, `gave up after ${Date.now() - started} ms`);
      await first.done;
      const retry = await team.owner.api.post('/v1/tasks', body, withKey(k));
      expectStatus(retry, 201);
      assert.equal(replayed(retry), null);
    },
  );
});
