/**
 * Moving a workspace from the embedded SQLite store to PostgreSQL with `tasklane migrate-data`:
 * afterwards every read answers exactly as before, keys and saved idempotent answers included,
 * and work continues; made while a server writes, the copy is one moment of the source. And back
 * from PostgreSQL to SQLite, with the same checksums.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { revokeKey } from '../src/keys/keys.repository.js';
import { openStore } from '../src/storage/database.js';
import { createTestTeam, type Actor } from './factories.js';
import { Client, expectError, expectStatus, startTestServer, tempDatabase, type TempDatabase } from './harness.js';
import { copyUnderLoad } from './copy-under-load.js';
import { fillWorkspace, summaryOf, tableChecksums } from './migrate-data-fixtures.js';
import { cliEnv, runCli, TIMEOUT } from './processes.js';

/** Everything an actor can read through the API, keyed by path. */
async function readEverything(api: Client): Promise<Record<string, unknown>> {
  const reads: Record<string, unknown> = {};
  const get = async (path: string) => (reads[path] = expectStatus(await api.get(path), 200));
  await get('/v1/me');
  await get('/v1/users');
  await get('/v1/task-statuses');
  const lists = (await get('/v1/lists')) as { id: number }[];
  const tasks = (await get('/v1/tasks')) as { id: number }[];
  await get('/v1/tasks?isCompleted=true');
  await get('/v1/tasks?query=LAUNCH&priority=high&priority=urgent');
  for (const list of lists) {
    await get(`/v1/lists/${list.id}`);
    await get(`/v1/lists/${list.id}/members`);
  }
  for (const task of tasks) await get(`/v1/tasks/${task.id}`);
  return reads;
}

describe('migrate-data between SQLite and PostgreSQL', { timeout: 4 * TIMEOUT }, () => {
  const sqliteDir = mkdtempSync(join(tmpdir(), 'tasklane-move-'));
  const sqliteUrl = `sqlite:${join(sqliteDir, 'tasklane.db')}`;
  let postgres: TempDatabase;
  after(async () => {
    rmSync(sqliteDir, { recursive: true, force: true });
    await postgres?.remove();
  });

  test('a moved workspace answers every read the same, keys and saved idempotent answers included, and numbering continues', async () => {
    // A workspace with some history on SQLite.
    const before = await startTestServer({ DATABASE_URL: sqliteUrl });
    const team = await createTestTeam(before, 'Movers');
    const mate = await team.member({ name: 'Mate' });
    const leaver = await team.member({ name: 'Leaver' });
    const { owner } = team;
    const statuses = expectStatus(await owner.api.get('/v1/task-statuses'), 200);
    const done = statuses.find((s: { isCompleted: boolean }) => s.isCompleted);
    const shared = expectStatus(await owner.api.post('/v1/lists', { name: 'Launch', color: 'Blue' }), 201);
    const archived = expectStatus(await owner.api.post('/v1/lists', { name: 'Old', color: 'Gray' }), 201);
    expectStatus(await owner.api.post(`/v1/lists/${shared.id}/members`, { userId: mate.userId }), 201);
    const parent = expectStatus(
      await owner.api.post('/v1/tasks', {
        title: 'Launch day',
        description: '# Plan\n\n- ship',
        priority: 'urgent',
        dueDate: '2026-12-01',
        taskListIds: [shared.id],
        assigneeIds: [mate.userId, owner.userId],
      }),
      201,
    );
    expectStatus(await mate.api.post('/v1/tasks', { title: 'Launch checklist', parentId: parent.id }), 201);
    expectStatus(
      await owner.api.post('/v1/tasks', { title: 'Archived work', taskListIds: [archived.id], taskStatusId: done.id }),
      201,
    );
    const retried = { body: { title: 'Retried across the move' }, headers: { 'idempotency-key': 'k-1' } };
    const answered = expectStatus(await owner.api.post('/v1/tasks', retried.body, retried.headers), 201);
    const doomed = expectStatus(await owner.api.post('/v1/tasks', { title: 'Deleted' }), 201);
    expectStatus(await owner.api.delete(`/v1/tasks/${doomed.id}`), 200);
    expectStatus(await owner.api.post(`/v1/lists/${archived.id}/archive`), 200);
    await revokeKey(before.store.db, leaver.keyId);

    const actors: Actor[] = [owner, mate];
    const expected = new Map<string, Record<string, unknown>>();
    for (const actor of actors) expected.set(actor.key, await readEverything(actor.api));
    const lastTask = (expected.get(owner.key)!['/v1/tasks'] as { id: number; number: number }[])[0]!;
    await before.close();

    // Move it.
    postgres = await tempDatabase();
    const moved = await runCli(['migrate-data', '--from', sqliteUrl, '--to', postgres.url], cliEnv(sqliteUrl));
    const report = summaryOf(moved);
    assert.equal(report.copied.tasks, 4);
    assert.equal(report.copied.api_keys, 4); // the bootstrap key, and one for each of the three actors
    assert.equal(report.copied.idempotency_keys, 1);

    // Every read answers the same on PostgreSQL.
    const afterMove = await startTestServer({ DATABASE_URL: postgres.url });
    try {
      for (const actor of actors) {
        const api = afterMove.client(actor.key);
        assert.deepEqual(await readEverything(api), expected.get(actor.key), `reads differ for ${actor.name}`);
      }
      expectError(await afterMove.client(leaver.key).get('/v1/me'), 401);

      // A client retrying a POST it sent before the move gets the answer it missed, not a second task.
      const replay = await afterMove.client(owner.key).post('/v1/tasks', retried.body, retried.headers);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(expectStatus(replay, 201), answered);

      // Work continues: the next task takes the next number and a fresh id.
      const next = expectStatus(await afterMove.client(owner.key).post('/v1/tasks', { title: 'After the move' }), 201);
      assert.equal(next.number, doomed.number + 1);
      assert.ok(next.id > doomed.id && next.id > lastTask.id);
      const list = expectStatus(await afterMove.client(owner.key).post('/v1/lists', { name: 'New' }), 201);
      assert.ok(list.id > archived.id);
    } finally {
      await afterMove.close();
    }

    // The target is no longer empty: a second copy is refused and changes nothing.
    const again = await runCli(['migrate-data', '--from', sqliteUrl, '--to', postgres.url], cliEnv(sqliteUrl));
    assert.notEqual(again.code, 0);
    assert.match(again.stderr, /not empty/);
  });

  test('a copy made while a server writes to the SQLite source is one consistent moment of it', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'tasklane-move-load-'));
    const target = await tempDatabase();
    try {
      await copyUnderLoad(t, `sqlite:${join(dir, 'tasklane.db')}`, target.url);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await target.remove();
    }
  });

  test('a PostgreSQL workspace copies to SQLite with the same rows and checksums', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tasklane-move-back-'));
    const source = await tempDatabase();
    const back = `sqlite:${join(dir, 'back.db')}`;
    try {
      await fillWorkspace(source.url);
      const report = summaryOf(await runCli(['migrate-data', '--from', source.url, '--to', back], cliEnv(source.url)));
      const checked = async (url: string) => {
        const store = openStore(url);
        try {
          return await tableChecksums(store);
        } finally {
          await store.close();
        }
      };
      const [before, copied] = [await checked(source.url), await checked(back)];
      assert.deepEqual(copied, before);
      assert.deepEqual(report.copied, before.rows);
      assert.deepEqual(report.checksums, before.checksums);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await source.remove();
    }
  });
});
