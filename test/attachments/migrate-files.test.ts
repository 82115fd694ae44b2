/**
 * `tasklane migrate-data --files-from STORE --files-to STORE` (issue 31): the attachments' files
 * move with the database (or alone, without --to), each streamed into the target store under its
 * key and checked against its row's size and sha256. Run as the operator runs it, on real stores:
 * files uploaded through the API onto a disk store, copied to another folder or to an S3 bucket
 * (a real s3rver on loopback), then downloaded through a server started on the target. A file that
 * is missing or differs from its row fails the copy, naming the attachment, and leaves the target
 * database without rows and the target store without the files the run put.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { S3FileStore } from '../../src/attachments/storage/s3-store.js';
import { parseS3Url } from '../../src/s3-config.js';
import { openStore } from '../../src/storage/database.js';
import { createTestTeam } from '../factories.js';
import { createPostgresDatabase, expectStatus, startTestServer, TEST_STORE, tempDatabase } from '../harness.js';
import { tableChecksums } from '../migrate-data-fixtures.js';
import { cliEnv, runCommand, TIMEOUT, type Run } from '../processes.js';
import { startS3Server, type TestS3Server } from './s3-server.js';
import { newTask, PNG, storedFiles, upload } from './support.js';

const cleanups: (() => unknown)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tasklane-migrate-files-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function emptyDatabase(): Promise<string> {
  const database = await tempDatabase();
  cleanups.push(() => database.remove());
  return database.url;
}

async function s3Server(): Promise<TestS3Server> {
  const server = await startS3Server();
  cleanups.push(() => server.close());
  return server;
}

interface Uploaded {
  id: number;
  bytes: Buffer;
  storageKey: string;
}

interface Workspace {
  url: string;
  filesDir: string;
  /** The owner's API key. */
  key: string;
  files: Uploaded[];
}

/** A team on `url` whose task holds a few attachments, uploaded through the API onto a disk store. */
async function workspaceWithFiles(url: string): Promise<Workspace> {
  const filesDir = tempDir();
  const server = await startTestServer({ DATABASE_URL: url, ATTACHMENTS_DIR: filesDir });
  try {
    const team = await createTestTeam(server, 'Files');
    const task = await newTask(team.owner);
    const files: Uploaded[] = [];
    const contents: [string, Buffer][] = [
      ['logo.png', PNG],
      ['data.bin', randomBytes(2 * 1024 * 1024 + 17)],
      ['notes.txt', Buffer.from('plain notes\n'.repeat(100))],
    ];
    for (const [name, bytes] of contents) {
      const attachment = expectStatus(await upload(team.owner.api, task.id, bytes, name), 201);
      assert.equal(attachment.sha256, createHash('sha256').update(bytes).digest('hex'));
      files.push({ id: attachment.id, bytes, storageKey: '' });
    }
    // The keys are the server's, never shown by the API: read them from the rows.
    const rows = await server.store.db.selectFrom('attachments').select(['id', 'storage_key']).execute();
    for (const file of files) file.storageKey = rows.find((row) => row.id === file.id)!.storage_key;
    return { url, filesDir, key: team.owner.key, files };
  } finally {
    await server.close();
  }
}

const diskPath = (dir: string, storageKey: string) => join(dir, storageKey.slice(0, 2), storageKey);

/** Every attachment downloads whole through a server on `env`'s database and file store. */
async function assertDownloadable(env: Record<string, string>, workspace: Workspace): Promise<void> {
  const server = await startTestServer(env);
  try {
    for (const file of workspace.files) {
      const response = await fetch(`${server.url}/v1/attachments/${file.id}/content`, {
        headers: { 'x-api-key': workspace.key },
      });
      assert.equal(response.status, 200, `attachment ${file.id}`);
      assert.ok(Buffer.from(await response.arrayBuffer()).equals(file.bytes), `attachment ${file.id}: the same bytes`);
    }
  } finally {
    await server.close();
  }
}

const migrate = (databaseUrl: string, ...args: string[]) => runCommand(['migrate-data', ...args], cliEnv(databaseUrl));

/** The one JSON line a successful run prints, nothing on stderr (not a terminal). */
function summaryOf(run: Run): Record<string, any> {
  const shown = `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`;
  assert.equal(run.code, 0, shown);
  assert.equal(run.stderr, '', shown);
  const lines = run.stdout.split('\n').filter((line) => line.trim() !== '');
  assert.equal(lines.length, 1, shown);
  return JSON.parse(lines[0]!);
}

