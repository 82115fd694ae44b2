/**
 * The durable scheduler: runs each job of `scheduled_jobs` once, at its time (within the minute),
 * whichever of the processes on the database gets to it first. Every process runs one runner
 * (unless SCHEDULED_JOBS=off). It looks when the next job falls due, and every `pollMs` for jobs
 * that other processes planned or whose lease ran out.
 *
 * A job's work runs in one transaction with the job's removal (scheduled-jobs.repository.ts,
 * `takeClaimedJob`): exactly once for what it writes to the database. A job that fails stays,
 * and is tried again later, a little later each time (up to an hour), its reason logged and
 * shown by `tasklane admin jobs status`. A job that runs well after its time (every process
 * was down) runs on the next start, and its handler is told it is late.
 *
 * The handlers are the kinds' own (due-date reminders: reminders/fire.ts), given by the
 * composition (app.ts); recurring work would be a handler that plans its next run.
 */
import type { Clock } from '../clock.js';
import type { Store } from '../storage/database.js';
import type { Db } from '../storage/schema.js';
import type { JobLog } from './scheduler.js';
import {
  claimDueJobs,
  nextJobDue,
  recordJobFailure,
  releaseJob,
  takeClaimedJob,
  type ClaimedJob,
  type ScheduledJob,
} from './scheduled-jobs.repository.js';

/** What a job's handler is told besides the job. */
export interface JobContext {
  now: Date;
  /** It runs more than `LATE_AFTER_MS` after its time. */
  late: boolean;
}

/** Does a job's work in the transaction `trx`, which also takes the job off the table. */
export type JobHandler = (trx: Db, job: ScheduledJob, context: JobContext) => Promise<void>;

/** A job run later than this after its planned time is late (the interface promises the minute). */
export const LATE_AFTER_MS = 60_000;
/** Jobs one claim takes. */
const CLAIM_BATCH = 50;
/** The delay after a first failure, doubled after each next one up to `MAX_RETRY_DELAY_MS`. */
const FIRST_RETRY_DELAY_MS = 30_000;
const MAX_RETRY_DELAY_MS = 60 * 60 * 1000;
/** Added to a due time's timer, which may otherwise fire a millisecond early. */
const TIMER_SLACK_MS = 5;

export class JobRunner {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private started = false;
  private closed = false;

  constructor(
    private readonly store: Store,
    private readonly handlers: Readonly<Record<string, JobHandler>>,
    /** `leaseMs`: far longer than a batch of small transactions takes (JOBS_LEASE_SECONDS, 60). */
    private readonly options: { pollMs: number; leaseMs: number; clock: Clock; log: JobLog & { info: JobLog['warn'] } },
  ) {}

  start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    this.wake();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** Looks for due jobs now (or right after the look in progress). */
  wake(): void {
    if (this.closed || !this.started) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.runDue().finally(() => (this.running = undefined));
  }

  private async runDue(): Promise<void> {
    try {
      let claimed: ClaimedJob[];
      do {
        this.again = false;
        const now = this.options.clock.now();
        claimed = await claimDueJobs(this.store.db, now, new Date(now.getTime() + this.options.leaseMs), CLAIM_BATCH);
        if (claimed.length > 0) this.options.log.info({ jobs: claimed.length }, 'running scheduled jobs');
        for (const job of claimed) await this.run(job);
      } while ((claimed.length === CLAIM_BATCH || this.again) && !this.closed);
      await this.scheduleNext();
    } catch (error) {
      this.options.log.warn({ err: error }, 'running scheduled jobs failed');
      this.lookIn(this.options.pollMs);
    }
  }

  private async run(job: ClaimedJob): Promise<void> {
    if (this.closed) return releaseJob(this.store.db, job);
    const handler = this.handlers[job.kind];
    try {
      if (!handler) throw new Error(`no handler for scheduled jobs of kind ${job.kind}`);
      await this.store.transaction(async (trx) => {
        if (!(await takeClaimedJob(trx, job))) return; // cancelled, or its lease passed to another process
        const now = this.options.clock.now();
        await handler(trx, job, { now, late: now.getTime() - Date.parse(job.runAt) > LATE_AFTER_MS });
      });
    } catch (error) {
      const delay = Math.min(FIRST_RETRY_DELAY_MS * 2 ** Math.min(job.attempts - 1, 20), MAX_RETRY_DELAY_MS);
      const reason = error instanceof Error ? error.message : String(error);
      await recordJobFailure(this.store.db, job, reason, new Date(this.options.clock.now().getTime() + delay));
      this.options.log.warn(
        { err: error, jobId: job.id, kind: job.kind, attempt: job.attempts },
        'a scheduled job failed; it will be tried again',
      );
    }
  }

  /** The next look: when the next job falls due, and at most `pollMs` from now. */
  private async scheduleNext(): Promise<void> {
    const due = await nextJobDue(this.store.db);
    const untilDue = due === null ? Infinity : Date.parse(due) - this.options.clock.now().getTime();
    this.lookIn(Math.min(untilDue, this.options.pollMs));
  }

  private lookIn(ms: number): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.wake(), Math.max(ms, 0) + TIMER_SLACK_MS).unref();
  }
}
