/**
 * A person's inbox (migration 0021): SQL in, records out. Every read takes the reader's user and
 * team, and keeps only notifications about tasks the reader may read now (the task-access rule,
 * tasks/access.ts), so a task that left their view takes its notifications, and its title, with it.
 */

import type { NotificationKind } from '../contract/index.js';
import type { Db } from '../storage/schema.js';
import { canAccess } from '../tasks/access.js';

export interface NotificationRecord {
  id: number;
  kind: NotificationKind;
  task: { id: number; number: number; title: string };
  actor: { id: string; name: string } | null;
  createdAt: string;
  readAt: string | null;
  late: boolean;
  archived: boolean;
}

export interface Reader {
  userId: string;
  teamId: string;
}

/** The reader's notifications about tasks they may read now. */
function visible(db: Db, reader: Reader) {
  return db
    .selectFrom('notifications as n')
    .innerJoin('tasks as t', 't.id', 'n.task_id')
    .leftJoin('users as a', 'a.id', 'n.actor_id')
    .select([
      'n.id',
      'n.kind',
      'n.created_at',
      'n.read_at',
      'n.late',
      'n.archived_at',
      't.id as task_id',
      't.number as task_number',
      't.title as task_title',
      'a.id as actor_id',
      'a.name as actor_name',
    ])
    .where('n.user_id', '=', reader.userId)
    .where('n.team_id', '=', reader.teamId)
    .where((eb) => canAccess(eb as unknown as Parameters<typeof canAccess>[0], reader.userId) as never);
}

type Row = Awaited<ReturnType<ReturnType<typeof visible>['executeTakeFirstOrThrow']>>;

const toRecord = (row: Row): NotificationRecord => ({
  id: row.id,
  kind: row.kind as NotificationKind,
  task: { id: row.task_id, number: row.task_number, title: row.task_title },
  actor: row.actor_id ? { id: row.actor_id, name: row.actor_name! } : null,
  createdAt: row.created_at,
  readAt: row.read_at,
  late: row.late === 1,
  archived: row.archived_at !== null,
});

/**
 * Up to `limit` notifications with ids up to `through`, newest first, unarchived (and, with
 * `unread`, unread): one range of (user_id, team_id, id), or of its unread part.
 */
export async function inboxPage(
  db: Db,
  reader: Reader,
  options: { through: number; limit: number; unread: boolean },
): Promise<NotificationRecord[]> {
  const rows = await inboxQuery(db, reader, options).execute();
  return rows.map(toRecord);
}

/** The query of `inboxPage` (exported for the test of its plan: one index range, no sort). */
export function inboxQuery(db: Db, reader: Reader, options: { through: number; limit: number; unread: boolean }) {
  let query = visible(db, reader).where('n.archived_at', 'is', null).where('n.id', '<=', options.through);
  if (options.unread) query = query.where('n.read_at', 'is', null);
  return query.orderBy('n.id', 'desc').limit(options.limit);
}

/** The reader's notification, if it is theirs and about a task they may read now (archived or not). */
export async function findNotification(db: Db, reader: Reader, id: number): Promise<NotificationRecord | undefined> {
  const row = await visible(db, reader).where('n.id', '=', id).executeTakeFirst();
  return row && toRecord(row);
}

/** Sets when the notification was read (null: unread) and archived, where given. */
export async function updateNotification(
  db: Db,
  reader: Reader,
  id: number,
  change: { readAt?: string | null; archivedAt?: string | null },
): Promise<void> {
  const set: { read_at?: string | null; archived_at?: string | null } = {};
  if (change.readAt !== undefined) set.read_at = change.readAt;
  if (change.archivedAt !== undefined) set.archived_at = change.archivedAt;
  await db
    .updateTable('notifications')
    .set(set)
    .where('id', '=', id)
    .where('user_id', '=', reader.userId)
    .where('team_id', '=', reader.teamId)
    .execute();
}

/**
 * Marks every unarchived notification of the inbox read (`readAt`) or unread (null), those about
 * tasks the reader may no longer read aside; answers how many changed.
 */
export async function markAll(db: Db, reader: Reader, readAt: string | null): Promise<number> {
  const result = await db
    .updateTable('notifications as n')
    .set({ read_at: readAt })
    .where('n.user_id', '=', reader.userId)
    .where('n.team_id', '=', reader.teamId)
    .where('n.archived_at', 'is', null)
    .where('n.read_at', readAt === null ? 'is not' : 'is', null)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('tasks as t')
          .select('t.id')
          .whereRef('t.id', '=', 'n.task_id')
          .where((eb) => canAccess(eb as unknown as Parameters<typeof canAccess>[0], reader.userId) as never),
      ),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Whether the user follows the task: their own choice where they made one (`task_followers`),
 * else whether they created it or are assigned to it.
 */
export async function isFollowing(db: Db, taskId: number, userId: string): Promise<boolean> {
  const row = await db
    .selectFrom('tasks as t')
    .leftJoin('task_followers as f', (join) => join.onRef('f.task_id', '=', 't.id').on('f.user_id', '=', userId))
    .select((eb) => [
      'f.following',
      't.created_by',
      eb
        .exists(
          eb
            .selectFrom('task_assignees as a')
            .select('a.user_id')
            .whereRef('a.task_id', '=', 't.id')
            .where('a.user_id', '=', userId),
        )
        .as('assigned'),
    ])
    .where('t.id', '=', taskId)
    .executeTakeFirst();
  if (!row) return false;
  if (row.following !== null) return row.following === 1;
  return row.created_by === userId || Boolean(row.assigned);
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** How long notifications stay: read or archived ones 90 days, any one a year. */
export const NOTIFICATION_RETENTION = { readMs: 90 * DAY_MS, anyMs: 365 * DAY_MS } as const;
/** Ids one delete covers: a short statement each, so SQLite's writers wait little. */
const PRUNE_RANGE = 10_000;

/**
 * Deletes the notifications past their retention, oldest first, a range of ids at a time (ids
 * follow creation, so the walk stops at the first range younger than 90 days, by the primary
 * key, without an index of its own). Answers how many it deleted.
 */
export async function pruneNotifications(db: Db, now = Date.now()): Promise<number> {
  const readBefore = new Date(now - NOTIFICATION_RETENTION.readMs).toISOString();
  const anyBefore = new Date(now - NOTIFICATION_RETENTION.anyMs).toISOString();
  let deleted = 0;
  for (let from = 0; ;) {
    const first = await db
      .selectFrom('notifications')
      .select(['id', 'created_at'])
      .where('id', '>=', from)
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    if (!first || first.created_at >= readBefore) return deleted;
    from = first.id + PRUNE_RANGE;
    const result = await db
      .deleteFrom('notifications')
      .where('id', '>=', first.id)
      .where('id', '<', from)
      .where((eb) =>
        eb.or([
          eb('created_at', '<', anyBefore),
          eb.and([
            eb('created_at', '<', readBefore),
            eb.or([eb('read_at', 'is not', null), eb('archived_at', 'is not', null)]),
          ]),
        ]),
      )
      .executeTakeFirst();
    deleted += Number(result.numDeletedRows);
  }
}
