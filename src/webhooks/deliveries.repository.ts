/**
 * webhook_deliveries and webhook_attempts as the API reads and nudges them: an endpoint's log (a
 * page of summaries, without bodies), one delivery whole, a test delivery, a manual retry. The worker's side of the same tables is queue.repository.ts.
 */
import type { Selectable } from 'kysely';
import { MAX_ID } from '../contract/index.js';
import { inList, listParam } from '../storage/dialect.js';
import type { Db, WebhookAttemptsTable, WebhookDeliveriesTable } from '../storage/schema.js';

export interface AttemptRecord {
  attemptedAt: string;
  durationMs: number;
  status: number | null;
  responseBody: string | null;
  error: string | null;
  nextAttemptAt: string | null;
}

/** A delivery as its webhook's log lists it: without its body, with its newest attempt. */
export interface DeliverySummaryRecord {
  id: number;
  type: string;
  status: WebhookDeliveriesTable['status'];
  occurredAt: string;
  nextAttemptAt: string;
  /** Set while a worker is sending it. */
  lockedUntil: string | null;
  finishedAt: string | null;
  /** The attempts logged (kept 30 days). */
  attemptCount: number;
  lastAttempt: AttemptRecord | null;
}

/** One delivery whole: its body and its attempts, newest first (at most MAX_ATTEMPTS_SHOWN). */
export interface DeliveryRecord extends DeliverySummaryRecord {
  payload: string | null;
  attempts: AttemptRecord[];
}

/**
 * Most attempts one delivery's read shows, newest first: a delivery retried by hand again and
 * again logs attempts without end (each with up to 4 KB of the answer), and one read must stay
 * small. `attemptCount` still counts them all.
 */
export const MAX_ATTEMPTS_SHOWN = 100;

const SUMMARY_COLUMNS = [
  'id',
  'type',
  'status',
  'occurred_at',
  'next_attempt_at',
  'locked_until',
  'finished_at',
] as const;

type SummaryRow = Pick<WebhookDeliveriesTable, Exclude<(typeof SUMMARY_COLUMNS)[number], 'id'>> & { id: number };

const toAttempt = (a: Selectable<WebhookAttemptsTable>): AttemptRecord => ({
  attemptedAt: a.attempted_at,
  durationMs: a.duration_ms,
  status: a.status_code,
  responseBody: a.response_body,
  error: a.error,
  nextAttemptAt: a.next_attempt_at,
});

const toSummary = (
  row: SummaryRow,
  attemptCount: number,
  lastAttempt: AttemptRecord | null,
): DeliverySummaryRecord => ({
  id: row.id,
  type: row.type,
  status: row.status,
  occurredAt: row.occurred_at,
  nextAttemptAt: row.next_attempt_at,
  lockedUntil: row.locked_until,
  finishedAt: row.finished_at,
  attemptCount,
  lastAttempt,
});

/** How many attempts each delivery has logged, and its newest: two reads of the attempts' index, whatever the log's length. */
async function attemptsSummary(
  db: Db,
  deliveryIds: readonly number[],
): Promise<Map<number, { count: number; last: AttemptRecord }>> {
  const summary = new Map<number, { count: number; last: AttemptRecord }>();
  if (deliveryIds.length === 0) return summary;
  const counts = await db
    .selectFrom('webhook_attempts')
    .select((eb) => ['delivery_id', eb.fn.countAll<number | string>().as('count'), eb.fn.max('id').as('last_id')])
    .where(inList(db, 'delivery_id', listParam(db, deliveryIds)))
    .groupBy('delivery_id')
    .execute();
  if (counts.length === 0) return summary;
  const lastIds = counts.map((c) => Number(c.last_id));
  const lasts = await db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where(inList(db, 'id', listParam(db, lastIds)))
    .execute();
  const lastById = new Map(lasts.map((a) => [a.id, a]));
  for (const c of counts) {
    const last = lastById.get(Number(c.last_id));
    if (last) summary.set(c.delivery_id, { count: Number(c.count), last: toAttempt(last) });
  }
  return summary;
}

/**
 * The webhook's deliveries, newest first, with ids below `before`: up to `limit` + 1 of them (so
 * the caller knows whether more remain), without their bodies, each with its newest attempt. Each
 * summary is small (an attempt keeps at most 4 KB of the answer), so a page of them is too.
 */
export async function listDeliveries(
  db: Db,
  webhookId: string,
  page: { limit: number; before?: number },
): Promise<DeliverySummaryRecord[]> {
  let query = db.selectFrom('webhook_deliveries').select(SUMMARY_COLUMNS).where('webhook_id', '=', webhookId);
  // A cursor beyond every id there can be (an integer column's) stands after all of them.
  if (page.before !== undefined && page.before <= MAX_ID) query = query.where('id', '<', page.before);
  const rows = (await query
    .orderBy('id', 'desc')
    .limit(page.limit + 1)
    .execute()) as SummaryRow[];
  const attempts = await attemptsSummary(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => {
    const logged = attempts.get(row.id);
    return toSummary(row, logged?.count ?? 0, logged?.last ?? null);
  });
}

/** One of the webhook's deliveries, whole: its body, and its newest MAX_ATTEMPTS_SHOWN attempts. */
export async function findDelivery(db: Db, webhookId: string, id: number): Promise<DeliveryRecord | undefined> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select([...SUMMARY_COLUMNS, 'payload'])
    .where('webhook_id', '=', webhookId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) return undefined;
  const attempts = (
    await db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where('delivery_id', '=', id)
      .orderBy('id', 'desc')
      .limit(MAX_ATTEMPTS_SHOWN)
      .execute()
  ).map(toAttempt);
  const logged = attempts.length < MAX_ATTEMPTS_SHOWN ? attempts.length : await countAttempts(db, id);
  return { ...toSummary(row as SummaryRow, logged, attempts[0] ?? null), payload: row.payload, attempts };
}

async function countAttempts(db: Db, deliveryId: number): Promise<number> {
  const { count } = await db
    .selectFrom('webhook_attempts')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('delivery_id', '=', deliveryId)
    .executeTakeFirstOrThrow();
  return Number(count);
}

/** Queues a delivery that is no event: POST /v1/webhooks/{id}/test. */
export async function insertTestDelivery(
  db: Db,
  input: { webhookId: string; type: string; data: string; now: string },
): Promise<number> {
  const row = await db
    .insertInto('webhook_deliveries')
    .values({
      webhook_id: input.webhookId,
      event_id: null,
      type: input.type,
      data: input.data,
      occurred_at: input.now,
      payload: null,
      status: 'pending',
      first_attempt_at: null,
      next_attempt_at: input.now,
      locked_until: null,
      finished_at: null,
      created_at: input.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/**
 * Sends the delivery again as soon as its turn comes: pending again, due now, with a fresh
 * series of retries (`attempt_count` counts the attempts of the current series). False when a worker is sending it right now (its lease has not run out).
 */
export async function requeueDelivery(db: Db, id: number, now: string): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: now, attempt_count: 0, first_attempt_at: null, finished_at: null })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Makes the webhook's waiting retries due now: after it is enabled again, or a test is asked
 * for, its owner believes the endpoint works, so there is no point in waiting out the backoff.
 */
export async function retryWaitingNow(db: Db, webhookId: string, now: string): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: now })
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '>', now)
    .execute();
}
