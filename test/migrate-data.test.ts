/**
 * `tasklane migrate-data` between two databases of the store under test (SQLite → SQLite, or
 * PostgreSQL → PostgreSQL in the PostgreSQL pass), run as the operator runs it: what it copies,
 * that a copy beside a writing server is one consistent moment, that it is all or nothing, and
 * what it refuses. The move from SQLite to PostgreSQL itself is in migrate-data.pg.test.ts.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { sql } from 'kysely';
import { copyDatabase, COPIED_TABLES, NOT_COPIED } from '../src/storage/copy.js';
import { openStore, sqlitePath, type Store } from '../src/storage/database.js';
import { readSnapshot } from '../src/storage/snapshot.js';
import { migrateToLatest } from '../src/storage/migrate.js';
import { Browser } from './browser.js';
import { copyUnderLoad } from './copy-under-load.js';
import { fillWorkspace, summaryOf, tableChecksums } from './migrate-data-fixtures.js';
import { titleIndexProblems } from './integrity.js';
import { Client, expectStatus, startTestServer, TEST_STORE, tempDatabase, type TempDatabase } from './harness.js';
import { cliEnv, killAll, printedKey, runCli, serve, TIMEOUT } from './processes.js';

const databases: TempDatabase[] = [];
after(async () => {
  for (const database of databases) await database.remove();
});

async function fresh(): Promise<string> {
  const database = await tempDatabase();
  databases.push(database);
  return database.url;
}

async function withStore<T>(url: string, work: (store: Store) => Promise<T>): Promise<T> {
  const store = openStore(url, { poolSize: 2 });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** The tables of a database as its own catalog lists them (not tasklane's code). */
