/**
 * The whole-database snapshot is what every "a refused request changed nothing" assertion rests
 * on; on SQLite it reuses the last snapshot while nothing may have changed. These check that
 * reuse can never hide a change, on whichever store the run targets.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { openStore } from '../src/storage/database.js';
import { expectStatus, startTestServer, tempDatabase, type TempDatabase, type TestServer } from './harness.js';
import { createTestTeam } from './factories.js';
import { differences, snapshotDatabase } from './snapshot.js';

let database: TempDatabase;
let server: TestServer;
before(async () => {
  database = await tempDatabase();
  server = await startTestServer({ DATABASE_URL: database.url });
});
after(async () => {
  await server.close();
  await database.remove();
});

test('a snapshot taken after a change through the API differs from the one before; one taken after no change equals it', async () => {
  const team = await createTestTeam(server);
  const first = await snapshotDatabase(server.store.db);
  assert.deepEqual(differences(first, await snapshotDatabase(server.store.db)), []);
  expectStatus(await team.owner.api.post('/v1/lists', { name: 'Seen by the snapshot' }), 201);
  const second = await snapshotDatabase(server.store.db);
  assert.ok(differences(first, second).some((line) => line.startsWith('task_lists: + ')));
});

test('a change written through another connection to the same database shows in the next snapshot', async () => {
  const team = await createTestTeam(server);
  const first = await snapshotDatabase(server.store.db);
  const other = openStore(database.url);
  try {
    await sql`update teams set name = 'Renamed elsewhere' where id = ${team.id}`.execute(other.db);
  } finally {
    await other.close();
  }
  const second = await snapshotDatabase(server.store.db);
  assert.ok(differences(first, second).some((line) => line.includes('Renamed elsewhere')));
});

test('a change rolled back leaves the snapshot equal to the one before', async () => {
  await createTestTeam(server);
  const first = await snapshotDatabase(server.store.db);
  await assert.rejects(
    server.store.db.transaction().execute(async (trx) => {
      await sql`update teams set name = 'Never committed'`.execute(trx);
      throw new Error('roll back');
    }),
  );
  assert.deepEqual(differences(first, await snapshotDatabase(server.store.db)), []);
});

test('a change another session makes in a transaction still open when a snapshot is taken shows once it commits', async () => {
  const team = await createTestTeam(server);
  const first = await snapshotDatabase(server.store.db);
  const other = openStore(database.url);
  try {
    await other.db.transaction().execute(async (trx) => {
      await sql`update teams set name = 'Committed later' where id = ${team.id}`.execute(trx);
      // Taken while the change is made but not committed: it cannot show yet.
      assert.deepEqual(differences(first, await snapshotDatabase(server.store.db)), []);
    });
  } finally {
    await other.close();
  }
  const second = await snapshotDatabase(server.store.db);
  assert.ok(differences(first, second).some((line) => line.includes('Committed later')));
});
