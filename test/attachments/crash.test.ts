/**
 * A crash mid-upload (issue 31): `tasklane serve` in a child process takes a large upload slowly,
 * is killed with SIGKILL while the file arrives, and restarts with ATTACHMENTS_ORPHAN_GRACE_SECONDS=0:
 * its housekeeping (which runs every job once at start) deletes the partial file, and no row exists.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { openStore } from '../../src/storage/database.js';
import { Client, expectStatus, tempDatabase } from '../harness.js';
import { killAll, printedKey, serve } from '../processes.js';
import { storedFiles } from './support.js';

after(killAll);

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

test('SIGKILL mid-upload leaves a partial file only, which the restarted server deletes; no row exists', async () => {
  const database = await tempDatabase();
  const dir = mkdtempSync(join(tmpdir(), 'tasklane-crash-files-'));
  const env = { ATTACHMENTS_DIR: dir, LOG_LEVEL: 'error', RATE_LIMIT_PER_MINUTE: '0', REQUEST_TIMEOUT_MS: '600000' };
  try {
    let server = await serve(database.url, env);
    const { key } = printedKey(server.stdout());
    const api = new Client(server.url, key);
    const task = expectStatus(await api.post('/v1/tasks', { title: 'Crash' }), 201);

    const boundary = 'crashboundary';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n`;
    const req = httpRequest(new URL(`/v1/tasks/${task.id}/attachments`, server.url), {
      method: 'POST',
      headers: {
        'x-api-key': key,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + 20 * 1024 * 1024 + 30),
      },
    });
    req.on('error', () => undefined); // the server dies under it
    req.write(head);
    const chunk = Buffer.alloc(64 * 1024, 7);
    let sending = true;
    const sender = (async () => {
      for (let i = 0; i < 100 && sending; i++) {
        req.write(chunk);
        await sleep(20);
      }
    })();
    await until(() => storedFiles(dir).some((f) => f.endsWith('.part')), 'the partial file');
    await sleep(200);
    server.child.kill('SIGKILL');
    await server.stop();
    sending = false;
    await sender;
    req.destroy();
    assert.ok(
      storedFiles(dir).every((f) => f.endsWith('.part')),
      'only a temporary file is left',
    );

    server = await serve(database.url, { ...env, ATTACHMENTS_ORPHAN_GRACE_SECONDS: '0' });
    await until(() => storedFiles(dir).length === 0, 'the reconciliation to delete the partial file');
    await server.stop();

    const store = openStore(database.url, { poolSize: 1 });
    try {
      const rows = await store.db.selectFrom('attachments').selectAll().execute();
      assert.deepEqual(rows, []);
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await database.remove();
  }
});
