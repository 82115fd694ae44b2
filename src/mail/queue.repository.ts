/**
 * The mail queue (migration 0022): one row per notification to be mailed. A person's rows leave
 * together: once their oldest pending row is due (its batch window has passed, or its retry time
 * has come), every pending row of theirs goes in one mail. A claim is a lease (`locked_until`)
 * taken by one UPDATE, so on PostgreSQL a second process's claim of the same rows waits for the
 * first to commit and then finds them leased: no mail is sent by two processes at once. A
 * process that dies while sending loses the lease, and another sends the mail again with the
 * same Message-ID (kept from the first claim): at least once, deduplicated by the receiver.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { NotificationKind } from '../contract/enums.js';
import type { Store } from '../storage/database.js';
import type { Db } from '../storage/schema.js';
import { canAccess } from '../tasks/access.js';

/** One line of a claimed mail: a row still readable by its recipient, as it reads now. */
export interface MailLine {
  id: number;
  kind: NotificationKind;
  taskId: number;
  taskNumber: number;
  taskTitle: string;
  statusName: string;
  actorName: string | null;
  dueDate: string | null;
}

/** A person's due rows, claimed: what the mail says, and the rows it no longer may (`dropped`). */
export interface ClaimedMail {
  userId: string;
  to: { name: string; address: string };
  messageId: string;
  /** Every row claimed, sent or dropped together with the mail. */
  rowIds: number[];
  /** The rows whose task the person may still read, oldest first; the rest are dropped. */
  lines: MailLine[];
  attempt: number;
  firstAttemptAt: string;
}

const free = (now: string) => sql<boolean>`(locked_until is null or locked_until <= ${now})`;

/** The people with due mail, up to `limit`, oldest due first. */
async function dueRecipients(db: Db, now: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('mail_queue')
    .select('user_id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where(free(now))
    .groupBy('user_id')
    .orderBy(sql`min(next_attempt_at)`)
    .limit(limit)
    .execute();
  return rows.map((row) => row.user_id);
}

/** Claims the due mail of up to `limit` people; `messageDomain` names this server in new Message-IDs. */
export async function claimDueMail(
  store: Store,
  options: { now: Date; leaseMs: number; limit: number; messageDomain: string },
): Promise<ClaimedMail[]> {
  const now = options.now.toISOString();
  const leaseUntil = new Date(options.now.getTime() + options.leaseMs).toISOString();
  const claimed: ClaimedMail[] = [];
  for (const userId of await dueRecipients(store.db, now, options.limit)) {
    const mail = await store.transaction(async (trx) => {
      const rows = await trx
        .updateTable('mail_queue')
        .set((eb) => ({
          locked_until: leaseUntil,
          attempt_count: eb('attempt_count', '+', 1),
          first_attempt_at: eb.fn.coalesce('first_attempt_at', eb.val(now)),
        }))
        .where('user_id', '=', userId)
        .where('status', '=', 'pending')
        .where('created_at', '<=', now)
        .where(free(now))
        .returning(['id', 'attempt_count', 'first_attempt_at', 'message_id'])
        .execute();
      if (rows.length === 0) return undefined; // another process claimed them first
      const rowIds = rows.map((row) => row.id).sort((a, b) => a - b);
      const kept = rows.map((row) => row.message_id).filter((id): id is string => id !== null);
      const messageId = kept.sort()[0] ?? `<${randomUUID()}@${options.messageDomain}>`;
      await trx.updateTable('mail_queue').set({ message_id: messageId }).where('id', 'in', rowIds).execute();
      const person = await trx
        .selectFrom('users')
        .select(['name', 'email'])
        .where('id', '=', userId)
        .executeTakeFirst();
      if (!person) return undefined; // gone: their rows went with them
      return {
        userId,
        to: { name: person.name, address: person.email },
        messageId,
        rowIds,
        lines: await readableLines(trx, userId, rowIds),
        attempt: Math.max(...rows.map((row) => row.attempt_count)),
        firstAttemptAt: rows.map((row) => row.first_attempt_at!).sort()[0]!,
      };
    });
    if (mail) claimed.push(mail);
  }
  return claimed;
}

/**
 * The rows whose task the person may read now, in a team they are still a member of, as the
 * task reads now (its number, title and status, the actor's name). Checked at sending, not at
 * queueing: access may have ended in between, and then the mail must not name the task.
 */
async function readableLines(db: Db, userId: string, rowIds: number[]): Promise<MailLine[]> {
  const rows = await db
    .selectFrom('mail_queue as q')
    .innerJoin('tasks as t', 't.id', 'q.task_id')
    .innerJoin('task_statuses as s', 's.id', 't.status_id')
    .innerJoin('team_members as tm', (join) => join.onRef('tm.team_id', '=', 't.team_id').on('tm.user_id', '=', userId))
    .leftJoin('users as actor', 'actor.id', 'q.actor_id')
    .select([
      'q.id',
      'q.kind',
      't.id as task_id',
      't.number',
      't.title',
      's.name as status_name',
      'actor.name as actor_name',
      't.due_date',
    ])
    .where('q.id', 'in', rowIds)
    .whereRef('q.team_id', '=', 't.team_id')
    .where((eb) => canAccess(eb as never, userId))
    .orderBy('q.id')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    kind: row.kind as NotificationKind,
    taskId: row.task_id,
    taskNumber: row.number,
    taskTitle: row.title,
    statusName: row.status_name,
    actorName: row.actor_name,
    dueDate: row.due_date,
  }));
}

