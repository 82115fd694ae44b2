/**
 * What the event-stream suites share: their server, streams that start at the team's newest
 * event, events written straight into the outbox in bulk, and the checks every stream's events
 * must pass (numeric increasing ids, no gap, no repeat).
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { committedChanges } from '../../src/changes/publisher.js';
import { insertKey } from '../../src/keys/keys.repository.js';
import type { Db } from '../../src/storage/schema.js';
import { upsertMember } from '../../src/team/teams.repository.js';
import type { Actor } from '../factories.js';
import { expectStatus, startTestServer, type Client, type Response, type TestServer } from '../harness.js';
import { closeAllStreams, openStream, type SseEvent, type SseStream } from '../sse/stream.js';

/** Every test is bounded; the waits inside are shorter still. */
export const TIMEOUT = { timeout: 30_000 };

export const created = (response: Response) => expectStatus(response, 201);
export const ok = (response: Response) => expectStatus(response, 200);

/** The server of the event suites: heartbeats every second, so a test can wait for one. */
export function startEventsServer(): Promise<TestServer> {
  return startTestServer({ EVENTS_HEARTBEAT_SECONDS: '1' });
}

/** Closes whatever streams a test left open, then the server. */
export async function stopEventsServer(server: TestServer | undefined): Promise<void> {
  await closeAllStreams();
  await server?.close();
}

export interface Person {
  userId: string;
  teamId: string;
  key: string;
  keyId: string;
  api: Client;
}

/** The team's newest event id (what a client that is up to date would send as Last-Event-ID). */
export async function latestSeq(server: { store: { db: Db } }, teamId: string): Promise<number> {
  const row = await server.store.db
    .selectFrom('teams')
    .select('event_counter')
    .where('id', '=', teamId)
    .executeTakeFirstOrThrow();
  return Number(row.event_counter);
}

/**
 * A stream that starts exactly at the team's current newest event: it resumes from it, so every
 * later event is delivered however soon the test changes something.
 */
export async function live(server: TestServer, who: Person, label: string): Promise<SseStream> {
  const stream = await openStream(server, who.key, { lastEventId: String(await latestSeq(server, who.teamId)), label });
  assert.equal(stream.status, 200, `${label}: ${stream.status} ${stream.body}`);
  return stream;
}

/** Gives an existing user membership of another team, and a key there. */
export async function joinTeam(server: TestServer, user: Actor, teamId: string): Promise<Person> {
  await upsertMember(server.store.db, teamId, user.userId, 'member');
  const { record: row, key } = await insertKey(server.store.db, { teamId, userId: user.userId, name: 'second team' });
  return { userId: user.userId, teamId, key, keyId: row.id, api: server.client(key) };
}

/** Asserts the shape every event must have: an increasing id and `data` that holds its ids only (a comment's: the task's and its own). */
export function checkShape(stream: SseStream, events: SseEvent[], after = 0): void {
  let previous = after;
  for (const event of events) {
    assert.match(event.id ?? '', /^\d+$/, `${stream.label}: event without a numeric id: ${JSON.stringify(event)}`);
    assert.ok(Number(event.id) > previous, `${stream.label}: ids must increase (${previous} then ${event.id})`);
    previous = Number(event.id);
    const data = JSON.parse(event.data);
    const keys = event.type.startsWith('taskList.')
      ? ['listId']
      : event.type.startsWith('comment.')
        ? ['taskId', 'commentId']
        : event.type.startsWith('taskStatus.')
          ? ['statusId']
          : event.type.startsWith('label.')
            ? ['labelId']
            : event.type.startsWith('notification.')
              ? ['notificationId']
              : ['taskId'];
    assert.deepEqual(Object.keys(data), keys, `${stream.label}: data must hold only ${keys.join(', ')}: ${event.data}`);
    for (const key of keys) assert.equal(typeof data[key], 'number');
  }
}

/**
 * Writes `count` events for the team straight into the outbox (as recordEvent does, in bulk),
 * addressed to `recipients`, then wakes the hub. Returns the first and last ids.
 */
export async function bulkEvents(
  server: TestServer,
  teamId: string,
  count: number,
  recipients: string[],
): Promise<{ first: number; last: number }> {
  const range = await server.store.transaction(async (trx) => {
    const row = await trx
      .updateTable('teams')
      .set((eb) => ({ event_counter: eb('event_counter', '+', count) }))
      .where('id', '=', teamId)
      .returning('event_counter')
      .executeTakeFirstOrThrow();
    const last = Number(row.event_counter);
    const first = last - count + 1;
    const createdAt = new Date().toISOString();
    for (let from = first; from <= last; from += 1_000) {
      const rows = [];
      for (let seq = from; seq <= Math.min(last, from + 999); seq++) {
        rows.push({
          team_id: teamId,
          seq,
          type: 'task.updated',
          data: JSON.stringify({ taskId: seq }),
          created_at: createdAt,
        });
      }
      await trx.insertInto('events').values(rows).execute();
    }
    for (const userId of recipients) {
      await trx
        .insertInto('event_recipients')
        .columns(['event_id', 'user_id'])
        .expression(
          trx
            .selectFrom('events')
            .select(['id', sql<string>`cast(${userId} as text)`.as('user_id')])
            .where('team_id', '=', teamId)
            .where('seq', '>=', first)
            .where('seq', '<=', last),
        )
        .execute();
    }
    return { first, last };
  });
  committedChanges.publish({ teamId });
  return range;
}

/** Asserts the events' ids are exactly from..to, each once, in order (naming the first problems). */
export function assertContiguous(label: string, events: SseEvent[], from: number, to: number): void {
  const problems: string[] = [];
  let expected = from;
  for (const event of events) {
    const id = Number(event.id);
    if (event.type === 'sync.required') problems.push(`unexpected sync.required (id ${id})`);
    else if (id < expected) problems.push(`id ${id} again (or out of order) after ${expected - 1}`);
    else if (id > expected) problems.push(`ids ${expected}..${id - 1} missing (got ${id} after ${expected - 1})`);
    if (problems.length >= 5) break;
    expected = Math.max(expected, id + 1);
  }
  if (expected !== to + 1) problems.push(`stream stopped at ${expected - 1}, expected up to ${to}`);
  assert.deepEqual(problems, [], `${label}: ${events.length} events for ids ${from}..${to}`);
}

/** Polls `check` until it holds; fails after `timeoutMs`. */
export async function waitUntil(what: string, check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await sleep(10);
  }
}
