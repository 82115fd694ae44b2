/**
 * The delivery queue as the worker (worker.ts) sees it. An endpoint's queue is its pending
 * deliveries in id order (event order); only its oldest `maxInFlight` may be attempted, and a
 * claim is a lease (`locked_until`) that a process holds while it sends. Claims lock the webhook
 * row (FOR NO KEY UPDATE SKIP LOCKED on PostgreSQL, storage/dialect.ts), so one process at a
 * time claims for an endpoint and the others skip to other endpoints: no delivery is attempted
 * by two processes at once, and no endpoint has more than `maxInFlight` attempts in flight.
 */
import { sql } from 'kysely';
import type { Store } from '../../storage/database.js';
import { claimSkippingLocked } from '../../storage/dialect.js';
import type { Db, Role } from '../../storage/schema.js';

/** A delivery this process has claimed, with what sending it needs. */
export interface ClaimedDelivery {
  id: number;
  /** The claim's attempt number in the current series: its token when the outcome is recorded. */
  attempt: number;
  eventId: number | null;
  type: string;
  data: string;
  occurredAt: string;
  payload: string | null;
  firstAttemptAt: string;
  webhook: {
    id: string;
    teamId: string;
    ownerId: string;
    /** The owner's role in the team at the claim; null when they are no longer a member. */
    ownerRole: Role | null;
    url: string;
    failingSince: string | null;
    sealedSecrets: { current: string; previous: string | null; previousExpiresAt: string | null };
  };
}

export interface ClaimOptions {
  now: Date;
  leaseMs: number;
  maxInFlight: number;
  /** Most deliveries to claim. */
  limit: number;
}

/** What a claim got, and whether endpoints with due work were being claimed by another process meanwhile. */
export interface Claim {
  claimed: ClaimedDelivery[];
  /** Some endpoint with due work was skipped, locked by another claim: worth looking again soon. */
  contended: boolean;
  /** Some enabled webhook has a delivery still to send (due now or later, or leased). */
  pending: boolean;
}

/** Whether any enabled webhook has a pending delivery: while none has, the worker does not poll. */
async function anyPending(db: Db): Promise<boolean> {
  const row = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
    .select('d.id')
    .where('d.status', '=', 'pending')
    .where('w.enabled', '=', 1)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Claims up to `limit` due deliveries, at most `maxInFlight` in flight per endpoint. */
export async function claimDue(store: Store, options: ClaimOptions): Promise<Claim> {
  const now = options.now.toISOString();
  const leaseUntil = new Date(options.now.getTime() + options.leaseMs).toISOString();
  // Outside the transaction: a poll that finds nothing (the usual case) costs one statement.
  const withWork = await store.db
    .selectFrom('webhooks as w')
    .select('w.id')
    .where('w.enabled', '=', 1)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('webhook_deliveries as d')
          .select('d.id')
          .whereRef('d.webhook_id', '=', 'w.id')
          .where('d.status', '=', 'pending')
          .where('d.next_attempt_at', '<=', now)
          .where((eb) => eb.or([eb('d.locked_until', 'is', null), eb('d.locked_until', '<=', now)])),
      ),
    )
    // Random, so that endpoints with work share the claims fairly however many there are.
    .orderBy(sql`random()`)
    .limit(options.limit)
    .execute();
  if (withWork.length === 0) return { claimed: [], contended: false, pending: await anyPending(store.db) };
  return store.transaction(async (trx) => {
    const endpoints = await claimSkippingLocked(
      trx,
      trx
        .selectFrom('webhooks as w')
        .select([
          'w.id',
          'w.team_id',
          'w.owner_id',
          'w.url',
          'w.failing_since',
          'w.secret',
          'w.previous_secret',
          'w.previous_secret_expires_at',
          // The owner's role now (null once they left the team), read here to save a statement per attempt.
          (eb) =>
            eb
              .selectFrom('team_members as m')
              .select('m.role')
              .whereRef('m.team_id', '=', 'w.team_id')
              .whereRef('m.user_id', '=', 'w.owner_id')
              .as('owner_role'),
        ])
        .where(
          'w.id',
          'in',
          withWork.map((w) => w.id),
        )
        .where('w.enabled', '=', 1),
    ).execute();

    const claimed: ClaimedDelivery[] = [];
    for (const endpoint of endpoints) {
      const room = options.limit - claimed.length;
      if (room <= 0) break;
      const ids = await claimableIds(trx, endpoint.id, now, options.maxInFlight);
      if (ids.length === 0) continue;
      const rows = await trx
        .updateTable('webhook_deliveries')
        .set((eb) => ({
          locked_until: leaseUntil,
          attempt_count: eb('attempt_count', '+', 1),
          first_attempt_at: eb.fn.coalesce('first_attempt_at', eb.val(now)),
        }))
        .where('id', 'in', ids.slice(0, room))
        .returning(['id', 'attempt_count', 'event_id', 'type', 'data', 'occurred_at', 'payload', 'first_attempt_at'])
        .execute();
      for (const row of rows.sort((a, b) => a.id - b.id)) {
        claimed.push({
          id: row.id,
          attempt: Number(row.attempt_count),
          eventId: row.event_id === null ? null : Number(row.event_id),
          type: row.type,
          data: row.data,
          occurredAt: row.occurred_at,
          payload: row.payload,
          firstAttemptAt: row.first_attempt_at ?? now,
          webhook: {
            id: endpoint.id,
            teamId: endpoint.team_id,
            ownerId: endpoint.owner_id,
            ownerRole: endpoint.owner_role ?? null,
            url: endpoint.url,
            failingSince: endpoint.failing_since,
            sealedSecrets: {
              current: endpoint.secret,
              previous: endpoint.previous_secret,
              previousExpiresAt: endpoint.previous_secret_expires_at,
            },
          },
        });
      }
    }
    return { claimed, contended: endpoints.length < withWork.length, pending: true };
  });
}

