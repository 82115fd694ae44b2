/**
 * Several stateless `tasklane serve` processes on one PostgreSQL database, run as child processes
 * the way an operator scales out: concurrent task creation spread across processes keeps task
 * numbers gapless and unique, a change made through one process is read back through another (no
 * stale caches), simultaneous first starts migrate and bootstrap exactly once, and a restart on an
 * existing database keeps everything. PostgreSQL only (a *.pg.test file).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { DEFAULT_STATUSES } from '../src/statuses/statuses.repository.js';
import { Client, expectError, expectStatus, show, tempDatabase, type TempDatabase } from './harness.js';
import { admin, killAll, printedKey, ROOT, serve, TIMEOUT, type Serving } from './processes.js';

/** Every process gets the same settings; rate limiting is not under test here. */
const ENV = { RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'error' };
const PROCESSES = 3;
const CONCURRENT_TASKS = 300;

/** Runs one SQL statement directly on the database (not through tasklane) and returns its rows. */
async function sqlRows<T = any>(databaseUrl: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

/** The migration names that ship: one source file per migration, named like its migration. */
function shippedMigrations(): string[] {
  return readdirSync(join(ROOT, 'src', 'storage', 'migrations'))
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .map((file) => file.slice(0, -'.ts'.length))
    .sort();
}

/** The output of every process, for failure messages (a 5xx logs its cause at LOG_LEVEL=error). */
const outputOf = (servers: Serving[]) =>
  servers
    .map((s, i) => `--- process ${i} (${s.url}):\n${s.stdout().slice(-3000)}${s.stderr().slice(-3000)}`)
    .join('\n');

/** Starts `count` processes at the same instant; stops the ones that did start if any failed. */
async function serveAtOnce(databaseUrl: string, count: number): Promise<Serving[]> {
  const results = await Promise.allSettled(Array.from({ length: count }, () => serve(databaseUrl, ENV)));
  const started = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failed = results.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
  if (failed.length > 0) {
    await Promise.all(started.map((s) => s.stop()));
    assert.fail(
      `${failed.length} of ${count} processes started at once did not reach "listening":\n${failed.join('\n')}`,
    );
  }
  return started;
}

async function stopAll(servers: Serving[]): Promise<(number | null)[]> {
  return Promise.all(servers.map((s) => s.stop()));
}

describe('several serve processes on one PostgreSQL database', { timeout: 10 * TIMEOUT }, () => {
  let db: TempDatabase;
  let servers: Serving[] = [];
  let key: string;
  /** One client per process, all with the owner's key. */
  let apis: Client[];

  before(async () => {
    db = await tempDatabase();
    // The first start bootstraps; the others join an initialized database.
    const first = await serve(db.url, ENV);
    servers.push(first);
    key = printedKey(first.stdout()).key;
    servers.push(...(await serveAtOnce(db.url, PROCESSES - 1)));
    apis = servers.map((s) => new Client(s.url, key));
  });

  after(async () => {
    await stopAll(servers);
    servers = [];
    killAll();
    await db?.remove();
  });

  test(
    `${CONCURRENT_TASKS} concurrent POST /v1/tasks spread over ${PROCESSES} processes all succeed and are numbered exactly 1..${CONCURRENT_TASKS}`,
    { timeout: 3 * TIMEOUT },
    async () => {
      // Every request is in flight at once, round-robin over the processes.
      const results = await Promise.allSettled(
        Array.from({ length: CONCURRENT_TASKS }, (_, i) =>
          apis[i % PROCESSES]!.post('/v1/tasks', {
            title: `Concurrent ${i}`,
            description: `sent to process ${i % PROCESSES}`,
          }),
        ),
      );
      const errors = results.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
      assert.equal(
        errors.length,
        0,
        `${errors.length} of ${CONCURRENT_TASKS} requests failed (5xx or network), first ones:\n` +
          `${errors.slice(0, 3).join('\n')}\n${outputOf(servers)}`,
      );
      const responses = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      const notCreated = responses.filter((r) => r.status !== 201);
      assert.equal(
        notCreated.length,
        0,
        `${notCreated.length} requests did not answer 201, e.g. ${notCreated.slice(0, 3).map(show).join(' | ')}`,
      );

      const expected = Array.from({ length: CONCURRENT_TASKS }, (_, i) => i + 1);
      const numbers = responses.map((r) => r.body.number as number).sort((a, b) => a - b);
      assert.deepEqual(numbers, expected, 'task numbers have gaps or duplicates');
      assert.equal(new Set(responses.map((r) => r.body.id)).size, CONCURRENT_TASKS, 'two tasks share an id');
      // Each response describes the task that request created.
      for (const [i, response] of responses.entries()) assert.equal(response.body.title, `Concurrent ${i}`);

      for (const [i, api] of apis.entries()) {
        const listed = expectStatus(await api.get('/v1/tasks'), 200) as { number: number; title: string }[];
        assert.equal(listed.length, CONCURRENT_TASKS, `process ${i} lists ${listed.length} tasks`);
        assert.deepEqual(
          listed.map((t) => t.number).sort((a, b) => a - b),
          expected,
          `process ${i} lists other numbers`,
        );
      }
      const [team] = await sqlRows<{ task_counter: number }>(db.url, 'select task_counter from teams');
      assert.equal(Number(team!.task_counter), CONCURRENT_TASKS, 'the team counter disagrees with the tasks');
    },
  );

  test(
    'a change made through one process is read back through every other process at once (no stale caches)',
    { timeout: 2 * TIMEOUT },
    async () => {
      const [a, b, c] = apis as [Client, Client, Client];

      // A list created on A is visible on B and C.
      const list = expectStatus(await a.post('/v1/lists', { name: 'Relay', color: 'Blue' }), 201);
      assert.equal(expectStatus(await b.get(`/v1/lists/${list.id}`), 200).name, 'Relay');
      assert.ok(expectStatus(await c.get('/v1/lists'), 200).some((l: { id: number }) => l.id === list.id));

      // Renamed on C → A and B read the new name and the ETag C handed out.
      const renamed = await c.patch(`/v1/lists/${list.id}`, { name: 'Relay renamed' });
      expectStatus(renamed, 200);
      for (const api of [a, b]) {
        const read = await api.get(`/v1/lists/${list.id}`);
        assert.equal(expectStatus(read, 200).name, 'Relay renamed');
        assert.equal(read.headers.get('etag'), renamed.headers.get('etag'), 'processes disagree on the list version');
      }

      // A task created on B continues the shared numbering and appears in C's filtered listing.
      const highest = Math.max(...expectStatus(await c.get('/v1/tasks'), 200).map((t: { number: number }) => t.number));
      const task = expectStatus(await b.post('/v1/tasks', { title: 'Hand-off', taskListIds: [list.id] }), 201);
      assert.equal(task.number, highest + 1);
      assert.deepEqual(
        expectStatus(await c.get(`/v1/tasks?taskListId=${list.id}`), 200).map((t: { id: number }) => t.id),
        [task.id],
      );

      // Completed on A → B's detail and C's isCompleted filter see it.
      const statuses = expectStatus(await c.get('/v1/task-statuses'), 200);
      const done = statuses.find((s: { isCompleted: boolean }) => s.isCompleted);
      assert.ok(done, 'no completed status');
      expectStatus(await a.patch(`/v1/tasks/${task.id}`, { taskStatusId: done.id }), 200);
      const detail = expectStatus(await b.get(`/v1/tasks/${task.id}`), 200);
      assert.equal(detail.status.id, done.id);
      assert.equal(detail.status.isCompleted, true);
      assert.ok(
        expectStatus(await c.get(`/v1/tasks?isCompleted=true&taskListId=${list.id}`), 200).some(
          (t: { id: number }) => t.id === task.id,
        ),
      );

      // A version read on C, then changed on A, is refused as stale on B and leaves A's change.
      const readOnC = await c.get(`/v1/tasks/${task.id}`);
      const staleEtag = readOnC.headers.get('etag');
      assert.ok(staleEtag, 'GET /v1/tasks/{id} sent no ETag');
      expectStatus(await a.patch(`/v1/tasks/${task.id}`, { title: 'Changed on A' }), 200);
      expectError(await b.patch(`/v1/tasks/${task.id}`, { title: 'Changed on B' }, { 'if-match': staleEtag }), 412);
      assert.equal(expectStatus(await c.get(`/v1/tasks/${task.id}`), 200).title, 'Changed on A');

      // Archived on C → A refuses new tasks in it, B no longer lists it.
      expectStatus(await c.post(`/v1/lists/${list.id}/archive`), 200);
      expectError(await a.post('/v1/tasks', { title: 'Too late', taskListIds: [list.id] }), 400);
      assert.ok(!expectStatus(await b.get('/v1/lists'), 200).some((l: { id: number }) => l.id === list.id));

      // Deleted on A → gone on B and C.
      expectStatus(await a.delete(`/v1/tasks/${task.id}`), 200);
      expectError(await b.get(`/v1/tasks/${task.id}`), 404);
      assert.ok(!expectStatus(await c.get('/v1/tasks'), 200).some((t: { id: number }) => t.id === task.id));
    },
  );

  test(
    'admin changes reach every process on its next request: a new key works everywhere, a revoked key or removed member is refused everywhere',
    { timeout: 2 * TIMEOUT },
    async () => {
      const me = expectStatus(await apis[0]!.get('/v1/me'), 200);
      const user = await admin(db.url, 'user', 'create', '--email', `${randomUUID()}@example.test`, '--name', 'Roamer');
      await admin(db.url, 'member', 'add', '--org', me.team.id, '--user', user.id);
      const created = await admin(db.url, 'key', 'create', '--org', me.team.id, '--user', user.id);
      const roamers = servers.map((s) => new Client(s.url, created.key));
      for (const roamer of roamers) assert.equal(expectStatus(await roamer.get('/v1/me'), 200).user.id, user.id);
      for (const api of apis) assert.equal(expectStatus(await api.get('/v1/users'), 200).length, 2);

      assert.deepEqual(await admin(db.url, 'key', 'revoke', '--id', created.id), { revoked: true });
      for (const roamer of roamers) expectError(await roamer.get('/v1/me'), 401);

      const second = await admin(db.url, 'key', 'create', '--org', me.team.id, '--user', user.id);
      const roamers2 = servers.map((s) => new Client(s.url, second.key));
      for (const roamer of roamers2) expectStatus(await roamer.get('/v1/me'), 200);
      await admin(db.url, 'member', 'remove', '--org', me.team.id, '--user', user.id);
      for (const roamer of roamers2) expectError(await roamer.get('/v1/me'), 404);
      for (const api of apis) assert.equal(expectStatus(await api.get('/v1/users'), 200).length, 1);
    },
  );
});

describe('simultaneous first starts on an empty PostgreSQL database', { timeout: 10 * TIMEOUT }, () => {
  const databases: TempDatabase[] = [];
  const running: Serving[] = [];
  after(async () => {
    await stopAll(running);
    killAll();
    for (const db of databases) await db.remove();
  });

  // A race may not show on every attempt; several fresh databases make a lost one likelier to show.
  const ROUNDS = 6;
  for (let round = 1; round <= ROUNDS; round++) {
    test(
      `${PROCESSES} processes started at once all listen, exactly one prints the starter secrets, and the database ` +
        `holds one team and each migration once (round ${round} of ${ROUNDS})`,
      { timeout: 3 * TIMEOUT },
      async () => {
        const db = await tempDatabase();
        databases.push(db);
        const servers = await serveAtOnce(db.url, PROCESSES);
        running.push(...servers);

        const printers = servers.filter((s) => /\bcurl\b/.test(s.stdout()));
        assert.equal(
          printers.length,
          1,
          `${printers.length} processes printed starter secrets:\n` +
            servers.map((s, i) => `--- process ${i} stdout:\n${s.stdout()}`).join('\n'),
        );
        const { key } = printedKey(printers[0]!.stdout());
        for (const s of servers) {
          if (s === printers[0]) continue;
          const out = s.stdout() + s.stderr();
          assert.ok(!out.includes(key), `a second process printed the key:\n${out}`);
          assert.doesNotMatch(out, /curl|x-api-key|password/i, `a second process printed a secret:\n${out}`);
        }

        // The printed key works on every process, and they all see the same single-member team.
        const identities = [];
        for (const s of servers) {
          const api = new Client(s.url, key);
          identities.push(expectStatus(await api.get('/v1/me'), 200));
          assert.equal(expectStatus(await api.get('/v1/users'), 200).length, 1);
          assert.equal(expectStatus(await api.get('/v1/task-statuses'), 200).length, DEFAULT_STATUSES.length);
        }
        assert.equal(new Set(identities.map((me) => me.team.id)).size, 1);

        // Straight from the database: one of everything the bootstrap creates.
        const count = async (table: string) =>
          Number((await sqlRows<{ n: string }>(db.url, `select count(*) as n from ${table}`))[0]!.n);
        assert.equal(await count('teams'), 1, 'teams');
        assert.equal(await count('users'), 1, 'users');
        assert.equal(await count('team_members'), 1, 'team_members');
        assert.equal(await count('api_keys'), 1, 'api_keys');
        assert.equal(await count('task_statuses'), DEFAULT_STATUSES.length, 'task_statuses');

        const migrations = await sqlRows<{ name: string; n: string }>(
          db.url,
          'select name, count(*) as n from kysely_migration group by name order by name',
        );
        assert.deepEqual(
          migrations.map((m) => m.name),
          shippedMigrations(),
          'kysely_migration does not list every shipped migration',
        );
        for (const m of migrations) assert.equal(Number(m.n), 1, `migration ${m.name} recorded ${m.n} times`);
        assert.equal(await count('kysely_migration_lock'), 1, 'kysely_migration_lock');

        const codes = await stopAll(servers);
        assert.deepEqual(
          codes,
          servers.map(() => 0),
          `exit codes ${codes.join(', ')}\n${outputOf(servers)}`,
        );
      },
    );
  }
});

describe('restarting processes against an existing PostgreSQL database', { timeout: 10 * TIMEOUT }, () => {
  let db: TempDatabase;
  const running: Serving[] = [];
  before(async () => {
    db = await tempDatabase();
  });
  after(async () => {
    await stopAll(running);
    killAll();
    await db?.remove();
  });

  test(
    'a restart keeps every list, task and key, prints no secret, and re-runs no migration',
    { timeout: 4 * TIMEOUT },
    async () => {
      const first = await serve(db.url, ENV);
      running.push(first);
      const { key } = printedKey(first.stdout());
      const second = await serve(db.url, ENV);
      running.push(second);
      const before1 = new Client(first.url, key);
      const before2 = new Client(second.url, key);

      const list = expectStatus(await before1.post('/v1/lists', { name: 'Kept', color: 'Green' }), 201);
      for (let i = 0; i < 20; i++) {
        const api = i % 2 === 0 ? before1 : before2;
        expectStatus(await api.post('/v1/tasks', { title: `Kept ${i}`, taskListIds: i < 5 ? [list.id] : [] }), 201);
      }
      const statuses = expectStatus(await before2.get('/v1/task-statuses'), 200);
      const done = statuses.find((s: { isCompleted: boolean }) => s.isCompleted);
      const firstTask = expectStatus(await before1.get('/v1/tasks'), 200).at(-1);
      expectStatus(await before2.patch(`/v1/tasks/${firstTask.id}`, { taskStatusId: done.id }), 200);

      const tasksBefore = expectStatus(await before1.get('/v1/tasks'), 200);
      const detailBefore = await before2.get(`/v1/tasks/${firstTask.id}`);
      const listsBefore = expectStatus(await before1.get('/v1/lists'), 200);
      const migrationsBefore = await sqlRows(db.url, 'select name, timestamp from kysely_migration order by name');

      const codes = await stopAll(running.splice(0));
      assert.deepEqual(codes, [0, 0], `exit codes ${codes.join(', ')}`);

      // Restart with more processes than before, all at once.
      const restarted = await serveAtOnce(db.url, PROCESSES);
      running.push(...restarted);
      for (const s of restarted) {
        const out = s.stdout() + s.stderr();
        assert.ok(!out.includes(key), `a restarted process printed the key:\n${out}`);
        assert.doesNotMatch(out, /curl|x-api-key|password/i, `a restarted process printed a secret:\n${out}`);
      }
      assert.deepEqual(
        await sqlRows(db.url, 'select name, timestamp from kysely_migration order by name'),
        migrationsBefore,
        'the restart changed kysely_migration: a migration ran again',
      );
      assert.equal(Number((await sqlRows(db.url, 'select count(*) as n from teams'))[0].n), 1);

      for (const s of restarted) {
        const api = new Client(s.url, key);
        assert.deepEqual(expectStatus(await api.get('/v1/tasks'), 200), tasksBefore);
        assert.deepEqual(expectStatus(await api.get('/v1/lists'), 200), listsBefore);
        const detail = await api.get(`/v1/tasks/${firstTask.id}`);
        assert.deepEqual(expectStatus(detail, 200), detailBefore.body);
        assert.equal(detail.headers.get('etag'), detailBefore.headers.get('etag'));
      }

      // Numbering continues after the restart, without reuse.
      const next = expectStatus(
        await new Client(restarted[2]!.url, key).post('/v1/tasks', { title: 'After restart' }),
        201,
      );
      assert.equal(next.number, 21);

      const restartCodes = await stopAll(running.splice(0));
      assert.deepEqual(
        restartCodes,
        restarted.map(() => 0),
        `exit codes ${restartCodes.join(', ')}`,
      );
    },
  );
});