/** A failed run: exit 1, nothing on stdout, one line on stderr, which is returned. */
function failureOf(run: Run): string {
  const shown = `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`;
  assert.equal(run.code, 1, shown);
  assert.equal(run.stdout, '', shown);
  const lines = run.stderr.split('\n').filter((line) => line !== '');
  assert.equal(lines.length, 1, shown);
  return lines[0]!;
}

const bytesOf = (workspace: Workspace) => workspace.files.reduce((sum, file) => sum + file.bytes.length, 0);

async function assertNoRows(url: string): Promise<void> {
  const store = openStore(url, { poolSize: 1 });
  try {
    const { rows } = await tableChecksums(store);
    assert.deepEqual(
      Object.entries(rows).filter(([, n]) => n > 0),
      [],
      'the target database holds no rows',
    );
  } finally {
    await store.close();
  }
}

/** The keys in an S3 store, through the store itself (s3rver's own bookkeeping left out). */
async function bucketKeys(s3: TestS3Server): Promise<string[]> {
  const store = new S3FileStore(parseS3Url(s3.url, [])!);
  try {
    const keys: string[] = [];
    for await (const key of store.list(new Date(Date.now() + 60_000))) {
      if (!key.startsWith('._S3rver')) keys.push(key);
    }
    return keys.sort();
  } finally {
    store.client.destroy();
  }
}

