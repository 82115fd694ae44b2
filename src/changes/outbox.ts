/**
 * The realtime outbox. An event row, and the list of users allowed to see it, are written in
 * the same transaction as the change they announce; streams read them from here, so an event
 * exists exactly when its change committed, and a client that reconnects can catch up.
 */
import type { ChangeEventType } from '../contract/enums.js';
import { afterCommit } from '../storage/database.js';
import { prepared } from '../storage/prepared.js';
import type { Db } from '../storage/schema.js';
import { committedChanges } from './publisher.js';

export type EventType = ChangeEventType;

export interface NewEvent {
  teamId: string;
  type: EventType;
  /** Ids only: what every recipient may read anyway. */
  data: { listId: number } | { taskId: number };
  /** Users who may read the object (for a deletion: who could just before). */
  audience: Iterable<string>;
}

export interface StoredEvent {
  seq: number;
  type: string;
  data: string;
  recipients: Set<string>;
}

/** At least this many events per team, or this much time, stays available for resuming. */
export const RETENTION = { perTeam: 1000, maxAgeMs: 60 * 60 * 1000 } as const;

const bumpEventCounter = prepared((db, p: { teamId: string }) =>
  db
    .updateTable('teams')
    .set((eb) => ({ event_counter: eb('event_counter', '+', 1) }))
    .where('id', '=', p.teamId)
    .returning('event_counter'),
);

const insertEvent = prepared((db, p: { teamId: string; seq: number; type: string; data: string; createdAt: string }) =>
  db
    .insertInto('events')
    .values({ team_id: p.teamId, seq: p.seq, type: p.type, data: p.data, created_at: p.createdAt })
    .returning('id'),
);

/**
 * Writes an event inside the change's transaction; once it commits, the publisher announces it.
 * `_store` is no longer used; it stays until the services' calls drop it.
 */
export async function recordEvent(trx: Db, event: NewEvent): Promise<void> {
  // The team row's lock (held to commit) orders a team's events: seq order is commit order.
  const [counter] = await bumpEventCounter(trx, { teamId: event.teamId });
  const seq = counter!.event_counter;
  const [inserted] = await insertEvent(trx, {
    teamId: event.teamId,
    seq,
    type: event.type,
    data: JSON.stringify(event.data),
    createdAt: new Date().toISOString(),
  });
  const id = inserted!.id;
  const recipients = [...new Set(event.audience)];
  if (recipients.length > 0) {
    await trx
      .insertInto('event_recipients')
      .values(recipients.map((user_id) => ({ event_id: id, user_id })))
      .execute();
  }
  afterCommit(trx, () => committedChanges.publish({ teamId: event.teamId }));
}

/**
 * Up to `limit` of the team's events after `afterSeq` (and up to `through`, if given), oldest
 * first, each with who may see it. With `userId`, only that user's events. Pages are whole
 * events, never cut between recipients.
 */
export async function eventsAfter(
  db: Db,
  teamId: string,
  afterSeq: number,
  options: { userId?: string; through?: number; limit: number },
): Promise<StoredEvent[]> {
  let query = db
    .selectFrom('events as e')
    .select(['e.id', 'e.seq', 'e.type', 'e.data'])
    .where('e.team_id', '=', teamId)
    .where('e.seq', '>', afterSeq);
  if (options.through !== undefined) query = query.where('e.seq', '<=', options.through);
  if (options.userId) {
    const userId = options.userId;
    query = query.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('event_recipients as r')
          .select('r.user_id')
          .whereRef('r.event_id', '=', 'e.id')
          .where('r.user_id', '=', userId),
      ),
    );
  }
  const rows = await query.orderBy('e.seq').limit(options.limit).execute();
  const events = rows.map((row) => ({
    seq: row.seq,
    type: row.type,
    data: row.data,
    recipients: new Set<string>(options.userId ? [options.userId] : []),
  }));
  if (options.userId || rows.length === 0) return events;

  const bySeq = new Map(events.map((event) => [event.seq, event]));
  const idToSeq = new Map(rows.map((row) => [row.id, row.seq]));
  const ids = rows.map((row) => row.id);
  for (let i = 0; i < ids.length; i += 500) {
    const recipients = await db
      .selectFrom('event_recipients')
      .select(['event_id', 'user_id'])
      .where('event_id', 'in', ids.slice(i, i + 500))
      .execute();
    for (const r of recipients) bySeq.get(idToSeq.get(r.event_id)!)!.recipients.add(r.user_id);
  }
  return events;
}

/** The team's newest event seq, and the oldest one still stored (null when none is). */
export async function eventWindow(db: Db, teamId: string): Promise<{ latest: number; oldest: number | null }> {
  const [team, oldest] = await Promise.all([
    db.selectFrom('teams').select('event_counter').where('id', '=', teamId).executeTakeFirst(),
    db
      .selectFrom('events')
      .select((eb) => eb.fn.min('seq').as('seq'))
      .where('team_id', '=', teamId)
      .executeTakeFirst(),
  ]);
  return {
    latest: Number(team?.event_counter ?? 0),
    oldest: oldest?.seq === null || oldest?.seq === undefined ? null : Number(oldest.seq),
  };
}

/** Deletes events that are both older than the time window and outside the per-team count. */
export async function pruneEvents(db: Db, now = Date.now()): Promise<number> {
  const cutoff = new Date(now - RETENTION.maxAgeMs).toISOString();
  const result = await db
    .deleteFrom('events')
    .where('created_at', '<', cutoff)
    .where(({ eb, selectFrom }) =>
      eb(
        'seq',
        '<=',
        selectFrom('teams')
          .select((t) => t('teams.event_counter', '-', RETENTION.perTeam).as('keep_from'))
          .whereRef('teams.id', '=', 'events.team_id'),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
