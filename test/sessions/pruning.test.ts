/**
 * Expired web sessions are deleted, with their CSRF tokens, as other expired records are: when
 * a server starts and every hour after. Live sessions are never touched.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { insertSession, pruneExpiredSessions } from '../../src/sessions/sessions.repository.js';
import type { Db } from '../../src/storage/schema.js';
import { createTestTeam } from '../factories.js';
import { expectStatus, startTestServer, tempDatabase, type TempDatabase } from '../harness.js';

const HOUR = 60 * 60 * 1000;

/** Makes these sessions expire `ago` milliseconds in the past. */
async function expire(db: Db, sessionIds: string[], ago = HOUR): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ expires_at: new Date(Date.now() - ago).toISOString() })
    .where('id', 'in', sessionIds)
    .execute();
}

const sessionIdsIn = async (db: Db) =>
  (await db.selectFrom('sessions').select('id').execute()).map((row) => row.id).sort();

describe('pruning expired sessions', () => {
  let database: TempDatabase;
  before(async () => {
    database = await tempDatabase();
  });
  after(() => database.remove());

  test('a starting server deletes expired sessions and their CSRF tokens, and keeps live ones working', async () => {
    const first = await startTestServer({ DATABASE_URL: database.url });
    const team = await createTestTeam(first);
    const { db } = first.store;
    const live = await insertSession(db, team.owner.userId, team.id);
    await insertSession(db, team.owner.userId, team.id);
    await insertSession(db, team.owner.userId, team.id);
    const liveId = (await db.selectFrom('sessions').select(['id', 'csrf_token']).execute()).find(
      (row) => row.csrf_token === live.csrfToken,
    )!.id;
    const expiredIds = (await sessionIdsIn(db)).filter((id) => id !== liveId);
    await expire(db, expiredIds);
    await first.close();

    const second = await startTestServer({ DATABASE_URL: database.url });
    try {
      // Pruning runs as the server becomes ready, beside the first requests.
      for (let waited = 0; (await sessionIdsIn(second.store.db)).length > 1 && waited < 5000; waited += 50) {
        await sleep(50);
      }
      assert.deepEqual(await sessionIdsIn(second.store.db), [liveId]);
      const me = await second.client().get('/v1/me', { cookie: `tasklane_session=${live.token}` });
      assert.equal(expectStatus(me, 200).user.id, team.owner.userId);
    } finally {
      await second.close();
    }
  });

  test('pruning deletes every expired session in batches, however many, and nothing else', async () => {
    const server = await startTestServer();
    try {
      const team = await createTestTeam(server);
      const { db } = server.store;
      const now = new Date().toISOString();
      const expired = Array.from({ length: 2_500 }, (_, i) => ({
        id: `expired-${i}`,
        user_id: team.owner.userId,
        team_id: team.id,
        csrf_token: `csrf-${i}`,
        created_at: now,
        expires_at: new Date(Date.now() - 1000 - i).toISOString(),
      }));
      for (let i = 0; i < expired.length; i += 500) {
        await db
          .insertInto('sessions')
          .values(expired.slice(i, i + 500))
          .execute();
      }
      await insertSession(db, team.owner.userId, team.id);
      const live = (await sessionIdsIn(db)).filter((id) => !id.startsWith('expired-'));
      assert.equal(await pruneExpiredSessions(db), 2_500);
      assert.deepEqual(await sessionIdsIn(db), live);
      assert.equal(await pruneExpiredSessions(db), 0, 'a second run finds nothing');
    } finally {
      await server.close();
    }
  });
});