/**
 * Of the endpoint's oldest `maxInFlight` pending deliveries, those due and free, as many as the
 * endpoint has room for beside the attempts in flight (run under the webhook row's lock).
 */
async function claimableIds(trx: Db, webhookId: string, now: string, maxInFlight: number): Promise<number[]> {
  const pending = (db: Db) =>
    db.selectFrom('webhook_deliveries').where('webhook_id', '=', webhookId).where('status', '=', 'pending');
  // The window, and every attempt in flight (a manual retry may have put an older delivery ahead of one).
  const rows = await pending(trx)
    .select(['id', 'next_attempt_at', 'locked_until'])
    .where((eb) =>
      eb.or([eb('locked_until', '>', now), eb('id', 'in', pending(trx).select('id').orderBy('id').limit(maxInFlight))]),
    )
    .orderBy('id')
    .execute();
  const inFlight = rows.filter((row) => row.locked_until !== null && row.locked_until > now).length;
  const window = rows.slice(0, maxInFlight);
  return window
    .filter((row) => row.next_attempt_at <= now && (row.locked_until === null || row.locked_until <= now))
    .slice(0, Math.max(maxInFlight - inFlight, 0))
    .map((row) => row.id);
}

/** Keeps the body built for the first attempt, so that every retry sends the same bytes. */
export async function savePayload(db: Db, deliveryId: number, payload: string): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ payload })
    .where('id', '=', deliveryId)
    .where('payload', 'is', null)
    .execute();
}

/** Gives a claim back unattempted (the server is stopping, the webhook was disabled): due again at once. */
export async function releaseClaim(db: Db, deliveryId: number, attempt: number): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set((eb) => ({ locked_until: null, attempt_count: eb('attempt_count', '-', 1) }))
    .where('id', '=', deliveryId)
    .where('attempt_count', '=', attempt)
    .where('status', '=', 'pending')
    .execute();
}

export interface AttemptResult {
  deliveryId: number;
  webhookId: string;
  attempt: number;
  attemptedAt: string;
  durationMs: number;
  status: number | null;
  responseBody: string | null;
  error: string | null;
  /** `retry` keeps it pending until `nextAttemptAt`. */
  outcome: 'succeeded' | 'retry' | 'failed';
  nextAttemptAt: string | null;
  /** The endpoint was failing before this attempt (so a success ends that). */
  wasFailing: boolean;
  /** Disable the webhook, for this reason. */
  disable: string | null;
}

/** Logs the attempt and moves the delivery (and its webhook's failure record) on, in one transaction. */
export async function recordAttempt(store: Store, result: AttemptResult): Promise<void> {
  const now = result.attemptedAt;
  await store.transaction(async (trx) => {
    await trx
      .insertInto('webhook_attempts')
      .values({
        delivery_id: result.deliveryId,
        attempted_at: result.attemptedAt,
        duration_ms: result.durationMs,
        status_code: result.status,
        response_body: result.responseBody,
        error: result.error,
        next_attempt_at: result.outcome === 'retry' ? result.nextAttemptAt : null,
      })
      .execute();
    const finished = result.outcome === 'retry' ? null : result.outcome;
    // Only the claim's own attempt moves the delivery: after a lease ran out, a newer one owns it.
    await trx
      .updateTable('webhook_deliveries')
      .set({
        locked_until: null,
        ...(finished
          ? { status: finished, finished_at: new Date().toISOString() }
          : { next_attempt_at: result.nextAttemptAt! }),
      })
      .where('id', '=', result.deliveryId)
      .where('attempt_count', '=', result.attempt)
      .where('status', '=', 'pending')
      .execute();
    if (result.outcome === 'succeeded') {
      if (result.wasFailing) {
        await trx.updateTable('webhooks').set({ failing_since: null }).where('id', '=', result.webhookId).execute();
        // The endpoint is back: its other deliveries need not wait out their backoff.
        await trx
          .updateTable('webhook_deliveries')
          .set({ next_attempt_at: now })
          .where('webhook_id', '=', result.webhookId)
          .where('status', '=', 'pending')
          .where('next_attempt_at', '>', now)
          .execute();
      }
    } else {
      await trx
        .updateTable('webhooks')
        .set({ failing_since: result.attemptedAt })
        .where('id', '=', result.webhookId)
        .where('failing_since', 'is', null)
        .execute();
    }
    if (result.disable) {
      await trx
        .updateTable('webhooks')
        .set({ enabled: 0, disabled_reason: result.disable, disabled_at: now, updated_at: now })
        .where('id', '=', result.webhookId)
        .where('enabled', '=', 1)
        .execute();
    }
  });
}

/** Deletes attempts older than `retentionMs`, and finished deliveries as old (pending ones stay). */
export async function pruneDeliveryLog(db: Db, retentionMs: number, now = Date.now()): Promise<number> {
  const cutoff = new Date(now - retentionMs).toISOString();
  const attempts = await db.deleteFrom('webhook_attempts').where('attempted_at', '<', cutoff).executeTakeFirst();
  const deliveries = await db
    .deleteFrom('webhook_deliveries')
    .where('status', '<>', 'pending')
    .where('finished_at', '<', cutoff)
    .executeTakeFirst();
  return Number(attempts.numDeletedRows) + Number(deliveries.numDeletedRows);
}