async function catalogTables(store: Store): Promise<string[]> {
  const { rows } =
    store.dialect === 'postgres'
      ? await sql<{ name: string }>`select table_name as name from information_schema.tables
          where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(store.db)
      : await sql<{ name: string }>`select name from sqlite_master
          where type = 'table' and name not in ('sqlite_sequence', 'sqlite_stat1')`.execute(store.db);
  return rows.map((row) => row.name).sort();
}

/** Every id high-water mark the engine itself keeps: sqlite_sequence, or every sequence. */
async function sequences(store: Store): Promise<Record<string, number | null>> {
  const { rows } =
    store.dialect === 'postgres'
      ? await sql<{ name: string; n: string | null }>`select sequencename as name, last_value as n
          from pg_sequences where schemaname = current_schema()`.execute(store.db)
      : await sql<{ name: string; n: number }>`select name, seq as n from sqlite_sequence`.execute(store.db);
  return Object.fromEntries(rows.map((row) => [row.name, row.n === null ? null : Number(row.n)]).sort());
}

/** Rows in each of the target's tables, tasklane's migration records left out. */
async function rowsPerTable(url: string): Promise<Record<string, number>> {
  return withStore(url, async (store) => {
    const rows: Record<string, number> = {};
    for (const table of await catalogTables(store)) {
      if (table.startsWith('kysely_migration')) continue;
      const { rows: counted } = await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(
        store.db,
      );
      rows[table] = Number(counted[0]!.n);
    }
    return rows;
  });
}

/**
 * The rows of a freshly migrated database: none of data, though an empty index may keep some
 * bookkeeping (SQLite's FTS5 tables of migration 0011 hold their structure record and version).
 */
async function rowsOfEmptySchema(): Promise<Record<string, number>> {
  const url = await fresh();
  await withStore(url, migrateToLatest);
  return rowsPerTable(url);
}

const copy = (from: string, to: string) => runCli(['migrate-data', '--from', from, '--to', to], cliEnv(from));

/** Runs migrate-data expecting a refusal: exit 1, nothing on stdout, one line on stderr; returns it. */
async function copyFails(from: string, to: string): Promise<string> {
  const run = await copy(from, to);
  const shown = `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`;
  assert.notEqual(run.code, 0, shown);
  assert.equal(run.stdout, '', shown);
  const lines = run.stderr.split('\n').filter((line) => line.trim() !== '');
  assert.equal(lines.length, 1, shown);
  return lines[0]!;
}

/** Adds a trigger to the (migrated) target: `tamper` changes each task's title as it is inserted, `refuse` refuses idempotency records. */
async function addTrigger(store: Store, kind: 'tamper' | 'refuse'): Promise<void> {
  const db = store.db;
  if (store.dialect === 'sqlite') {
    await sql
      .raw(
        kind === 'tamper'
          ? // A column no index trigger reads: this trigger fires before those of the full-text index
            // (the newest trigger first), which would be asked to forget a title not yet indexed.
            `create trigger tamper after insert on tasks begin
               update tasks set updated_at = updated_at || ' (tampered)' where id = new.id; end`
          : `create trigger refuse before insert on idempotency_keys begin
               select raise(abort, 'refused by the test'); end`,
      )
      .execute(db);
    return;
  }
  await sql
    .raw(
      kind === 'tamper'
        ? `create function tamper() returns trigger language plpgsql as $$
             begin new.title := new.title || ' (tampered)'; return new; end $$`
        : `create function refuse() returns trigger language plpgsql as $$
             begin raise exception 'refused by the test'; end $$`,
    )
    .execute(db);
  const table = kind === 'tamper' ? 'tasks' : 'idempotency_keys';
  await sql.raw(`create trigger ${kind} before insert on ${table} for each row execute function ${kind}()`).execute(db);
}

async function dropTrigger(store: Store, kind: 'tamper' | 'refuse'): Promise<void> {
  const table = kind === 'tamper' ? 'tasks' : 'idempotency_keys';
  await sql
    .raw(store.dialect === 'sqlite' ? `drop trigger ${kind}` : `drop trigger ${kind} on ${table}`)
    .execute(store.db);
}

/** True when the copy left no trace in the target: no SQLite file, or a PostgreSQL database without tables. */
async function untouched(url: string): Promise<boolean> {
  if (url.startsWith('sqlite:')) return !existsSync(sqlitePath(url));
  return withStore(url, async (store) => (await catalogTables(store)).length === 0);
}

describe(`migrate-data on ${TEST_STORE}`, { timeout: 6 * TIMEOUT }, () => {
  test('every table of a migrated database is copied or deliberately left behind, and every copied table exists', async () => {
    const url = await fresh();
    const tables = await withStore(url, async (store) => {
      await migrateToLatest(store);
      return catalogTables(store);
    });
    const copied = COPIED_TABLES.map((t) => t.table as string);
    const neither = tables.filter((table) => !copied.includes(table) && !Object.hasOwn(NOT_COPIED, table));
    assert.deepEqual(neither, [], 'tables neither copied nor listed in NOT_COPIED (storage/copy.ts)');
    assert.deepEqual(
      copied.filter((table) => !tables.includes(table)),
      [],
      'COPIED_TABLES names tables the schema does not have',
    );
    assert.deepEqual(
      copied.filter((table) => Object.hasOwn(NOT_COPIED, table)),
      [],
      'a table is both copied and left behind',
    );
  });

  test('a copy holds every row and id high-water mark of the source, idempotency records included, and a retried POST replays on it', async () => {
    const [from, to] = [await fresh(), await fresh()];
    const { owner, retried, first, doomed, waitingToken } = await fillWorkspace(from);

    const summary = summaryOf(await copy(from, to));
    assert.equal(summary.copied.idempotency_keys, 1);
    assert.equal(summary.copied.invitations, 2);
    assert.deepEqual([summary.copied.labels, summary.copied.task_labels], [2, 4]);
    // The mate: assigned, the owner's comment, then mentioned; the owner: the mate's comment.
    // One mention, one choice to stop following.
    assert.deepEqual([summary.copied.notifications, summary.copied.mentions, summary.copied.task_followers], [4, 1, 1]);
    const [source, target] = await Promise.all([
      withStore(from, async (store) => ({ sums: await tableChecksums(store), sequences: await sequences(store) })),
      withStore(to, async (store) => ({ sums: await tableChecksums(store), sequences: await sequences(store) })),
    ]);
    assert.deepEqual(target.sums, source.sums);
    assert.deepEqual(summary.copied, source.sums.rows);
    assert.deepEqual(summary.checksums, source.sums.checksums);
    assert.deepEqual(target.sequences, source.sequences, 'id high-water marks differ');
    // The title search index is derived, not copied: the target's triggers built it, row for row.
    assert.deepEqual(await withStore(to, titleIndexProblems), []);

    const server = await startTestServer({ DATABASE_URL: to });
    try {
      const api = server.client(owner.key);
      const tasks = expectStatus(await api.get('/v1/tasks'), 200);
      // The retry replays the answer given before the move, and creates nothing.
      const replay = await api.post('/v1/tasks', retried.body, retried.headers);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(expectStatus(replay, 201), first);
      assert.deepEqual(expectStatus(await api.get('/v1/tasks'), 200), tasks);
      const searched = tasks.find((task: { title: string }) => task.title.length >= 3);
      assert.ok(searched, 'the workspace has a task to search for');
      const found = expectStatus(await api.get(`/v1/tasks?query=${encodeURIComponent(searched.title)}`), 200);
      assert.ok(
        found.some((task: { id: number }) => task.id === searched.id),
        'searching the copy finds its tasks',
      );
      // Numbering and ids go on after the deleted task's, never reusing them.
      const next = expectStatus(await api.post('/v1/tasks', { title: 'After the move' }), 201);
      assert.equal(next.number, doomed.number + 1);
      // A link sent before the move still opens its invitation.
      const waiting = await new Browser(server.url).post('/auth/invitation', { token: waitingToken });
      assert.equal(expectStatus(waiting, 200).email, 'waiting@example.test');
      assert.equal(next.id, doomed.id + 1);
    } finally {
      await server.close();
    }
  });

  test('a copy made while a server writes to the source is one consistent moment of it, and every write made meanwhile succeeds', async (t) => {
    await copyUnderLoad(t, await fresh(), await fresh());
  });

  test('a write that commits while the copy holds its snapshot goes through, and is not in the copy', async () => {
    const [from, to] = [await fresh(), await fresh()];
    const server = await serve(from, { RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'error' });
    try {
      const api = new Client(server.url, printedKey(server.stdout()).key);
      expectStatus(await api.post('/v1/tasks', { title: 'Before the snapshot' }), 201);
      const target = openStore(to);
      try {
        const report = await readSnapshot(from, async (source) => {
          // The snapshot is taken at the first read.
          await sql`select count(*) from tasks`.execute(source.db);
          // Had the copy taken SQLite's write lock (begin immediate), this would wait and then fail.
          expectStatus(await api.post('/v1/tasks', { title: 'After the snapshot' }), 201);
          return copyDatabase(source, target);
        });
        assert.equal(report.copied.tasks, 1);
        const copied = await target.db.selectFrom('tasks').select('title').execute();
        assert.deepEqual(
          copied.map((task) => task.title),
          ['Before the snapshot'],
        );
      } finally {
        await target.close();
      }
      assert.equal(await server.stop(), 0, server.stderr());
    } finally {
      killAll();
    }
  });

  test('a table that reads back different from the source fails the copy before it commits, leaving the target without rows', async () => {
    const [from, to] = [await fresh(), await fresh()];
    await fillWorkspace(from);
    await withStore(to, async (store) => {
      await migrateToLatest(store);
      await addTrigger(store, 'tamper');
    });
    const reason = await copyFails(from, to);
    assert.match(reason, /table tasks differs after the copy/);
    assert.match(reason, /rolled back/);
    assert.deepEqual(await rowsPerTable(to), await rowsOfEmptySchema(), 'rows left in the target');

    // Nothing half-done stands in the way of the next attempt.
    await withStore(to, (store) => dropTrigger(store, 'tamper'));
    summaryOf(await copy(from, to));
  });

  test('a row the target refuses fails the copy, leaving the target without rows', async () => {
    const [from, to] = [await fresh(), await fresh()];
    await fillWorkspace(from);
    await withStore(to, async (store) => {
      await migrateToLatest(store);
      await addTrigger(store, 'refuse');
    });
    // idempotency_keys is copied last: every other table was already written when it fails.
    assert.equal(COPIED_TABLES.at(-1)!.table, 'idempotency_keys');
    assert.match(await copyFails(from, to), /refused by the test.*rolled back/);
    assert.deepEqual(await rowsPerTable(to), await rowsOfEmptySchema(), 'rows left in the target');
  });

  test('a source whose schema is older than this release is refused, left unmigrated, and the target untouched', async () => {
    const [from, to] = [await fresh(), await fresh()];
    await fillWorkspace(from);
    const latest = await withStore(from, async (store) => {
      const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name desc`.execute(
        store.db,
      );
      await sql`delete from kysely_migration where name = ${rows[0]!.name}`.execute(store.db);
      return rows[0]!.name;
    });
    const reason = await copyFails(from, to);
    assert.match(reason, new RegExp(`older than this release \\(migration ${latest} has not run`));
    assert.match(reason, /start this release's "tasklane serve" on it once/);
    const applied = await withStore(from, async (store) =>
      (await sql<{ name: string }>`select name from kysely_migration`.execute(store.db)).rows.map((r) => r.name),
    );
    assert.ok(!applied.includes(latest), 'migrate-data ran a migration on its source');
    assert.ok(await untouched(to), 'the target was changed');
  });

  test('a source migrated by a newer release is refused', async () => {
    const [from, to] = [await fresh(), await fresh()];
    await fillWorkspace(from);
    await withStore(from, (store) =>
      sql`insert into kysely_migration (name, timestamp) values ('9999_from_the_future', '2099-01-01T00:00:00.000Z')`.execute(
        store.db,
      ),
    );
    assert.match(await copyFails(from, to), /newer release of tasklane \(migration 9999_from_the_future is unknown/);
    assert.ok(await untouched(to), 'the target was changed');
  });

  test('a missing SQLite source is refused and not created', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'tasklane-missing-'));
    after(() => rmSync(folder, { recursive: true, force: true }));
    const from = `sqlite:${join(folder, 'missing.db')}`;
    const to = await fresh();
    assert.match(await copyFails(from, to), /there is no SQLite database at/);
    assert.ok(!existsSync(sqlitePath(from)), 'migrate-data created its source');
    assert.ok(await untouched(to), 'the target was changed');
  });

  test('a target that already holds data is refused and left as it was', async () => {
    const [from, to] = [await fresh(), await fresh()];
    await fillWorkspace(from);
    summaryOf(await copy(from, to));
    const before = await rowsPerTable(to);
    assert.match(await copyFails(from, to), /the target database is not empty \(teams holds \d+ rows?\)/);
    assert.deepEqual(await rowsPerTable(to), before);
  });

  test('--from and --to naming one database, however spelled, are refused', async () => {
    const url = await fresh();
    const spellings: [string, string][] = [[url, url]];
    if (url.startsWith('sqlite:')) spellings.push([url, `sqlite:${sqlitePath(url).replace(/\/([^/]+)$/, '/./$1')}`]);
    else
      spellings.push([
        url,
        url.includes(':5432/') ? url.replace(':5432/', '/') : url.replace(/(@[^/:]+)\//, '$1:5432/'),
      ]);
    for (const [from, to] of spellings) {
      const run = await copy(from, to);
      assert.equal(run.code, 2, `${from} → ${to}: ${run.stderr}`);
      assert.match(run.stderr, /--from and --to name the same database/);
    }
  });
});
