/**
 * The realtime outbox. An event row, and the list of users allowed to see it, are written in
 * the same transaction as the change they announce; streams read them from here, so an event
 * exists exactly when its change committed, and a client that reconnects can catch up.
 */
import { sql, type QueryCreator } from 'kysely';
import { CHANGE_EVENT_TYPES, type StreamEventType } from '../contract/enums.js';
import { afterCommit } from '../storage/database.js';
import { chainsWrites, listParam, listValues, type ListParam } from '../storage/dialect.js';
import { prepared } from '../storage/prepared.js';
import type { Db, Tables } from '../storage/schema.js';
import { activityValues, insertActivity, type NewActivity } from './activity-entries.js';
import { committedChanges } from './publisher.js';
import { deliveriesForEvent, insertDeliveriesForEvent } from './webhook-deliveries.js';

export type EventType = StreamEventType;

/** The types a webhook may subscribe to; the team's own events (team.*, member.*, invitation.*) queue no delivery. */
const WEBHOOK_TYPES: ReadonlySet<string> = new Set(CHANGE_EVENT_TYPES);

export interface NewEvent {
  teamId: string;
  type: EventType;
  /** Ids only: what every recipient may read anyway. */
  data:
    | { listId: number }
    | { taskId: number }
    | { taskId: number; commentId: number }
    | { statusId: number }
    | { labelId: number }
    | { teamId: string }
    | { userId: string }
    | { invitationId: string };
  /**
   * Added to the data of the event's webhook deliveries only (not to the event stream's): what a
   * webhook sends of an object that is gone, a deleted task's number.
   */
  forWebhooks?: { number: number };
  /** Users who may read the object (for a deletion: who could just before). */
  audience: Iterable<string>;
  /**
   * The task's activity entry for this change (activity-entries.ts), written with the event:
   * in the same statement on PostgreSQL, so recording it costs no round trip.
   */
  activity?: NewActivity;
}

export interface StoredEvent {
  seq: number;
  type: string;
  data: string;
  recipients: Set<string>;
}

/** At least this many events per team, or this much time, stays available for resuming. */
export const RETENTION = { perTeam: 1000, maxAgeMs: 60 * 60 * 1000 } as const;

/** Bumps the team's event counter, and its task counter by `tasks`: takes the team row's lock. */
const updateCounters = (db: QueryCreator<Tables>, p: { teamId: string; tasks: number }) =>
  db
    .updateTable('teams')
    .set((eb) => ({ task_counter: eb('task_counter', '+', p.tasks), event_counter: eb('event_counter', '+', 1) }))
    .where('id', '=', p.teamId)
    .returning(['task_counter', 'event_counter']);

/**
 * `updateCounters`, and whether the team has an enabled webhook: a team without one has no
 * delivery to queue, so the change skips that statement (`record`). Read here, under SQLite's one
 * write lock, which this transaction holds to its commit (`begin immediate`, database.ts): every
 * webhook committed before the change is seen, and none can be created until it commits.
 */
const bumpCounters = prepared((db, p: { teamId: string; tasks: number }) =>
  updateCounters(db, p).returning((eb) =>
    eb
      .exists(
        eb.selectFrom('webhooks as w').select('w.id').whereRef('w.team_id', '=', 'teams.id').where('w.enabled', '=', 1),
      )
      .as('has_webhooks'),
  ),
);

const numberTask = prepared((db, p: { taskId: number; number: number }) =>
  db.updateTable('tasks').set({ number: p.number }).where('id', '=', p.taskId),
);

const insertActivityRow = prepared(insertActivity);

const insertEvent = prepared((db, p: { teamId: string; seq: number; type: string; data: string; createdAt: string }) =>
  db
    .insertInto('events')
    .values({ team_id: p.teamId, seq: p.seq, type: p.type, data: p.data, created_at: p.createdAt })
    .returning('id'),
);

const insertRecipients = prepared((db, p: { eventId: number; userIds: ListParam }) =>
  db
    .insertInto('event_recipients')
    .columns(['event_id', 'user_id'])
    .expression(
      db
        .selectFrom(listValues(db, p.userIds))
        .select((eb) => [eb.cast(eb.val(p.eventId), 'integer').as('event_id'), 'v.value as user_id']),
    ),
);

type OneStatementValues = {
  teamId: string;
  tasks: number;
  taskId: number | null;
  type: string;
  data: string;
  createdAt: string;
  userIds: ListParam;
  /** The data of the event's webhook deliveries (webhook-deliveries.ts), JSON. */
  deliveryData: string;
};

/** An activity entry's values as parameters of their own (a prepared query's parameters are flat). */
type ActivityParams = {
  activityTaskId: number;
  activityActorId: string | null;
  activityKind: string;
  activityChanges: string;
};

/**
 * The same writes as `bumpCounters`, `numberTask`, `insertEvent` and `insertRecipients` (and,
 * `withActivity`, the change's activity entry; `withDeliveries`, its webhook deliveries), in one
 * statement (see `chainsWrites`).
 */
