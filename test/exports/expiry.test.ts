/** Exports expire (issue 32): the housekeeping job deletes an export's file and row after `expiresAt`, and files no row names. */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { DiskFileStore, newFileKey } from '../../src/attachments/storage/disk-store.js';
import { deleteExpiredExports } from '../../src/exports/expiry.js';
import { createTestTeam, type Team } from '../factories.js';
import { expectError, startTestServer, type TestServer } from '../harness.js';
import { readyExport } from './support.js';

/** Every file in the exports' store, by key. */
function storedKeys(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((shard) => readdirSync(join(dir, shard)));
}

describe('export expiry', () => {
  let server: TestServer;
  let team: Team;
  let dir: string;

  before(async () => {
    server = await startTestServer();
    team = await createTestTeam(server);
    dir = join(server.attachmentsDir, 'exports');
  });
  after(() => server.close());

  it('deletes an export and its file once past expiresAt, and keeps one that is not', async () => {
    const expiring = await readyExport(team.owner.api);
    const kept = await readyExport(team.owner.api);
    assert.ok(Date.parse(kept.expiresAt) - Date.parse(kept.finishedAt) >= 7 * 24 * 3600 * 1000 - 1000, 'kept 7 days');
    const [row] = await server.store.db
      .selectFrom('exports')
      .select('storage_key')
      .where('id', '=', expiring.id)
      .execute();
    assert.ok(storedKeys(dir).includes(row!.storage_key!));
    await server.store.db
      .updateTable('exports')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', expiring.id)
      .execute();

    await deleteExpiredExports(server.store.db, new DiskFileStore(dir));
    expectError(await team.owner.api.get(`/v1/exports/${expiring.id}`), 404, `Export ${expiring.id} not found.`);
    assert.ok(!storedKeys(dir).includes(row!.storage_key!), 'its file is gone');
    assert.equal((await team.owner.api.get(`/v1/exports/${kept.id}/file`)).status, 200);
  });

  it('deletes an export file no row names once a day old, and not before', async () => {
    const store = new DiskFileStore(dir);
    const key = newFileKey();
    await store.put(key, Readable.from([Buffer.from('left by a crash')]), 1000);
    await deleteExpiredExports(server.store.db, store);
    assert.ok(storedKeys(dir).includes(key), 'a young file stays: its row may be on its way');
    await deleteExpiredExports(server.store.db, store, new Date(Date.now() + 25 * 3600 * 1000));
    assert.ok(!storedKeys(dir).includes(key));
  });
});
