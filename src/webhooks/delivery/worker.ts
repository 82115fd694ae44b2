/**
 * The delivery worker: every server process runs one (unless WEBHOOK_DELIVERY=off). It claims due
 * deliveries (queue.repository.ts), sends each as its own asynchronous attempt, records the
 * outcome, and claims again. It wakes when any process commits a change that queued deliveries
 * (the bus: changes/bus.ts), when an attempt ends, at the next retry time it scheduled, and once
 * a second while any delivery is pending (another process's retries, a missed signal). With
 * nothing pending it makes no query at all: a server whose teams use no webhooks pays nothing for
 * them, and neither does a change of a team without webhooks.
 *
 * Several processes share the queue safely: a claim is a lease, taken under the webhook row's
 * lock with SKIP LOCKED on PostgreSQL, so an attempt is made by one process at a time; a process
 * that dies mid-attempt loses its lease after `timeout + LEASE_MARGIN_MS` and another process
 * tries again (at least once, with the same webhook-id). A slow endpoint holds at most its own
 * `maxInFlightPerEndpoint` of this process's `concurrency` slots, so it never delays the others.
 */
import type { Caller } from '../../caller.js';
import type { WebhookConfig } from '../../config.js';
import type { JobLog } from '../../jobs/scheduler.js';
import type { Store } from '../../storage/database.js';
import { DestinationError, parseWebhookUrl, resolveDestination } from './destination.js';
import { buildBody } from './payload.js';
import {
  claimDue,
  recordAttempt,
  releaseClaim,
  savePayload,
  type AttemptResult,
  type Claim,
  type ClaimedDelivery,
} from './queue.repository.js';
import { nextAttemptAt } from './retry-schedule.js';
import { open } from '../secret-box.js';
import { post, type AttemptOutcome } from './send.js';
import { messageIdOf, signatureHeader } from './signing.js';
import { disableWebhook, OWNER_LEFT } from '../webhooks.repository.js';

/** How much longer than an attempt's deadline its lease lasts: room for recording it, and for a stalled process. */
export const LEASE_MARGIN_MS = 10_000;
/** Added to a retry's timer, which may otherwise fire a millisecond before the retry is due. */
const TIMER_SLACK_MS = 5;
/** How soon to look again after another process's claim held an endpoint with due work. */
const CONTENDED_RETRY_MS = 20;
/** How often the worker looks for due work it was not told about, while some delivery is pending. */
const POLL_MS = 1_000;

export class DeliveryWorker {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly shutdown = new AbortController();
  private readonly timers = new Set<NodeJS.Timeout>();
  /** The next look while deliveries are pending (none when nothing is). */
  private poll: NodeJS.Timeout | undefined;
  /** The claim in progress, if any: closing waits for it, since it reads the store. */
  private claiming: Promise<void> | undefined;
  private again = false;
  private started = false;
  private closed = false;

  constructor(
    private readonly store: Store,
    private readonly config: WebhookConfig,
    private readonly log: JobLog,
  ) {}

  /** Starts delivering; does nothing when this process does not deliver, or once closed. */
  start(): void {
    if (!this.config.deliver || this.started || this.closed) return;
    this.started = true;
    this.wake();
  }

  /** Stops claiming, cuts the attempts in flight short (their claims are given back) and waits for them. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.poll);
    for (const timer of this.timers) clearTimeout(timer);
    this.shutdown.abort();
    await this.claiming;
    await Promise.all(this.inFlight);
  }

  /** Looks for due deliveries now (or right after the claim in progress). */
  wake(): void {
    if (this.closed || !this.started) return;
    if (this.claiming) {
      this.again = true;
      return;
    }
    this.claiming = this.claimWhileRoom().finally(() => (this.claiming = undefined));
  }

  private async claimWhileRoom(): Promise<void> {
    do {
      this.again = false;
      const room = this.config.concurrency - this.inFlight.size;
      if (room <= 0) return;
      let claim: Claim;
      try {
        claim = await claimDue(this.store, {
          now: new Date(),
          leaseMs: this.config.timeoutMs + LEASE_MARGIN_MS,
          maxInFlight: this.config.maxInFlightPerEndpoint,
          limit: room,
        });
      } catch (error) {
        this.log.warn({ err: error }, 'claiming webhook deliveries failed');
        this.pollWhile(true);
        return;
      }
      this.pollWhile(claim.pending);
      // Another process was claiming for an endpoint with work: it may have found nothing free
      // (this process's attempt had not committed yet), so look again shortly rather than at the next poll.
      if (claim.contended) this.wakeAt(Date.now() + CONTENDED_RETRY_MS * (0.5 + Math.random()));
      for (const delivery of claim.claimed) {
        const attempt = this.attempt(delivery).finally(() => {
          this.inFlight.delete(attempt);
          this.wake();
        });
        this.inFlight.add(attempt);
      }
    } while (this.again && !this.closed);
  }

  /** Looks again in `POLL_MS` while deliveries are pending; stops looking when none is. */
  private pollWhile(pending: boolean): void {
    clearTimeout(this.poll);
    this.poll = pending && !this.closed ? setTimeout(() => this.wake(), POLL_MS).unref() : undefined;
  }

