/**
 * Attachments' limits (issue 31): the file limit and the team's quota, enforced while the file
 * streams in, leave nothing behind (no row, no file); concurrent uploads never pass the quota; a
 * task deleted mid-upload leaves nothing; the reconciliation deletes orphaned files.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { reconcileFiles } from '../../src/attachments/reconcile.js';
import { DiskFileStore } from '../../src/attachments/storage/disk-store.js';
import { createTestTeam } from '../factories.js';
import { expectError, expectStatus, startTestServer, type TestServer } from '../harness.js';
import { multipartBody, newTask, storedFiles, upload } from './support.js';

const MAX_FILE = 4000;
const QUOTA = 10_000;

async function rowsOf(server: TestServer, teamId: string) {
  return server.store.db.selectFrom('attachments').select(['id', 'size']).where('team_id', '=', teamId).execute();
}

async function bytesCounted(server: TestServer, teamId: string): Promise<number> {
  const row = await server.store.db
    .selectFrom('teams')
    .select('attachment_bytes')
    .where('id', '=', teamId)
    .executeTakeFirst();
  return Number(row!.attachment_bytes);
}

describe('attachment limits', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({
      ATTACHMENTS_MAX_FILE_BYTES: String(MAX_FILE),
      ATTACHMENTS_TEAM_QUOTA_BYTES: String(QUOTA),
      // Smaller than the files below: the file limit, not BODY_LIMIT_BYTES, holds an upload.
      BODY_LIMIT_BYTES: '1000',
    });
  });
  after(() => server.close());

  it('takes a file up to the file limit past BODY_LIMIT_BYTES, refuses one byte more with a 413 that leaves nothing', async () => {
    const team = await createTestTeam(server);
    const task = await newTask(team.owner);
    expectStatus(await upload(team.owner.api, task.id, Buffer.alloc(MAX_FILE, 'a'), 'full.txt'), 201);
    const files = storedFiles(server.attachmentsDir).length;
    const refused = await upload(team.owner.api, task.id, Buffer.alloc(MAX_FILE + 1, 'a'), 'big.txt');
    expectError(refused, 413, /ATTACHMENTS_MAX_FILE_BYTES/);
    const far = await upload(team.owner.api, task.id, Buffer.alloc(MAX_FILE * 20, 'a'), 'bigger.txt');
    expectError(far, 413, /ATTACHMENTS_MAX_FILE_BYTES/);
    assert.equal((await rowsOf(server, team.id)).length, 1);
    assert.equal(storedFiles(server.attachmentsDir).length, files, 'no file and no temporary file left');
    assert.equal(await bytesCounted(server, team.id), MAX_FILE);
  });

  it("refuses a file past the team's quota with a 413 naming it, and releases a deleted file's bytes", async () => {
    const team = await createTestTeam(server);
    const task = await newTask(team.owner);
    const a = expectStatus(await upload(team.owner.api, task.id, Buffer.alloc(MAX_FILE, 'a'), 'a'), 201);
    expectStatus(await upload(team.owner.api, task.id, Buffer.alloc(MAX_FILE, 'b'), 'b'), 201);
    const files = storedFiles(server.attachmentsDir).length;
    expectError(
      await upload(team.owner.api, task.id, Buffer.alloc(MAX_FILE, 'c'), 'c'),
      413,
      /ATTACHMENTS_TEAM_QUOTA_BYTES/,
    );
    assert.equal(storedFiles(server.attachmentsDir).length, files);
    assert.equal((await rowsOf(server, team.id)).length, 2);
    expectStatus(await team.owner.api.delete(`/v1/attachments/${a.id}`), 200);
    assert.equal(await bytesCounted(server, team.id), MAX_FILE);
    expectStatus(await upload(team.owner.api, task.id, Buffer.alloc(MAX_FILE, 'c'), 'c'), 201);
  });

  it('never lets concurrent uploads pass the quota together', async () => {
    const team = await createTestTeam(server);
    const task = await newTask(team.owner);
    const size = 3000; // three fit in 10,000, a fourth does not
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => upload(team.owner.api, task.id, Buffer.alloc(size, i), `f${i}`)),
    );
    const created = results.filter((r) => r.status === 201);
    for (const r of results) if (r.status !== 201) expectError(r, 413, /ATTACHMENTS_TEAM_QUOTA_BYTES/);
    assert.equal(created.length, 3);
    const rows = await rowsOf(server, team.id);
    assert.equal(rows.length, 3);
    assert.equal(await bytesCounted(server, team.id), 3 * size);
  });

  it("releases a deleted task's bytes; its files are orphans the reconciliation deletes", async () => {
    const team = await createTestTeam(server);
    const task = await newTask(team.owner);
    const kept = await newTask(team.owner);
    const keptFile = expectStatus(await upload(team.owner.api, kept.id, Buffer.from('keep me'), 'k'), 201);
    expectStatus(await upload(team.owner.api, task.id, Buffer.alloc(2000, 'x'), 'gone'), 201);
    expectStatus(await team.owner.api.delete(`/v1/tasks/${task.id}`), 200);
    assert.equal(await bytesCounted(server, team.id), 'keep me'.length);

    // A crash's leftovers too: a file no row names, and a temporary file.
    const dir = server.attachmentsDir;
    const stray = randomUUID();
    mkdirSync(join(dir, stray.slice(0, 2)), { recursive: true });
    writeFileSync(join(dir, stray.slice(0, 2), stray), 'stray');
    const part = `${randomUUID()}.${randomUUID()}.part`;
    mkdirSync(join(dir, part.slice(0, 2)), { recursive: true });
    writeFileSync(join(dir, part.slice(0, 2), part), 'half');
    const young = randomUUID();
    mkdirSync(join(dir, young.slice(0, 2)), { recursive: true });
    writeFileSync(join(dir, young.slice(0, 2), young), 'an upload in flight');
    const old = new Date(Date.now() - 2 * 3600_000);
    for (const name of [stray, part]) utimesSync(join(dir, name.slice(0, 2), name), old, old);

    const store = new DiskFileStore(dir);
    const before = storedFiles(dir).length;
    // Files written just now by this suite are within the grace period: a young orphan stays.
    const deleted = await reconcileFiles(server.store.db, store, 3600_000);
    assert.equal(deleted, 2);
    assert.equal(storedFiles(dir).length, before - 2);
    // With no grace, every orphan goes: the deleted task's file and the young stray.
    await reconcileFiles(server.store.db, store, 0, new Date(Date.now() + 1000));
    const left = storedFiles(dir);
    assert.ok(!left.some((f) => f.endsWith(young)));
    const download = await team.owner.api.get(`/v1/attachments/${keptFile.id}/content`);
    assert.equal(download.text, 'keep me', 'a file a row names is kept');
    const named = await server.store.db.selectFrom('attachments').select('storage_key').execute();
    assert.equal(left.length, named.length, 'exactly the files rows name remain');
  });

  it('leaves nothing when the task is deleted while its file arrives', async () => {
    const team = await createTestTeam(server);
    const task = await newTask(team.owner);
    const { body, contentType } = multipartBody(Buffer.alloc(3000, 'z'), 'slow.txt');
    const url = new URL(`/v1/tasks/${task.id}/attachments`, server.url);
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest(
        url,
        {
          method: 'POST',
          headers: { 'x-api-key': team.owner.key, 'content-type': contentType, 'content-length': body.length },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode!, text }));
        },
      );
      req.on('error', reject);
      req.write(body.subarray(0, 1000));
      setTimeout(async () => {
        try {
          expectStatus(await team.owner.api.delete(`/v1/tasks/${task.id}`), 200);
        } finally {
          req.end(body.subarray(1000));
        }
      }, 300);
    });
    const { status, text } = await answer;
    assert.equal(status, 404, text);
    assert.deepEqual(Object.keys(JSON.parse(text)), ['error']);
    assert.equal((await rowsOf(server, team.id)).length, 0);
    assert.equal(await bytesCounted(server, team.id), 0);
    const named = new Set(
      (await server.store.db.selectFrom('attachments').select('storage_key').execute()).map((r) => r.storage_key),
    );
    for (const file of storedFiles(server.attachmentsDir)) {
      assert.ok(named.has(file.split('/')[1]!), `a file no row names was left: ${file}`);
    }
  });
});
