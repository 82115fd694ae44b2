/**
 * Webhook deliveries written by the outbox (outbox.ts), in the change's own transaction:
 * one row per enabled webhook of the team whose owner is among the event's recipients (named, or
 * a member of one of its list snapshots: outbox.ts, `Audience`; so a webhook gets exactly what
 * its owner's event stream gets) and which subscribes to the type.
 * A crash after the commit loses nothing: the row is there, and a worker sends it (webhooks/delivery/worker.ts).
 *
 * On SQLite it is a statement of its own, skipped when the team has no enabled webhook (the
 * outbox's `bumpCounters` tells, under the transaction's write lock).
 * On PostgreSQL this is one more part of the outbox's single statement, which holds the team
 * row's lock: reading from its `team` part makes PostgreSQL allocate the deliveries' ids after
 * that lock is taken, so an endpoint's ids follow its events' commit order.
 */
import { sql, type Kysely, type QueryCreator } from 'kysely';
import { inList, type ListParam } from '../storage/dialect.js';
import { prepared } from '../storage/prepared.js';

export type EventForWebhooks = {
  /** The event's id; on PostgreSQL it comes from the statement's `event` part instead. */
  eventId?: number;
  teamId: string;
  type: string;
  /** The event's data, JSON. */
  data: string;
  createdAt: string;
  /** The event's recipients named one by one (listParam). */
  userIds: ListParam;
  /** The event's list snapshots (listParam), whose members are recipients too. */
  audienceIds: ListParam;
};

/**
 * `INSERT … SELECT` of the event's deliveries. `fromEvent`: the statement's `event` part (the
 * outbox's, written after its `team` part locked the team row) gives the event's id and runs
 * first. `root` is the database the statement runs on (for its engine); `db` builds it (a part
 * of a WITH statement, or `root`).
 */
export function deliveriesForEvent(root: Kysely<any>, db: QueryCreator<any>, p: EventForWebhooks, fromEvent = false) {
  const webhooks = fromEvent ? db.selectFrom('webhooks as w').crossJoin('event') : db.selectFrom('webhooks as w');
  return db
    .insertInto('webhook_deliveries')
    .columns(['webhook_id', 'event_id', 'type', 'data', 'occurred_at', 'status', 'next_attempt_at', 'created_at'])
    .expression(
      webhooks
        .select((eb) => [
          'w.id',
          fromEvent ? 'event.id' : eb.cast(eb.val(p.eventId), 'integer').as('event_id'),
          eb.cast(eb.val(p.type), 'text').as('type'),
          eb.cast(eb.val(p.data), 'text').as('data'),
          eb.cast(eb.val(p.createdAt), 'text').as('occurred_at'),
          sql<string>`'pending'`.as('status'),
          eb.cast(eb.val(p.createdAt), 'text').as('next_attempt_at'),
          eb.cast(eb.val(p.createdAt), 'text').as('created_at'),
        ])
        .where('w.team_id', '=', p.teamId)
        .where('w.enabled', '=', 1)
        .where((eb) =>
          eb.or([
            inList(root, 'w.owner_id', p.userIds),
            eb.exists(
              eb
                .selectFrom('list_audience_members as am')
                .select('am.user_id')
                .whereRef('am.user_id', '=', 'w.owner_id')
                .where(inList(root, 'am.audience_id', p.audienceIds)),
            ),
          ]),
        )
        .where((eb) =>
          eb.or([
            eb('w.all_events', '=', 1),
            eb.exists(
              eb
                .selectFrom('webhook_event_types as t')
                .select('t.type')
                .whereRef('t.webhook_id', '=', 'w.id')
                .where('t.type', '=', p.type),
            ),
          ]),
        ),
    );
}

/** `deliveriesForEvent` as a statement of its own, for engines that do not chain writes. */
export const insertDeliveriesForEvent = prepared((db, p: EventForWebhooks) =>
  deliveriesForEvent(db, db, p).returning('id'),
);