describe(`migrate-data --files-from/--files-to (${TEST_STORE})`, { timeout: 4 * TIMEOUT }, () => {
  test('with the database, every file is copied to another folder, verified, reported, and downloads through a server on the target', async () => {
    const source = await workspaceWithFiles(await emptyDatabase());
    const target = await emptyDatabase();
    const targetDir = tempDir();
    const summary = summaryOf(
      await migrate(
        source.url,
        '--from',
        source.url,
        '--to',
        target,
        '--files-from',
        source.filesDir,
        '--files-to',
        targetDir,
      ),
    );
    assert.deepEqual(Object.keys(summary), ['copied', 'verified', 'checksums', 'files', 'seconds']);
    assert.equal(summary.copied.attachments, 3);
    assert.deepEqual(summary.files, { copied: 3, bytes: bytesOf(source) });
    assert.deepEqual(
      storedFiles(targetDir).sort(),
      source.files.map((file) => `${file.storageKey.slice(0, 2)}/${file.storageKey}`).sort(),
    );
    await assertDownloadable({ DATABASE_URL: target, ATTACHMENTS_DIR: targetDir }, source);
  });

  test('without --to only the files move, here from the disk to S3, and a second run copies them all again', async () => {
    const workspace = await workspaceWithFiles(await emptyDatabase());
    const s3 = await s3Server();
    for (let run = 0; run < 2; run++) {
      const summary = summaryOf(
        await migrate(workspace.url, '--from', workspace.url, '--files-from', workspace.filesDir, '--files-to', s3.url),
      );
      assert.deepEqual(summary.files, { copied: 3, bytes: bytesOf(workspace) }, `run ${run + 1}`);
      assert.deepEqual(Object.keys(summary), ['files', 'verified', 'seconds']);
    }
    assert.deepEqual(await bucketKeys(s3), workspace.files.map((file) => file.storageKey).sort());
    assert.deepEqual(await s3.uploadsInProgress(), []);
    await assertDownloadable({ DATABASE_URL: workspace.url, ATTACHMENTS_S3_URL: s3.url }, workspace);
  });

  test('a source file whose bytes changed after upload fails the copy, naming the attachment; the target database has no rows and the target folder no files', async () => {
    const source = await workspaceWithFiles(await emptyDatabase());
    // The last file (by id), so that the others have been copied when it fails.
    const corrupted = source.files.at(-1)!;
    const path = diskPath(source.filesDir, corrupted.storageKey);
    const bytes = readFileSync(path);
    bytes[0] = bytes[0]! ^ 0xff; // the same size, other bytes
    writeFileSync(path, bytes);
    const target = await emptyDatabase();
    const targetDir = tempDir();
    const line = failureOf(
      await migrate(
        source.url,
        '--from',
        source.url,
        '--to',
        target,
        '--files-from',
        source.filesDir,
        '--files-to',
        targetDir,
      ),
    );
    assert.match(
      line,
      new RegExp(`attachment ${corrupted.id} \\(file ${corrupted.storageKey}\\) .*differs from its row`),
    );
    assert.match(line, /rolled back and the target holds no rows/);
    assert.match(line, /the 2 file\(s\) copied to the target file store were deleted again/);
    await assertNoRows(target);
    assert.deepEqual(storedFiles(targetDir), []);
  });

  test('a source file longer than its row fails likewise', async () => {
    const source = await workspaceWithFiles(await emptyDatabase());
    const longer = source.files[0]!;
    appendFileSync(diskPath(source.filesDir, longer.storageKey), 'x');
    const target = await emptyDatabase();
    const targetDir = tempDir();
    const line = failureOf(
      await migrate(
        source.url,
        '--from',
        source.url,
        '--to',
        target,
        '--files-from',
        source.filesDir,
        '--files-to',
        targetDir,
      ),
    );
    assert.match(
      line,
      new RegExp(`attachment ${longer.id} .*larger than the ${longer.bytes.length} bytes its row records`),
    );
    await assertNoRows(target);
    assert.deepEqual(storedFiles(targetDir), []);
  });

  test('a missing source file fails the copy to S3, naming the attachment; the target database has no rows and the bucket no objects', async () => {
    const source = await workspaceWithFiles(await emptyDatabase());
    const missing = source.files[1]!;
    rmSync(diskPath(source.filesDir, missing.storageKey));
    const target = await emptyDatabase();
    const s3 = await s3Server();
    const line = failureOf(
      await migrate(
        source.url,
        '--from',
        source.url,
        '--to',
        target,
        '--files-from',
        source.filesDir,
        '--files-to',
        s3.url,
      ),
    );
    assert.match(
      line,
      new RegExp(`attachment ${missing.id} \\(file ${missing.storageKey}\\) is missing from the source file store`),
    );
    await assertNoRows(target);
    assert.deepEqual(await bucketKeys(s3), []);
    assert.deepEqual(await s3.uploadsInProgress(), []);
  });

  test('usage errors exit 2 with one line on stderr, and nothing is begun', async () => {
    const dir = tempDir();
    const other = tempDir();
    const database = 'sqlite:/nonexistent/tasklane.db';
    const cases: [string[], RegExp][] = [
      [
        ['--from', database, '--to', 'sqlite:/nonexistent/b.db', '--files-from', dir],
        /--files-from and --files-to go together/,
      ],
      [['--from', database, '--files-to', dir], /--files-from and --files-to go together/],
      [['--from', database], /missing --to \(or --files-from and --files-to/],
      [['--from', database, '--files-from', dir, '--files-to', `${dir}/.`], /name the same file store/],
      [['--from', database, '--files-from', join(dir, 'nowhere'), '--files-to', other], /--files-from names no folder/],
      [
        ['--from', database, '--files-from', dir, '--files-to', 's3://bucket/x'],
        /--files-to must be a folder or an https:\/\/ S3 URL/,
      ],
      [
        ['--from', database, '--files-from', dir, '--files-to', 'https://KEY:TOPSECRET@127.0.0.1:1/'],
        /--files-to must name the bucket/,
      ],
    ];
    for (const [args, expected] of cases) {
      const run = await migrate(database, ...args);
      const shown = `${args.join(' ')}\nexit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`;
      assert.equal(run.code, 2, shown);
      assert.equal(run.stdout, '', shown);
      assert.equal(run.stderr.trimEnd().split('\n').length, 1, shown);
      assert.match(run.stderr, expected, shown);
      assert.doesNotMatch(run.stderr, /TOPSECRET/, shown);
    }
    assert.deepEqual(storedFiles(other), []);
  });

  test(
    'SQLite to PostgreSQL with the files from the disk to S3: everything downloads from the new pair',
    { skip: TEST_STORE !== 'postgres' && 'runs in the PostgreSQL pass (TASKLANE_TEST_STORE=postgres)' },
    async () => {
      const sqliteDir = tempDir();
      const source = await workspaceWithFiles(`sqlite:${join(sqliteDir, 'tasklane.db')}`);
      const postgres = await createPostgresDatabase(
        process.env.TEST_DATABASE_URL!,
        `tasklane_test_${randomBytes(6).toString('hex')}`,
      );
      cleanups.push(() => postgres.remove());
      const s3 = await s3Server();
      const summary = summaryOf(
        await migrate(
          source.url,
          '--from',
          source.url,
          '--to',
          postgres.url,
          '--files-from',
          source.filesDir,
          '--files-to',
          s3.url,
        ),
      );
      assert.deepEqual(summary.files, { copied: 3, bytes: bytesOf(source) });
      assert.deepEqual(await bucketKeys(s3), source.files.map((file) => file.storageKey).sort());
      await assertDownloadable({ DATABASE_URL: postgres.url, ATTACHMENTS_S3_URL: s3.url }, source);
    },
  );
});
