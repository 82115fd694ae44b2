/**
 * Reading the inbox is flat from 100 to 100,000 notifications a person (issue 30): a page is one
 * range of an index, read newest first and stopped at the page, with no sort. Held on SQLite's
 * plans; on PostgreSQL the same indexes serve (migration 0021), and its planner may prefer the
 * primary key's range when one person holds most rows, which is as flat.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CompiledQuery } from 'kysely';
import { inboxQuery } from '../../src/notifications/notifications.repository.js';
import { createTestTeam } from '../factories.js';
import { startTestServer, TEST_STORE, type TestServer } from '../harness.js';

const skip = TEST_STORE === 'postgres' && "SQLite's plans (EXPLAIN QUERY PLAN)";

describe(`the inbox's plan (${TEST_STORE})`, { skip }, () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  const planOf = async (unread: boolean) => {
    const team = await createTestTeam(server);
    const query = inboxQuery(
      server.store.db,
      { userId: team.owner.userId, teamId: team.id },
      { through: 2_147_483_647, limit: 51, unread },
    ).compile();
    const plan = await server.store.db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
    );
    return plan.rows.map((row) => row.detail);
  };

  test('unread=true is one range of the partial index of unread, unarchived notifications, with no sort', async () => {
    const plan = await planOf(true);
    assert.match(
      plan[0]!,
      /^SEARCH n USING INDEX notifications_unread_idx \(user_id=\? AND team_id=\? AND id<\?\)$/,
      plan.join('\n'),
    );
    assert.ok(!plan.some((line) => /TEMP B-TREE/.test(line)), plan.join('\n'));
  });

  test('the inbox is one range of (user_id, team_id, id), with no sort', async () => {
    const plan = await planOf(false);
    assert.match(
      plan[0]!,
      /^SEARCH n USING INDEX notifications_inbox_idx \(user_id=\? AND team_id=\? AND id<\?\)$/,
      plan.join('\n'),
    );
    assert.ok(!plan.some((line) => /TEMP B-TREE/.test(line)), plan.join('\n'));
  });
});
