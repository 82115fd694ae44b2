/**
 * Old notifications are pruned (housekeeping, hourly): read or archived ones after 90 days, any
 * after a year; recent ones, and unread ones younger than a year, stay. The walk goes by ranges of
 * ids, so a row far beyond the first range is reached too. On the store under test.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { pruneNotifications } from '../../src/notifications/notifications.repository.js';
import { createTestTeam } from '../factories.js';
import { startTestServer, TEST_STORE, type TestServer } from '../harness.js';
import { inbox, newTask } from './support.js';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

const DAY = 24 * 60 * 60 * 1000;

test(`read or archived notifications go after 90 days, any after a year (${TEST_STORE})`, async () => {
  const team = await createTestTeam(server);
  const ann = await team.member({ name: 'Ann' });
  for (let n = 0; n < 6; n++) await newTask(team.owner, { title: `Task ${n}`, assigneeIds: [ann.userId] });
  const ids = (await inbox(ann)).items.map((item) => item.id).sort((a, b) => a - b);
  const now = Date.now();
  const age = (days: number) => new Date(now - days * DAY).toISOString();
  const set = (id: number, values: { created_at: string; read_at?: string; archived_at?: string; id?: number }) =>
    server.store.db.updateTable('notifications').set(values).where('id', '=', id).execute();
  const [readOld, archivedOld, unreadOld, ancient, readRecent, farAhead] = ids as [number, ...number[]];
  await set(readOld, { created_at: age(100), read_at: age(99) });
  await set(archivedOld!, { created_at: age(100), archived_at: age(99) });
  await set(unreadOld!, { created_at: age(200) });
  await set(ancient!, { created_at: age(400) });
  await set(readRecent!, { created_at: age(10), read_at: age(9) });
  // An old read one whose id lies two ranges further on: the walk reaches it.
  const moved = farAhead! + 25_000;
  await set(farAhead!, { id: moved, created_at: age(95), read_at: age(94) });

  assert.equal(await pruneNotifications(server.store.db, now), 4);
  const left = await server.store.db
    .selectFrom('notifications')
    .select('id')
    .where('user_id', '=', ann.userId)
    .execute();
  assert.deepEqual(
    left.map((row) => row.id).sort((a, b) => a - b),
    [unreadOld, readRecent],
  );
  assert.equal(await pruneNotifications(server.store.db, now), 0, 'a second run finds nothing');
});