  private wakeAt(time: number): void {
    if (this.closed) return;
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        this.wake();
      },
      // A timer may fire a little before the wall clock reaches `time`; a claim then would find nothing due.
      Math.max(time - Date.now(), 0) + TIMER_SLACK_MS,
    ).unref();
    this.timers.add(timer);
  }

  /** One attempt of a claimed delivery, recorded; never throws. */
  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const { webhook } = delivery;
    try {
      const role = webhook.ownerRole;
      if (!role) {
        await disableWebhook(this.store.db, webhook.id, OWNER_LEFT, new Date().toISOString());
        await releaseClaim(this.store.db, delivery.id, delivery.attempt);
        return;
      }
      const started = Date.now();
      let body = delivery.payload;
      if (body === null) {
        const owner: Caller = {
          userId: webhook.ownerId,
          teamId: webhook.teamId,
          role,
          credential: { kind: 'webhook', id: webhook.id },
        };
        body = await buildBody(this.store.db, owner, webhook.id, delivery);
        await savePayload(this.store.db, delivery.id, body);
      }
      const outcome = await this.send(delivery, body, started);
      if (this.shutdown.signal.aborted) {
        // Cut short by the shutdown: not the endpoint's failure. Due again at once, here or elsewhere.
        await releaseClaim(this.store.db, delivery.id, delivery.attempt);
        return;
      }
      const result = this.judge(delivery, outcome, started);
      await recordAttempt(this.store, result);
      if (result.nextAttemptAt && !result.disable) this.wakeAt(Date.parse(result.nextAttemptAt));
    } catch (error) {
      // Its lease runs out and it is attempted again (the database may be away for a moment).
      this.log.warn({ err: error }, `webhook delivery ${delivery.id} could not be attempted`);
    }
  }

  private async send(delivery: ClaimedDelivery, body: string, started: number): Promise<AttemptOutcome> {
    const { allowHosts, timeoutMs } = this.config;
    const remaining = () => Math.max(timeoutMs - (Date.now() - started), 1);
    let destination;
    try {
      destination = await resolveDestination(
        parseWebhookUrl(delivery.webhook.url, allowHosts),
        allowHosts,
        remaining(),
      );
    } catch (error) {
      if (!(error instanceof DestinationError)) throw error;
      // The log the owner reads says only that the address is refused; what it resolved to is the operator's.
      if (error.detail) {
        this.log.warn(
          { webhookId: delivery.webhook.id, deliveryId: delivery.id, detail: error.detail },
          `webhook attempt refused: ${error.message}`,
        );
      }
      return { status: null, body: null, error: error.message };
    }
    const secrets = this.secretsOf(delivery);
    if (typeof secrets === 'string') return { status: null, body: null, error: secrets };
    const messageId = messageIdOf(delivery.id);
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'tasklane-webhooks',
      'webhook-id': messageId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(secrets, messageId, timestamp, body),
    };
    return post(destination, headers, body, { ms: remaining(), timeoutMs }, this.shutdown.signal);
  }

  /** The secrets that sign now (the previous one too, within its 24 hours), or why there are none. */
  private secretsOf(delivery: ClaimedDelivery): Buffer[] | string {
    const key = this.config.secretKey;
    if (!key) return 'This server has no WEBHOOK_SECRET_KEY, so it cannot sign deliveries.';
    const { id, sealedSecrets } = delivery.webhook;
    try {
      const secrets = [open(key, sealedSecrets.current, id)];
      const { previous, previousExpiresAt } = sealedSecrets;
      if (previous && previousExpiresAt && Date.parse(previousExpiresAt) > Date.now()) {
        secrets.push(open(key, previous, id));
      }
      return secrets;
    } catch {
      return "The webhook's secret cannot be opened with this server's WEBHOOK_SECRET_KEY; rotate the secret.";
    }
  }

  /** What the attempt means for the delivery and its webhook. */
  private judge(delivery: ClaimedDelivery, outcome: AttemptOutcome, started: number): AttemptResult {
    const now = Date.now();
    const base = {
      deliveryId: delivery.id,
      webhookId: delivery.webhook.id,
      attempt: delivery.attempt,
      attemptedAt: new Date(started).toISOString(),
      durationMs: now - started,
      status: outcome.status,
      responseBody: outcome.body,
      error: outcome.error,
      wasFailing: delivery.webhook.failingSince !== null,
    };
    if (outcome.status !== null && outcome.status >= 200 && outcome.status < 300) {
      return { ...base, outcome: 'succeeded', nextAttemptAt: null, disable: null };
    }
    const next = nextAttemptAt(this.config, delivery.attempt, Date.parse(delivery.firstAttemptAt), now);
    const failingSince = delivery.webhook.failingSince ? Date.parse(delivery.webhook.failingSince) : started;
    let disable: string | null = null;
    if (outcome.status === 410) disable = 'The endpoint answered 410 Gone.';
    else if (now - failingSince >= this.config.disableAfterMs) {
      disable =
        `No attempt has succeeded since ${new Date(failingSince).toISOString()}: ` +
        `disabled after ${describeDuration(this.config.disableAfterMs)} of failures.`;
    }
    return {
      ...base,
      outcome: next === null ? 'failed' : 'retry',
      nextAttemptAt: next === null ? null : new Date(next).toISOString(),
      disable,
    };
  }
}

/** "5 days", "2 hours", "90 seconds": a duration for a person. */
export function describeDuration(ms: number): string {
  const units: [number, string][] = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
    [1_000, 'second'],
  ];
  for (const [size, name] of units) {
    if (ms >= size && ms % size === 0) return `${ms / size} ${name}${ms === size ? '' : 's'}`;
  }
  return `${ms} ms`;
}
