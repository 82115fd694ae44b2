/**
 * webhook_deliveries and webhook_attempts as the API reads and nudges them: an endpoint's log,
 * a test delivery, a manual retry. The worker's side of the same tables is queue.repository.ts.
 */
import { MAX_ID } from '../contract/index.js';
import type { Db, WebhookDeliveriesTable } from '../storage/schema.js';

export interface AttemptRecord {
  attemptedAt: string;
  durationMs: number;
  status: number | null;
  responseBody: string | null;
  error: string | null;
  nextAttemptAt: string | null;
}

export interface DeliveryRecord {
  id: number;
  type: string;
  status: WebhookDeliveriesTable['status'];
  occurredAt: string;
  nextAttemptAt: string;
  /** Set while a worker is sending it. */
  lockedUntil: string | null;
  finishedAt: string | null;
  payload: string | null;
  attempts: AttemptRecord[];
}

const DELIVERY_COLUMNS = [
  'id',
  'type',
  'status',
  'occurred_at',
  'next_attempt_at',
  'locked_until',
  'finished_at',
  'payload',
] as const;

type DeliveryRow = Pick<WebhookDeliveriesTable, Exclude<(typeof DELIVERY_COLUMNS)[number], 'id'>> & { id: number };

async function withAttempts(db: Db, rows: DeliveryRow[]): Promise<DeliveryRecord[]> {
  const attempts = new Map<number, AttemptRecord[]>();
  if (rows.length > 0) {
    const found = await db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where(
        'delivery_id',
        'in',
        rows.map((row) => row.id),
      )
      .orderBy('id', 'desc')
      .execute();
    for (const a of found) {
      const list = attempts.get(a.delivery_id) ?? [];
      list.push({
        attemptedAt: a.attempted_at,
        durationMs: a.duration_ms,
        status: a.status_code,
        responseBody: a.response_body,
        error: a.error,
        nextAttemptAt: a.next_attempt_at,
      });
      attempts.set(a.delivery_id, list);
    }
  }
  return rows.map((row) => ({
    id: row.id,
    type: row.type,
    status: row.status,
    occurredAt: row.occurred_at,
    nextAttemptAt: row.next_attempt_at,
    lockedUntil: row.locked_until,
    finishedAt: row.finished_at,
    payload: row.payload,
    attempts: attempts.get(row.id) ?? [],
  }));
}

/** The webhook's deliveries, newest first, `limit` of them with ids below `before`. */
export async function listDeliveries(
  db: Db,
  webhookId: string,
  page: { limit: number; before?: number },
): Promise<DeliveryRecord[]> {
  let query = db.selectFrom('webhook_deliveries').select(DELIVERY_COLUMNS).where('webhook_id', '=', webhookId);
  // A cursor beyond every id there can be (an integer column's) stands after all of them.
  if (page.before !== undefined && page.before <= MAX_ID) query = query.where('id', '<', page.before);
  return withAttempts(db, (await query.orderBy('id', 'desc').limit(page.limit).execute()) as DeliveryRow[]);
}

export async function findDelivery(db: Db, webhookId: string, id: number): Promise<DeliveryRecord | undefined> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select(DELIVERY_COLUMNS)
    .where('webhook_id', '=', webhookId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? (await withAttempts(db, [row as DeliveryRow]))[0] : undefined;
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
