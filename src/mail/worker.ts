/**
 * The mail worker: every process runs one while email is configured (SMTP_URL, MAIL_FROM) and
 * MAIL_DELIVERY is not off. It claims the due mail of a few people at a time (queue.repository.ts),
 * sends each person's as one message through SMTP (nodemailer), and records the outcome: sent,
 * retried later with a growing delay, or failed for good (an SMTP 5xx refusal, or out of retry
 * time), logged and shown by `tasklane admin mail status`. It looks again when a person's batch
 * falls due and every `pollMs` for mail other processes queued.
 *
 * Before sending it checks again what the mail may say: only tasks the person may read now, in
 * teams they still belong to, and only kinds they still want by email; the rest are dropped.
 */
import nodemailer, { type Transporter } from 'nodemailer';
import type { MailConfig } from '../config.js';
import type { JobLog } from '../jobs/scheduler.js';
import type { Store } from '../storage/database.js';
import { nextAttemptAt } from '../webhooks/delivery/retry-schedule.js';
import { composeMail } from './message.js';
import { preferencesOf } from './preferences.repository.js';
import {
  claimDueMail,
  declareSending,
  nextDue,
  recordFailure,
  recordSent,
  releaseMail,
  type ClaimedMail,
} from './queue.repository.js';
import { newUnsubscribeToken } from './unsubscribe.repository.js';

/** People whose mail one claim takes. */
const CLAIM_BATCH = 10;
/** The SMTP conversation's own limits: a stuck server must not hold a claim for minutes. */
const SMTP_TIMEOUT_MS = 15_000;
/** A claim's lease: longer than a send can take, so no other process sends the same mail meanwhile. */
const LEASE_MS = 4 * SMTP_TIMEOUT_MS;
/** How often a sending process says so again (declareSending). */
const DECLARE_EVERY_MS = 60_000;
/** Added to a due time's timer, which may otherwise fire a millisecond early. */
const TIMER_SLACK_MS = 5;

export class MailWorker {
  private readonly transport: Transporter | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** When this process last said it sends (declareSending). */
  private declaredAt = -Infinity;
  private running: Promise<void> | undefined;
  private again = false;
  private started = false;
  private closed = false;

  constructor(
    private readonly store: Store,
    private readonly config: MailConfig,
    private readonly publicUrl: string | null,
    private readonly log: JobLog,
  ) {
    if (config.smtpUrl && config.from && publicUrl) {
      this.transport = nodemailer.createTransport({
        url: config.smtpUrl,
        connectionTimeout: SMTP_TIMEOUT_MS,
        greetingTimeout: SMTP_TIMEOUT_MS,
        socketTimeout: SMTP_TIMEOUT_MS,
      } as never);
    }
  }

  /** Whether this server sends email at all. */
  get enabled(): boolean {
    return this.transport !== undefined;
  }

  /**
   * Starts sending: first says so (declareSending), so that the changes made once the server is
   * ready queue their mail; then looks for due mail.
   */
  async start(): Promise<void> {
    if (!this.transport || !this.config.deliver || this.started || this.closed) return;
    this.started = true;
    await declareSending(this.store.db, new Date(), this.config.batchMs);
    this.declaredAt = Date.now();
    this.wake();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.running;
    this.transport?.close();
  }

  /** Looks for due mail now (or right after the look in progress). */
  wake(): void {
    if (this.closed || !this.started) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.sendDue().finally(() => (this.running = undefined));
  }

  private async sendDue(): Promise<void> {
    try {
      // Changes queue mail only while some process says it sends (changes/notification-mail.ts):
      // said again every minute, so a word that lasts 15 minutes (SENDING_WORD_MS) never lapses.
      if (Date.now() - this.declaredAt >= DECLARE_EVERY_MS) {
        await declareSending(this.store.db, new Date(), this.config.batchMs);
        this.declaredAt = Date.now();
      }
      let claimed: ClaimedMail[];
      do {
        this.again = false;
        claimed = await claimDueMail(this.store, {
          now: new Date(),
          leaseMs: LEASE_MS,
          limit: CLAIM_BATCH,
          messageDomain: new URL(this.publicUrl!).hostname,
        });
        await Promise.all(claimed.map((mail) => this.send(mail)));
      } while ((claimed.length === CLAIM_BATCH || this.again) && !this.closed);
      await this.scheduleNext();
    } catch (error) {
      this.log.warn({ err: error }, 'sending notification email failed');
      this.lookAt(Date.now() + this.config.pollMs);
    }
  }

  /** The next look: when the next pending mail falls due, and at most `pollMs` from now. */
  private async scheduleNext(): Promise<void> {
    const due = await nextDue(this.store.db);
    const poll = Date.now() + this.config.pollMs;
    this.lookAt(due === null ? poll : Math.min(Date.parse(due), poll));
  }

  private lookAt(time: number): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.wake(), Math.max(time - Date.now(), 0) + TIMER_SLACK_MS).unref();
  }

  private async send(mail: ClaimedMail): Promise<void> {
    if (this.closed) return releaseMail(this.store.db, mail);
    const wanted = (await preferencesOf(this.store.db, [mail.userId])).get(mail.userId)!;
    const lines = mail.lines.filter((line) => wanted[line.kind] === 'inboxAndEmail');
    const toSend = { ...mail, lines };
    if (lines.length === 0) return recordSent(this.store.db, toSend, new Date());
    try {
      const token = await newUnsubscribeToken(this.store.db, mail.userId, new Date());
      const message = composeMail(lines, this.publicUrl!, token);
      await this.transport!.sendMail({
        from: this.config.from!,
        to: mail.to,
        messageId: mail.messageId,
        subject: message.subject,
        text: message.text,
        html: message.html,
        headers: message.headers,
      });
      await recordSent(this.store.db, toSend, new Date());
    } catch (error) {
      const now = Date.now();
      const code = (error as { responseCode?: number }).responseCode;
      // A 5xx is the server's final word on this mail (a refused address); anything else may pass later.
      const refused = code !== undefined && code >= 500;
      const retryAt = refused ? null : nextAttemptAt(this.config, mail.attempt, Date.parse(mail.firstAttemptAt), now);
      const reason = error instanceof Error ? error.message : String(error);
      await recordFailure(this.store.db, mail, reason, retryAt === null ? null : new Date(retryAt), new Date(now));
      this.log.warn(
        { userId: mail.userId, attempt: mail.attempt, retryAt: retryAt && new Date(retryAt).toISOString(), reason },
        retryAt === null ? 'notification email failed for good' : 'notification email failed; it will be retried',
      );
    }
  }
}
