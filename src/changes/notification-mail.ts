/**
 * What a change's notifications mean beyond the inbox (issue 30, email): each person's choice per
 * kind (`notification_preferences`; a kind without a row has its default) decides whether the
 * notification is kept at all (`off`: not) and whether it is also mailed (`inboxAndEmail`). Mail
 * is queued in the change's own transaction (`mail_queue`, sent by mail/worker.ts), and only while
 * some process sends mail (`mail_senders`): a server without SMTP_URL queues none.
 *
 * One read decides both, made only when the change notifies someone; one insert queues the mail,
 * made only when someone is to be mailed. Neither is under the team row's lock: they come before
 * the outbox's last statement.
 */
import { sql } from 'kysely';
import { DEFAULT_DELIVERY, type NotificationDelivery, type NotificationKind } from '../contract/enums.js';
import { inList, listParam } from '../storage/dialect.js';
import type { Db } from '../storage/schema.js';

export interface Notified {
  userId: string;
  kind: NotificationKind;
}

/** Who keeps a notification, and who of them is also mailed, with the batch window mail waits for. */
export interface NotificationDeliveries<T extends Notified> {
  kept: T[];
  mailed: T[];
  batchMs: number;
}

/** Sorts `recipients` by their choices: `off` dropped, `inboxAndEmail` also mailed while mail is sent. */
export async function deliveriesOf<T extends Notified>(
  db: Db,
  recipients: readonly T[],
  now: Date,
): Promise<NotificationDeliveries<T>> {
  if (recipients.length === 0) return { kept: [], mailed: [], batchMs: 0 };
  const userIds = [...new Set(recipients.map((r) => r.userId))];
  const rows = await db
    .selectFrom('notification_preferences')
    .select([
      'user_id',
      'kind',
      'delivery',
      sql<string | null>`null`.as('sending_until'),
      sql<number | null>`null`.as('batch_ms'),
    ])
    .where(inList(db, 'user_id', listParam(db, userIds)))
    .unionAll(
      db
        .selectFrom('mail_senders')
        .select([
          sql<string>`''`.as('user_id'),
          sql<string>`''`.as('kind'),
          sql<string>`''`.as('delivery'),
          'sending_until',
          'batch_ms',
        ])
        .where('id', '=', 1),
    )
    .execute();
  const chosen = new Map<string, NotificationDelivery>();
  let sender: { until: string; batchMs: number } | undefined;
  for (const row of rows) {
    if (row.sending_until !== null) sender = { until: row.sending_until, batchMs: Number(row.batch_ms) };
    else chosen.set(`${row.user_id} ${row.kind}`, row.delivery as NotificationDelivery);
  }
  const deliveryOf = (r: T) => chosen.get(`${r.userId} ${r.kind}`) ?? DEFAULT_DELIVERY[r.kind];
  const kept = recipients.filter((r) => deliveryOf(r) !== 'off');
  const sending = sender !== undefined && sender.until > now.toISOString();
  return {
    kept,
    mailed: sending ? kept.filter((r) => deliveryOf(r) === 'inboxAndEmail') : [],
    batchMs: sender?.batchMs ?? 0,
  };
}

/** A notification to be mailed: to whom, about which task, by whom. */
export interface MailItem {
  userId: string;
  teamId: string;
  kind: NotificationKind;
  taskId: number;
  actorId: string | null;
}

/** Queues `items`, each due after the batch window; written in the caller's transaction. */
export async function enqueueMail(db: Db, items: readonly MailItem[], now: Date, batchMs: number): Promise<void> {
  if (items.length === 0) return;
  const createdAt = now.toISOString();
  const due = new Date(now.getTime() + batchMs).toISOString();
  await db
    .insertInto('mail_queue')
    .values(
      items.map((item) => ({
        user_id: item.userId,
        team_id: item.teamId,
        kind: item.kind,
        task_id: item.taskId,
        actor_id: item.actorId,
        created_at: createdAt,
        status: 'pending' as const,
        next_attempt_at: due,
      })),
    )
    .execute();
}
