/**
 * The realtime outbox. An event row, and the list of users allowed to see it, are written in
 * the same transaction as the change they announce; streams read them from here, so an event
 * exists exactly when its change committed, and a client that reconnects can catch up.
 */
import { sql, type QueryCreator } from 'kysely';
import { CHANGE_EVENT_TYPES, type StreamEventType } from '../contract/enums.js';
import { afterCommit } from '../storage/database.js';
import { chainsWrites, inList, listPairs, listParam, listValues, type ListParam } from '../storage/dialect.js';
import { prepared } from '../storage/prepared.js';
import type { Db, Tables } from '../storage/schema.js';
import { activityValues, insertActivity, type NewActivity } from './activity-entries.js';
import { deliveriesOf, enqueueMail } from './notification-mail.js';
import { NOTIFICATION_CREATED, type NewNotifications } from './notifications.js';
import { committedChanges } from './publisher.js';
import { deliveriesForEvent, insertDeliveriesForEvent } from './webhook-deliveries.js';

export type EventType = StreamEventType;

/**
 * Who may see an event, decided in its change's transaction: these users, and the members of
 * these list snapshots (migration 0020; tasks/access.ts makes them). A list's members are named
 * by its snapshot, so an event of a list of 2,000 stores one row for them, not 2,000.
 */
export interface Audience {
  users: readonly string[];
  listAudiences: readonly number[];
}

export const NO_AUDIENCE: Audience = { users: [], listAudiences: [] };

/** An audience of these users alone (a team's events: its members). */
export const usersAudience = (users: Iterable<string>): Audience => ({ users: [...users], listAudiences: [] });

/** Everyone in any of the audiences. */
export function joinAudiences(...audiences: Audience[]): Audience {
  return {
    users: [...new Set(audiences.flatMap((a) => a.users))],
    listAudiences: [...new Set(audiences.flatMap((a) => a.listAudiences))],
  };
}

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
    | { taskId: number; attachmentId: number }
    | { taskId: number; userId: string }
    | { statusId: number }
    | { labelId: number }
    | { teamId: string }
    | { userId: string }
    | { invitationId: string }
    | { notificationId: number }
    | { importId: number }
    | { read: boolean };
  /**
   * Added to the data of the event's webhook deliveries only (not to the event stream's): what a
   * webhook sends of an object that is gone, a deleted task's number.
   */
  forWebhooks?: { number: number };
  /** Who may read the object (for a deletion: who could just before). */
  audience: Audience;
  /**
   * The task's activity entry for this change (activity-entries.ts), written with the event:
   * in the same statement on PostgreSQL, so recording it costs no round trip.
   */
  activity?: NewActivity;
  /**
   * The people this change notifies (notifications.ts decides who), written with the event: one
   * `notifications` row each, and one `notification.created` event each, addressed to that person
   * alone. In the same statement on PostgreSQL; none: no statement at all.
   */
  notifications?: NewNotifications;
}

export interface StoredEvent {
  seq: number;
  type: string;
  data: string;
  recipients: Recipients;
}

/** Whether a user is among an event's recipients. */
export interface Recipients {
  has(userId: string): boolean;
}

/** An event's recipients: the users it names, and the members of the list snapshots it names. */
class EventRecipients implements Recipients {
  readonly users = new Set<string>();
  readonly lists: ReadonlySet<string>[] = [];
  has(userId: string): boolean {
    return this.users.has(userId) || this.lists.some((members) => members.has(userId));
  }
}

/** At least this many events per team, or this much time, stays available for resuming. */
export const RETENTION = { perTeam: 1000, maxAgeMs: 60 * 60 * 1000 } as const;

/**
 * Bumps the team's event counter by `events` (the change's event and its notices), and its task
 * counter by `tasks`: takes the team row's lock.
 */