const recordInOneStatement = (withActivity: boolean, withDeliveries = true) =>
  prepared((db, p: OneStatementValues & ActivityParams) => {
    const activity = {
      taskId: p.activityTaskId,
      actorId: p.activityActorId,
      kind: p.activityKind,
      changes: p.activityChanges,
      createdAt: p.createdAt,
    };
    // PostgreSQL runs every data-modifying WITH to completion, whether the query reads it or not.
    const start: QueryCreator<Tables> = withActivity
      ? (db.with('activity', (cte) => insertActivity(cte, activity)) as unknown as QueryCreator<Tables>)
      : db;
    return (
      start
        .with('team', (cte) => updateCounters(cte, p))
        .with('numbered', (db) =>
          db
            .updateTable('tasks')
            .from('team')
            .set((eb) => ({ number: eb.ref('team.task_counter') }))
            .where('tasks.id', '=', p.taskId)
            .returning('tasks.id'),
        )
        .with('event', (db) =>
          db
            .insertInto('events')
            .columns(['team_id', 'seq', 'type', 'data', 'created_at'])
            .expression(
              db
                .selectFrom('team')
                .select((eb) => [
                  eb.cast(eb.val(p.teamId), 'text').as('team_id'),
                  'team.event_counter',
                  eb.cast(eb.val(p.type), 'text').as('type'),
                  eb.cast(eb.val(p.data), 'text').as('data'),
                  eb.cast(eb.val(p.createdAt), 'text').as('created_at'),
                ]),
            )
            .returning('id'),
        )
        .with('recipients', (cte) =>
          cte
            .insertInto('event_recipients')
            .columns(['event_id', 'user_id'])
            .expression(
              cte
                .selectFrom(listValues(db, p.userIds))
                .crossJoin('event')
                .select(['event.id as event_id', 'v.value as user_id']),
            ),
        )
        // Webhook deliveries, in the same statement (webhook-deliveries.ts); none for a team event.
        .with('deliveries', (cte) =>
          withDeliveries
            ? deliveriesForEvent(
                db,
                cte,
                { teamId: p.teamId, type: p.type, data: p.deliveryData, createdAt: p.createdAt, userIds: p.userIds },
                true,
              ).returning('id')
            : cte
                .selectFrom('event')
                .select('event.id as id')
                .where(sql<boolean>`false`),
        )
        .selectFrom('team')
        .select((eb) => [
          'team.task_counter',
          'team.event_counter',
          eb.exists(eb.selectFrom('deliveries').select('id')).as('queued_deliveries'),
        ])
    );
  });

const recordEventInOneStatement = recordInOneStatement(false);
const recordEventAndActivityInOneStatement = recordInOneStatement(true);
const recordTeamEventInOneStatement = recordInOneStatement(false, false);

/**
 * Writes an event inside the change's transaction; once it commits, the publisher announces it.
 *
 * The team row's lock (taken here, held to commit) orders a team's events, so seq order is
 * commit order. Hence this is a change's last statement: on PostgreSQL one statement
 * (`chainsWrites`), after which the lock is held only for the round trip of the COMMIT.
 */
export async function recordEvent(trx: Db, event: NewEvent): Promise<void> {
  await record(trx, event, null);
}

/**
 * `recordEvent` for a task created in this transaction with a provisional number (dialect.ts,
 * `provisionalNumber`), which gets the team's next task number in the same statement, under the
 * same lock: numbers have no gaps. Returns the number.
 */
export async function recordTaskCreated(trx: Db, taskId: number, event: NewEvent): Promise<number> {
  return record(trx, event, taskId);
}

async function record(trx: Db, event: NewEvent, numberedTaskId: number | null): Promise<number> {
  const values = {
    teamId: event.teamId,
    tasks: numberedTaskId === null ? 0 : 1,
    type: event.type,
    data: JSON.stringify(event.data),
    createdAt: new Date().toISOString(),
    userIds: listParam(trx, [...new Set(event.audience)]),
  };
  const activity = event.activity && activityValues(event.activity, values.createdAt);
  // A task.updated delivery carries the change's fields (webhooks/delivery/payload.ts shows them to its owner).
  const changes = event.type === 'task.updated' && event.activity ? { changes: event.activity.changes } : {};
  const deliveryData = JSON.stringify({ ...event.data, ...event.forWebhooks, ...changes });
  const forWebhooks = WEBHOOK_TYPES.has(event.type);
  let counters: { task_counter: number; event_counter: number };
  let queuedDeliveries: boolean;
  if (chainsWrites(trx)) {
    const statement = !forWebhooks
      ? recordTeamEventInOneStatement
      : activity
        ? recordEventAndActivityInOneStatement
        : recordEventInOneStatement;
    const params = {
      ...values,
      deliveryData,
      taskId: numberedTaskId,
      activityTaskId: activity?.taskId ?? 0,
      activityActorId: activity?.actorId ?? null,
      activityKind: activity?.kind ?? '',
      activityChanges: activity?.changes ?? '',
    };
    const [row] = (await statement(trx, params)) as [typeof counters & { queued_deliveries: boolean | number }];
    counters = row;
    queuedDeliveries = Boolean(row.queued_deliveries);
  } else {
    if (activity) await insertActivityRow(trx, activity);
    const [bumped] = await bumpCounters(trx, values);
    counters = bumped!;
    if (numberedTaskId !== null) await numberTask(trx, { taskId: numberedTaskId, number: counters.task_counter });
    const [inserted] = await insertEvent(trx, { ...values, seq: counters.event_counter });
    await insertRecipients(trx, { eventId: inserted!.id, userIds: values.userIds });
    queuedDeliveries =
      forWebhooks &&
      Boolean(bumped!.has_webhooks) &&
      (await insertDeliveriesForEvent(trx, { ...values, data: deliveryData, eventId: inserted!.id })).length > 0;
  }
  // A team without webhooks queues none, and so wakes no delivery worker (changes/bus.ts).
  afterCommit(trx, () => committedChanges.publish({ teamId: event.teamId, queuedDeliveries }));
  return Number(counters.task_counter);
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