/** The mail was sent: its readable rows are `sent`, the others `dropped`. */
export async function recordSent(db: Db, mail: ClaimedMail, now: Date): Promise<void> {
  const sent = new Set(mail.lines.map((line) => line.id));
  for (const [status, ids] of [
    ['sent', mail.rowIds.filter((id) => sent.has(id))],
    ['dropped', mail.rowIds.filter((id) => !sent.has(id))],
  ] as const) {
    if (ids.length === 0) continue;
    await db
      .updateTable('mail_queue')
      .set({ status, finished_at: now.toISOString(), locked_until: null, last_error: null })
      .where('id', 'in', ids)
      .execute();
  }
}

/** The attempt failed: retry at `retryAt`, or give up (`retryAt` null) and leave it `failed` for operators. */
export async function recordFailure(
  db: Db,
  mail: ClaimedMail,
  error: string,
  retryAt: Date | null,
  now: Date,
): Promise<void> {
  await db
    .updateTable('mail_queue')
    .set(
      retryAt
        ? { next_attempt_at: retryAt.toISOString(), locked_until: null, last_error: error }
        : { status: 'failed', finished_at: now.toISOString(), locked_until: null, last_error: error },
    )
    .where('id', 'in', mail.rowIds)
    .execute();
}

/** Gives a claim back untried (this process is closing). */
export async function releaseMail(db: Db, mail: ClaimedMail): Promise<void> {
  await db
    .updateTable('mail_queue')
    .set((eb) => ({ locked_until: null, attempt_count: eb('attempt_count', '-', 1) }))
    .where('id', 'in', mail.rowIds)
    .execute();
}

/** When the next pending row falls due, if any is pending. */
export async function nextDue(db: Db): Promise<string | null> {
  const row = await db
    .selectFrom('mail_queue')
    .select((eb) => eb.fn.min('next_attempt_at').as('due'))
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return (row?.due as string | null | undefined) ?? null;
}

/** What `tasklane admin mail status` shows: the queue by state, and the latest failures with their reason. */
export async function mailQueueStatus(db: Db, recentFailures: number) {
  const counts = await db
    .selectFrom('mail_queue')
    .select(['status', (eb) => eb.fn.countAll<number>().as('count')])
    .groupBy('status')
    .execute();
  const oldestPending = await db
    .selectFrom('mail_queue')
    .select((eb) => eb.fn.min('created_at').as('at'))
    .where('status', '=', 'pending')
    .executeTakeFirst();
  const failures = await db
    .selectFrom('mail_queue')
    .select(['id', 'user_id', 'kind', 'task_id', 'attempt_count', 'last_error', 'finished_at'])
    .where('status', '=', 'failed')
    .orderBy('id', 'desc')
    .limit(recentFailures)
    .execute();
  const retrying = await db
    .selectFrom('mail_queue')
    .select(['id', 'user_id', 'attempt_count', 'last_error', 'next_attempt_at'])
    .where('status', '=', 'pending')
    .where('last_error', 'is not', null)
    .orderBy('id', 'desc')
    .limit(recentFailures)
    .execute();
  const count = (status: string) => Number(counts.find((row) => row.status === status)?.count ?? 0);
  return {
    pending: count('pending'),
    sent: count('sent'),
    failed: count('failed'),
    dropped: count('dropped'),
    oldestPendingAt: (oldestPending?.at as string | null | undefined) ?? null,
    retrying: retrying.map((row) => ({
      id: row.id,
      userId: row.user_id,
      attempts: row.attempt_count,
      lastError: row.last_error,
      nextAttemptAt: row.next_attempt_at,
    })),
    recentFailures: failures.map((row) => ({
      id: row.id,
      userId: row.user_id,
      kind: row.kind,
      taskId: row.task_id,
      attempts: row.attempt_count,
      error: row.last_error,
      failedAt: row.finished_at,
    })),
  };
}

/** How long a sending process's word that it sends lasts: longer than a restart, so no mail is lost to one. */
export const SENDING_WORD_MS = 15 * 60 * 1000;

/** This process sends mail, for the next SENDING_WORD_MS at least, batching by `batchMs`. */
export async function declareSending(db: Db, now: Date, batchMs: number): Promise<void> {
  const sendingUntil = new Date(now.getTime() + SENDING_WORD_MS).toISOString();
  await db
    .insertInto('mail_senders')
    .values({ id: 1, sending_until: sendingUntil, batch_ms: batchMs })
    .onConflict((conflict) => conflict.column('id').doUpdateSet({ sending_until: sendingUntil, batch_ms: batchMs }))
    .execute();
}

/** Forgets mail finished (sent, dropped or failed) more than `retentionMs` ago. */
export async function pruneMail(db: Db, retentionMs: number, now = new Date()): Promise<void> {
  const before = new Date(now.getTime() - retentionMs).toISOString();
  await db.deleteFrom('mail_queue').where('status', '!=', 'pending').where('finished_at', '<', before).execute();
}
