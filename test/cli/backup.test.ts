/**
 * `tasklane admin backup --to FILE`: a consistent copy of a SQLite database taken while a server
 * writes to it, which a server started on it serves; it never overwrites a file; on PostgreSQL it
 * says to use pg_dump, with a command to run.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { tempDatabase, TEST_STORE, type TempDatabase } from '../harness.js';
import { cliEnv, killAll, printedKey, runCli, serve, TIMEOUT, type Serving } from '../processes.js';
import { adminOk, adminRefuses, linesOf } from './support.js';

const databases: TempDatabase[] = [];
after(async () => {
  killAll();
  for (const database of databases) await database.remove();
});
const sqliteOnly = {
  skip: TEST_STORE !== 'sqlite' && 'SQLite databases only (PostgreSQL: pg_dump)',
  timeout: 3 * TIMEOUT,
};

async function newSqliteDatabase(): Promise<{ url: string; folder: string }> {
  const database = await tempDatabase();
  databases.push(database);
  return { url: database.url, folder: dirname(database.url.slice('sqlite:'.length)) };
}

/**
 * Creates tasks one after another through the server's API until stopped; `acknowledged` holds the
 * ids answered 201. A refused write fails the test at once (`reached` and `stop` reject).
 */
function writeContinuously(server: Serving, key: string) {
  const acknowledged: number[] = [];
  let running = true;
  const done = (async () => {
    while (running) {
      const response = await fetch(`${server.url}/v1/tasks`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({
          title: `Written during the backup ${acknowledged.length}`,
          description: 'x'.repeat(2000),
        }),
      });
      const text = await response.text();
      assert.equal(response.status, 201, text);
      acknowledged.push((JSON.parse(text) as { id: number }).id);
    }
  })();
  return {
    acknowledged,
    /** Resolves once `count` writes were acknowledged. */
    reached: async (count: number) => {
      while (acknowledged.length < count) await Promise.race([done, new Promise((wait) => setTimeout(wait, 20))]);
    },
    stop: async () => {
      running = false;
      await done;
    },
  };
}

test(
  'a backup taken while a server writes continuously passes integrity_check, holds a gap-free prefix of the writes, and a server started on it serves every task committed before the backup began',
  sqliteOnly,
  async () => {
    const { url, folder } = await newSqliteDatabase();
    const server = await serve(url);
    const { key } = printedKey(server.stdout());
    const writer = writeContinuously(server, key);
    const backupFile = join(folder, 'copy.db');
    let committedBefore: number[];
    let writtenDuring: number;
    let backup;
    try {
      await writer.reached(100);
      committedBefore = [...writer.acknowledged];
      // A process of its own, as an operator runs it, so this one keeps writing meanwhile.
      backup = await runCli(['admin', 'backup', '--to', backupFile], cliEnv(url));
      writtenDuring = writer.acknowledged.length - committedBefore.length;
    } finally {
      await writer.stop();
      assert.equal(await server.stop(), 0);
    }
    assert.equal(backup.code, 0, backup.stderr);
    assert.ok(writtenDuring > 0, 'the server went on writing while the backup ran');

    const summary = JSON.parse(backup.stdout);
    assert.equal(summary.file, backupFile);
    assert.equal(summary.integrity, 'ok');
    assert.equal(summary.bytes, readFileSync(backupFile).length);
    assert.ok(summary.rows.tasks >= committedBefore.length, JSON.stringify(summary.rows));
    assert.equal(summary.rows.teams, 1);
    // The server made the webhook key file at its first start: the backup says it is not inside.
    assert.match(backup.stderr, /webhook key file .*webhook-secret\.key is not in the backup: copy it too/);

    const copy = new BetterSqlite3(backupFile, { readonly: true });
    try {
      assert.deepEqual(copy.pragma('integrity_check'), [{ integrity_check: 'ok' }]);
      const numbers = copy.prepare('select number from tasks order by number').pluck().all() as number[];
      assert.deepEqual(
        numbers,
        numbers.map((_, i) => i + 1),
        'the copy holds the first N tasks committed, none missing: one moment of the database',
      );
      assert.equal(numbers.length, summary.rows.tasks);
    } finally {
      copy.close();
    }

    const restored = await serve(`sqlite:${backupFile}`);
    try {
      assert.doesNotMatch(restored.stdout(), /These secrets are shown only this once/, 'it serves the copied team');
      for (const id of committedBefore) {
        const response = await fetch(`${restored.url}/v1/tasks/${id}`, { headers: { 'x-api-key': key } });
        assert.equal(response.status, 200, `task ${id}, committed before the backup began: ${await response.text()}`);
      }
    } finally {
      assert.equal(await restored.stop(), 0);
    }
  },
);

test('a backup never overwrites a file: an existing --to is refused and left as it was', sqliteOnly, async () => {
  const { url, folder } = await newSqliteDatabase();
  await adminOk(url, ['org', 'create', '--name', 'Kept']);
  const existing = join(folder, 'precious.db');
  writeFileSync(existing, 'not to be lost');
  const line = await adminRefuses(url, ['backup', '--to', existing]);
  assert.equal(line, `${existing} already exists: a backup never overwrites a file (database: ${folder}/tasklane.db)`);
  assert.equal(readFileSync(existing, 'utf8'), 'not to be lost');

  const made = await adminOk(url, ['backup', '--to', join(folder, 'fresh.db')]);
  assert.equal(made.value.rows.teams, 1);
  assert.deepEqual(made.stderr, [`database: ${folder}/tasklane.db`], 'no key file yet: nothing to warn about');
  assert.ok(!existsSync(`${join(folder, 'fresh.db')}-wal`), 'the backup is one self-contained file');
});

test('on PostgreSQL, admin backup says to use pg_dump, with a command for this database and never its password', async () => {
  const url = 'postgres://tasklane:hunter2@db.example.test:5432/tasklane';
  const line = await adminRefuses(url, ['backup', '--to', 'tasklane.dump']);
  assert.match(line, /^admin backup copies SQLite databases; back up PostgreSQL with pg_dump/);
  assert.ok(
    line.includes("pg_dump --format=custom --file=tasklane.dump 'postgres://tasklane@db.example.test:5432/tasklane'"),
    line,
  );
  assert.doesNotMatch(line, /hunter2/);
  assert.equal(linesOf(line).length, 1);
});
