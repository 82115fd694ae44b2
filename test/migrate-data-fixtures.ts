/**
 * What the migrate-data tests share: a workspace with some history to copy, the summary the
 * command prints, and each copied table's rows and checksum computed the way the command does.
 */
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { enqueueMail } from '../src/changes/notification-mail.js';
import { newUnsubscribeToken } from '../src/mail/unsubscribe.repository.js';
import { COPIED_TABLES } from '../src/storage/copy.js';
import type { Store } from '../src/storage/database.js';
import { listColumns } from '../src/storage/dialect.js';
import { TableChecksum } from '../src/storage/table-checksum.js';
import { Browser } from './browser.js';
import { createTestTeam } from './factories.js';
import { expectStatus, startTestServer } from './harness.js';
import type { Run } from './processes.js';
import { tokenOf } from './team/support.js';

/** The summary migrate-data printed: exactly one JSON object on stdout, nothing on stderr (not a terminal). */
export function summaryOf(run: Run): {
  copied: Record<string, number>;
  verified: boolean;
  checksums: Record<string, string>;
  seconds: number;
} {
  const shown = `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`;
  assert.equal(run.code, 0, shown);
  assert.equal(run.stderr, '', `stderr must stay empty when it is not a terminal: ${shown}`);
  const lines = run.stdout.split('\n').filter((line) => line.trim() !== '');
  assert.equal(lines.length, 1, `expected one line of JSON: ${shown}`);
  const summary = JSON.parse(lines[0]!);
  assert.deepEqual(Object.keys(summary), ['copied', 'verified', 'checksums', 'seconds'], shown);
  assert.equal(summary.verified, true);
  return summary;
}

/** Each copied table's rows and checksum in `store`, computed the way migrate-data reports them. */
export async function tableChecksums(
  store: Store,
): Promise<{ rows: Record<string, number>; checksums: Record<string, string> }> {
  const rows: Record<string, number> = {};
  const checksums: Record<string, string> = {};
  for (const { table } of COPIED_TABLES) {
    const sum = new TableChecksum(await listColumns(store.db, store.dialect, table));
    const all = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(store.db);
    for (const row of all.rows) sum.add(row);
    rows[table] = sum.rows;
    if (sum.rows > 0) checksums[table] = sum.digest().slice(0, 16);
  }
  return { rows, checksums };
}

/**
 * A workspace with some history: a team, a webhook and its queued deliveries, invitations (one
 * used), labels (one deleted), lists, tasks (the
 * newest deleted, so the id high-water mark is above every id left), and one task created with an
 * Idempotency-Key and discussed in comments (so it has activity).
 */
export async function fillWorkspace(url: string) {
  const server = await startTestServer({ DATABASE_URL: url });
  try {
    const team = await createTestTeam(server, 'Copied');
    const mate = await team.member({ name: 'Mate' });
    const { owner } = team;
    // A webhook (its queue fills with the changes below; this server sends nothing).
    expectStatus(
      await owner.api.post('/v1/webhooks', { url: 'http://127.0.0.1:9/copied', eventTypes: ['task.created'] }),
      201,
    );
    // Invitations: one waiting (its link must keep working after the move), one used by a newcomer.
    const waiting = expectStatus(
      await owner.api.post('/v1/invitations', { role: 'member', email: 'waiting@example.test' }),
      201,
    );
    const used = expectStatus(await owner.api.post('/v1/invitations', { role: 'admin' }), 201);
    const joined = await new Browser(server.url).post('/auth/accept-invitation', {
      token: tokenOf(used.link),
      name: 'Newcomer',
      email: 'newcomer@example.test',
      password: 'a newcomer password',
    });
    expectStatus(joined, 200);
    const list = expectStatus(await owner.api.post('/v1/lists', { name: 'Launch', color: 'Blue' }), 201);
    expectStatus(await owner.api.post(`/v1/lists/${list.id}/members`, { userId: mate.userId }), 201);
    const retried = {
      body: { title: 'Sent once, retried after the move', taskListIds: [list.id], assigneeIds: [mate.userId] },
      headers: { 'idempotency-key': 'retry-across-the-move' },
    };
    const first = await owner.api.post('/v1/tasks', retried.body, retried.headers);
    expectStatus(first, 201);
    // Labels (issue 29): two on each of the mate's tasks; a third deleted, so ids go on past it.
    const labelIds = [];
    for (const name of ['Bug', 'Später ✓', 'Gone']) {
      labelIds.push(expectStatus(await owner.api.post('/v1/labels', { name, color: 'Teal' }), 201).id);
    }
    expectStatus(await owner.api.delete(`/v1/labels/${labelIds.pop()}`), 200);
    for (const title of ['Ü-Umlaut “quotes” ✓', 'Plain']) {
      const body = { title, description: 'x\n'.repeat(20), priority: 'high', labelIds };
      expectStatus(await mate.api.post('/v1/tasks', body), 201);
    }
    // A discussion (comments, one edited, the newest deleted) and so the task's activity.
    const discussed = first.body.id;
    const said = expectStatus(await mate.api.post(`/v1/tasks/${discussed}/comments`, { body: 'Ça **marche** ✓' }), 201);
    expectStatus(await mate.api.patch(`/v1/tasks/${discussed}/comments/${said.id}`, { body: 'Ça marche ✓✓' }), 200);
    const unsaid = expectStatus(await owner.api.post(`/v1/tasks/${discussed}/comments`, { body: 'Oops' }), 201);
    expectStatus(await owner.api.delete(`/v1/tasks/${discussed}/comments/${unsaid.id}`), 200);
    // Notifications (issue 30): a mention (stored by id), and the owner's choice to stop following.
    expectStatus(await owner.api.post(`/v1/tasks/${discussed}/comments`, { body: '@Mate ✓' }), 201);
    expectStatus(await owner.api.delete(`/v1/tasks/${discussed}/follow`), 200);
    // Saved views (migration 0019): a private one and a shared one, with filters and a sort.
    const urgent = {
      name: 'Urgent',
      filters: { priority: ['urgent'], taskListId: [String(list.id)] },
      sort: '-dueDate',
    };
    expectStatus(await owner.api.post('/v1/views', { ...urgent, layout: 'rows' }), 201);
    expectStatus(
      await mate.api.post('/v1/views', { name: 'Ça', filters: {}, layout: 'board', sharedWithTeam: true }),
      201,
    );
    // Notification email (migration 0022): a preference, mail still to be sent (this server sends
    // none), and an unsubscribe link's token, which must keep working after the move.
    expectStatus(
      await mate.api.patch('/v1/me/notification-preferences', { preferences: { commented: 'inboxAndEmail' } }),
      200,
    );
    const mail = { userId: mate.userId, teamId: team.id, taskId: discussed, actorId: owner.userId };
    await enqueueMail(
      server.store.db,
      [
        { ...mail, kind: 'assigned' },
        { ...mail, kind: 'commented' },
      ],
      new Date(),
      0,
    );
    await newUnsubscribeToken(server.store.db, mate.userId, new Date());
    const doomed = expectStatus(await owner.api.post('/v1/tasks', { title: 'Deleted' }), 201);
    expectStatus(await owner.api.delete(`/v1/tasks/${doomed.id}`), 200);
    return { owner, retried, first: first.body, doomed, waitingToken: tokenOf(waiting.link) };
  } finally {
    await server.close();
  }
}