const updateCounters = (db: QueryCreator<Tables>, p: { teamId: string; tasks: number; events: number }) =>
  db
    .updateTable('teams')
    .set((eb) => ({
      task_counter: eb('task_counter', '+', p.tasks),
      event_counter: eb('event_counter', '+', p.events),
    }))
    .where('id', '=', p.teamId)
    .returning(['task_counter', 'event_counter']);

/**
 * `updateCounters`, and whether the team has an enabled webhook: a team without one has no
 * delivery to queue, so the change skips that statement (`record`). Read here, under SQLite's one
 * write lock, which this transaction holds to its commit (`begin immediate`, database.ts): every
 * webhook committed before the change is seen, and none can be created until it commits.
 */
const bumpCounters = prepared((db, p: { teamId: string; tasks: number; events: number }) =>
  updateCounters(db, p).returning((eb) =>
    eb
      .exists(
        eb.selectFrom('webhooks as w').select('w.id').whereRef('w.team_id', '=', 'teams.id').where('w.enabled', '=', 1),
      )
      .as('has_webhooks'),
  ),
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

const insertEventAudiences = prepared((db, p: { eventId: number; audienceIds: ListParam }) =>
  db
    .insertInto('event_audiences')
    .columns(['event_id', 'audience_id'])
    .expression(
      db
        .selectFrom(listValues(db, p.audienceIds))
        .select((eb) => [
          eb.cast(eb.val(p.eventId), 'integer').as('event_id'),
          sql<number>`cast(${sql.ref('v.value')} as integer)`.as('audience_id'),
        ]),
    ),
);

/** The change's notifications, one row per person (SQLite; PostgreSQL folds it into the one statement). */
const insertNotifications = prepared((db, p: NoticeParams & { teamId: string; createdAt: string }) =>
  db
    .insertInto('notifications')
    .columns(['team_id', 'user_id', 'task_id', 'kind', 'actor_id', 'created_at', 'late'])
    .expression(noticeRows(db, db, p))
    .returning(['id', 'user_id']),
);

/** A `notification.created` event for each of the notifications, numbered after `lastSeq` in id order. */
const insertNoticeEvents = prepared((db, p: { teamId: string; lastSeq: number; ids: ListParam; createdAt: string }) =>
  db
    .insertInto('events')
    .columns(['team_id', 'seq', 'type', 'data', 'created_at'])
    .expression(
      db
        .selectFrom('notifications as n')
        .select((eb) => [
          eb.cast(eb.val(p.teamId), 'text').as('team_id'),
          sql<number>`cast(${p.lastSeq} as integer) + row_number() over (order by ${sql.ref('n.id')})`.as('seq'),
          sql<string>`${NOTIFICATION_CREATED}`.as('type'),
          noticeData('n.id').as('data'),
          eb.cast(eb.val(p.createdAt), 'text').as('created_at'),
        ])
        .where(inList(db, 'n.id', p.ids)),
    )
    .returning(['id', 'data']),
);

const insertRecipientPairs = prepared((db, p: { eventIds: ListParam; userIds: ListParam }) =>
  db
    .insertInto('event_recipients')
    .columns(['event_id', 'user_id'])
    .expression(
      db
        .selectFrom(listPairs(db, p.eventIds, p.userIds))
        .select([sql<number>`cast(${sql.ref('v.first')} as integer)`.as('event_id'), 'v.second as user_id']),
    ),
);

/** A notice event's data, `{"notificationId": <id>}`, from the notification's id column. */
const noticeData = (idColumn: string) => sql<string>`'{"notificationId":' || ${sql.ref(idColumn)} || '}'`;

/** The notifications' parameters: their recipients and kinds, paired by position (listParams). */
type NoticeParams = {
  noticeUsers: ListParam;
  noticeKinds: ListParam;
  noticeTaskId: number;
  noticeActorId: string | null;
  /** 1: the notifications are reminders fired late. */
  noticeLate: number;
};

/**
 * The notifications' rows, for an INSERT … SELECT (`root`: the database the statement runs on).
 * `afterLock`: a part of the outbox's one statement, reading its `team` part so that PostgreSQL
 * allocates the notifications' ids under the team row's lock, in commit order (as deliveries').
 */
const noticeRows = (
  root: Db,
  db: QueryCreator<any>,
  p: NoticeParams & { teamId: string; createdAt: string },
  afterLock = false,
) =>
  (afterLock
    ? db.selectFrom(listPairs(root, p.noticeUsers, p.noticeKinds)).crossJoin('team')
    : db.selectFrom(listPairs(root, p.noticeUsers, p.noticeKinds))
  ).select((eb: any) => [
    eb.cast(eb.val(p.teamId), 'text').as('team_id'),
    'v.first as user_id',
    eb.cast(eb.val(p.noticeTaskId), 'integer').as('task_id'),
    'v.second as kind',
    eb.cast(eb.val(p.noticeActorId), 'text').as('actor_id'),
    eb.cast(eb.val(p.createdAt), 'text').as('created_at'),
    eb.cast(eb.val(p.noticeLate), 'integer').as('late'),
  ]);

type OneStatementValues = {
  teamId: string;
  tasks: number;
  /** 1 + the change's notifications: each has an event of its own, numbered after the change's. */
  events: number;
  notices: number;
  taskId: number | null;
  type: string;
  data: string;
  createdAt: string;
  userIds: ListParam;
  /** The list snapshots of the event's audience (listParam). */
  audienceIds: ListParam;
  /** The data of the event's webhook deliveries (webhook-deliveries.ts), JSON. */
  deliveryData: string;
};

/** An activity entry's values as parameters of their own (a prepared query's parameters are flat). */
type ActivityParams = {
  activityTaskId: number;
  activityActorId: string | null;
  activityKind: string;
  activityChanges: string;
  activityVia: string | null;
};

/**
 * The same writes as `bumpCounters`, `insertEvent` and `insertRecipients`, and the new task's
 * number (dialect.ts, `numberAtInsert`) (and,
 * `withActivity`, the change's activity entry; `withDeliveries`, its webhook deliveries), in one
 * statement (see `chainsWrites`).
 */
const recordInOneStatement = (withActivity: boolean, withDeliveries = true, withNotifications = false) =>
  prepared((db, p: OneStatementValues & ActivityParams & NoticeParams) => {
    const activity = {
      taskId: p.activityTaskId,
      actorId: p.activityActorId,
      kind: p.activityKind,
      changes: p.activityChanges,
      createdAt: p.createdAt,
      via: p.activityVia,
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
                  sql<number>`${sql.ref('team.event_counter')} - cast(${p.notices} as integer)`.as('seq'),
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
        .with('audiences', (cte) =>
          cte
            .insertInto('event_audiences')
            .columns(['event_id', 'audience_id'])
            .expression(
              cte
                .selectFrom(listValues(db, p.audienceIds))
                .crossJoin('event')
                .select([
                  'event.id as event_id',
                  sql<number>`cast(${sql.ref('v.value')} as integer)`.as('audience_id'),
                ]),
            ),
        )
        // Webhook deliveries, in the same statement (webhook-deliveries.ts); none for a team event.
        .with('deliveries', (cte) =>
          withDeliveries
            ? deliveriesForEvent(
                db,
                cte,
                {
                  teamId: p.teamId,
                  type: p.type,
                  data: p.deliveryData,
                  createdAt: p.createdAt,
                  userIds: p.userIds,
                  audienceIds: p.audienceIds,
                },
                true,
              ).returning('id')
            : cte
                .selectFrom('event')
                .select('event.id as id')
                .where(sql<boolean>`false`),
        )
        // The notifications, and each one's event to its recipient alone, numbered after the change's.
        .with('notified', (cte) =>
          withNotifications
            ? cte
                .insertInto('notifications')
                .columns(['team_id', 'user_id', 'task_id', 'kind', 'actor_id', 'created_at', 'late'])
                .expression(noticeRows(db, cte, p, true))
                .returning(['id', 'user_id'])
            : cte
                .selectFrom('event')
                .select(['event.id as id', sql<string>`''`.as('user_id')])
                .where(sql<boolean>`false`),
        )
        .with('notice_events', (cte) =>
          withNotifications
            ? cte
                .insertInto('events')
                .columns(['team_id', 'seq', 'type', 'data', 'created_at'])
                .expression(
                  cte
                    .selectFrom('notified')
                    .crossJoin('team')
                    .select((eb) => [
                      eb.cast(eb.val(p.teamId), 'text').as('team_id'),
                      sql<number>`${sql.ref('team.event_counter')} - cast(${p.notices} as integer) + row_number() over (order by ${sql.ref('notified.id')})`.as(
                        'seq',
                      ),
                      sql<string>`${NOTIFICATION_CREATED}`.as('type'),
                      noticeData('notified.id').as('data'),
                      eb.cast(eb.val(p.createdAt), 'text').as('created_at'),
                    ]),
                )
                .returning(['id', 'data'])
            : cte
                .selectFrom('event')
                .select(['event.id as id', sql<string>`''`.as('data')])
                .where(sql<boolean>`false`),
        )
        .with('notice_recipients', (cte) =>
          withNotifications
            ? cte
                .insertInto('event_recipients')
                .columns(['event_id', 'user_id'])
                .expression(
                  cte
                    .selectFrom('notice_events')
                    .innerJoin('notified', (join) =>
                      join.on(sql<boolean>`${sql.ref('notice_events.data')} = ${noticeData('notified.id')}`),
                    )
                    .select(['notice_events.id as event_id', 'notified.user_id as user_id']),
                )
            : cte
                .selectFrom('event')
                .select(['event.id as event_id'])
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
const recordNotifyingEventInOneStatement = recordInOneStatement(false, true, true);
const recordNotifyingEventAndActivityInOneStatement = recordInOneStatement(true, true, true);

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
 * `recordEvent` for a task created in this transaction, which bumps the team's task counter in
 * the same statement, under the same lock, so numbers have no gaps; on PostgreSQL that statement
 * also gives the task its number (dialect.ts, `numberAtInsert`). Returns the number.
 */
export async function recordTaskCreated(trx: Db, taskId: number, event: NewEvent): Promise<number> {
  return record(trx, event, taskId);
}

async function record(trx: Db, event: NewEvent, numberedTaskId: number | null): Promise<number> {
  const notices = await noticesKept(trx, event);
  const values = {
    teamId: event.teamId,
    tasks: numberedTaskId === null ? 0 : 1,
    events: 1 + notices.length,
    notices: notices.length,
    type: event.type,
    data: JSON.stringify(event.data),
    createdAt: new Date().toISOString(),
    userIds: listParam(trx, [...new Set(event.audience.users)]),
    audienceIds: listParam(trx, [...new Set(event.audience.listAudiences)]),
  };
  const hasListAudiences = event.audience.listAudiences.length > 0;
  const activity = event.activity && activityValues(event.activity, values.createdAt);
  // A task.updated delivery carries the change's fields (webhooks/delivery/payload.ts shows them to its owner).
  const changes = event.type === 'task.updated' && event.activity ? { changes: event.activity.changes } : {};
  const deliveryData = JSON.stringify({ ...event.data, ...event.forWebhooks, ...changes });
  const forWebhooks = WEBHOOK_TYPES.has(event.type);
  let counters: { task_counter: number; event_counter: number };
  let queuedDeliveries: boolean;
  const noticeParams: NoticeParams = {
    noticeUsers: listParam(
      trx,
      notices.map((n) => n.userId),
    ),
    noticeKinds: listParam(
      trx,
      notices.map((n) => n.kind),
    ),
    noticeTaskId: event.notifications?.taskId ?? 0,
    noticeActorId: event.notifications?.actorId ?? null,
    noticeLate: event.notifications?.late ? 1 : 0,
  };
  if (chainsWrites(trx)) {
    const statement = !forWebhooks
      ? recordTeamEventInOneStatement
      : notices.length > 0
        ? activity
          ? recordNotifyingEventAndActivityInOneStatement
          : recordNotifyingEventInOneStatement
        : activity
          ? recordEventAndActivityInOneStatement
          : recordEventInOneStatement;
    const params = {
      ...values,
      ...noticeParams,
      deliveryData,
      taskId: numberedTaskId,
      activityTaskId: activity?.taskId ?? 0,
      activityActorId: activity?.actorId ?? null,
      activityKind: activity?.kind ?? '',
      activityChanges: activity?.changes ?? '',
      activityVia: activity?.via ?? null,
    };
    const [row] = (await statement(trx, params)) as [typeof counters & { queued_deliveries: boolean | number }];
    counters = row;
    queuedDeliveries = Boolean(row.queued_deliveries);
  } else {
    if (activity) await insertActivityRow(trx, activity);
    const [bumped] = await bumpCounters(trx, values);
    counters = bumped!;
    const [inserted] = await insertEvent(trx, { ...values, seq: counters.event_counter - notices.length });
    await insertRecipients(trx, { eventId: inserted!.id, userIds: values.userIds });
    if (hasListAudiences) await insertEventAudiences(trx, { eventId: inserted!.id, audienceIds: values.audienceIds });
    if (notices.length > 0) {
      await recordNotices(trx, { ...values, ...noticeParams, lastSeq: counters.event_counter - notices.length });
    }
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
 * The change's notifications that their recipients keep (a kind someone turned `off` is not
 * written), with the mail of those who want it by email queued in the transaction, before the
 * team row's lock (notification-mail.ts). Nothing is read for a change that notifies no one.
 */
async function noticesKept(trx: Db, event: NewEvent): Promise<NewNotifications['recipients']> {
  const notifications = event.notifications;
  if (!notifications || notifications.recipients.length === 0) return [];
  const now = new Date();
  const { kept, mailed, batchMs } = await deliveriesOf(trx, notifications.recipients, now);
  const mail = mailed.map((r) => ({
    userId: r.userId,
    teamId: event.teamId,
    kind: r.kind,
    taskId: notifications.taskId,
    actorId: notifications.actorId,
  }));
  await enqueueMail(trx, mail, now, batchMs);
  return kept;
}

/**
 * SQLite: the notifications, then an event of each to its recipient, numbered after the change's
 * event (`lastSeq`): three statements, run only when the change notifies someone.
 */
async function recordNotices(
  trx: Db,
  p: NoticeParams & { teamId: string; createdAt: string; lastSeq: number },
): Promise<void> {
  const notified = await insertNotifications(trx, p);
  const recipientOf = new Map(notified.map((n) => [n.id, n.user_id]));
  const events = await insertNoticeEvents(trx, {
    teamId: p.teamId,
    lastSeq: p.lastSeq,
    ids: listParam(
      trx,
      notified.map((n) => n.id),
    ),
    createdAt: p.createdAt,
  });
  const eventIds: number[] = [];
  const userIds: string[] = [];
  for (const e of events) {
    eventIds.push(e.id);
    userIds.push(recipientOf.get((JSON.parse(e.data) as { notificationId: number }).notificationId)!);
  }
  await insertRecipientPairs(trx, { eventIds: listParam(trx, eventIds), userIds: listParam(trx, userIds) });
}

/**
 * Up to `limit` of the team's events after `afterSeq` (and up to `through`, if given), oldest
 * first, each with who may see it. With `userId`, only that user's events.
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
    query = query.where(({ exists, or, selectFrom }) =>
      or([
        exists(
          selectFrom('event_recipients as r')
            .select('r.user_id')
            .whereRef('r.event_id', '=', 'e.id')
            .where('r.user_id', '=', userId),
        ),
        exists(
          selectFrom('event_audiences as ea')
            .innerJoin('list_audience_members as am', 'am.audience_id', 'ea.audience_id')
            .select('am.user_id')
            .whereRef('ea.event_id', '=', 'e.id')
            .where('am.user_id', '=', userId),
        ),
      ]),
    );
  }
  const rows = await query.orderBy('e.seq').limit(options.limit).execute();
  const events = rows.map((row) => ({
    seq: row.seq,
    type: row.type,
    data: row.data,
    recipients: new EventRecipients(),
  }));
  if (options.userId) {
    for (const event of events) event.recipients.users.add(options.userId);
    return events;
  }
  if (rows.length === 0) return events;

  const byId = new Map(rows.map((row, i) => [row.id, events[i]!]));
  const ids = rows.map((row) => row.id);
  const named: { event_id: number; audience_id: number }[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    const page = ids.slice(i, i + 500);
    const [recipients, audiences] = await Promise.all([
      db.selectFrom('event_recipients').select(['event_id', 'user_id']).where('event_id', 'in', page).execute(),
      db.selectFrom('event_audiences').select(['event_id', 'audience_id']).where('event_id', 'in', page).execute(),
    ]);
    for (const r of recipients) byId.get(r.event_id)!.recipients.users.add(r.user_id);
    named.push(...audiences);
  }
  if (named.length > 0) {
    const members = await snapshotMembers(db, [...new Set(named.map((a) => a.audience_id))]);
    for (const a of named) byId.get(a.event_id)!.recipients.lists.push(members.get(a.audience_id)!);
  }
  return events;
}

/**
 * Members of list snapshots already read, by database and snapshot id. A snapshot never
 * changes and its id is never reused (migration 0020), so what was read stays true in every
 * process; the cache forgets its oldest snapshots past `SNAPSHOT_CACHE_MEMBERS` members in all.
 */
const snapshotCache = new WeakMap<object, { members: Map<number, ReadonlySet<string>>; size: number }>();
const SNAPSHOT_CACHE_MEMBERS = 200_000;

async function snapshotMembers(db: Db, audienceIds: number[]): Promise<Map<number, ReadonlySet<string>>> {
  let cache = snapshotCache.get(db);
  if (!cache) snapshotCache.set(db, (cache = { members: new Map(), size: 0 }));
  const found = new Map<number, ReadonlySet<string>>();
  const missing: number[] = [];
  for (const id of audienceIds) {
    const members = cache.members.get(id);
    if (members) found.set(id, members);
    else missing.push(id);
  }
  for (let i = 0; i < missing.length; i += 500) {
    const page = missing.slice(i, i + 500);
    const rows = await db
      .selectFrom('list_audience_members')
      .select(['audience_id', 'user_id'])
      .where('audience_id', 'in', page)
      .execute();
    const read = new Map<number, Set<string>>(page.map((id) => [id, new Set()]));
    for (const row of rows) read.get(row.audience_id)!.add(row.user_id);
    for (const [id, members] of read) {
      found.set(id, members);
      cache.members.set(id, members);
      cache.size += members.size;
    }
  }
  for (const [id, members] of cache.members) {
    if (cache.size <= SNAPSHOT_CACHE_MEMBERS) break;
    cache.members.delete(id);
    cache.size -= members.size;
  }
  return found;
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

/** How long a superseded list snapshot is kept, at least (pruneEvents). */
const SNAPSHOT_GRACE_MS = 10 * 60 * 1000;

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
  // Then the list snapshots that no event names and that stopped being their list's current one
  // long enough ago that no transaction still holds one it read as current.
  const superseded = new Date(now - SNAPSHOT_GRACE_MS).toISOString();
  await db
    .deleteFrom('list_audiences')
    .where((eb) => eb.or([eb('superseded_at', '<', superseded), eb('superseded_at', 'is', null)]))
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('event_audiences as ea')
            .select('ea.audience_id')
            .whereRef('ea.audience_id', '=', 'list_audiences.id'),
        ),
      ),
    )
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('list_current_audiences as c')
            .select('c.audience_id')
            .whereRef('c.audience_id', '=', 'list_audiences.id'),
        ),
      ),
    )
    .execute();
  return Number(result.numDeletedRows);
}
