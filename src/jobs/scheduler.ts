/**
 * Runs periodic jobs for as long as a server runs: each job once at start, then every `everyMs`.
 * Closing stops the timers and waits for the runs in progress, so whatever the jobs use (the
 * database) can be closed right after. A run that fails is logged and the job runs again at its
 * next time; a run still going when its next time comes is not doubled, that time is skipped.
 *
 * Every process runs every job (processes share nothing but the database), so a job must be
 * idempotent: two processes pruning the same expired rows at once both succeed.
 */

export interface Job {
  /** What the job does, for the log line when it fails ("pruning expired sessions"). */
  readonly name: string;
  readonly everyMs: number;
  run(): Promise<unknown>;
}

/** Where failures go: the app's logger, or anything with pino's `warn(details, message)`. */
export interface JobLog {
  warn(details: Record<string, unknown>, message: string): void;
}

export class Scheduler {
  private readonly timers: NodeJS.Timeout[] = [];
  /** The run in progress of each job, if any. */
  private readonly running = new Map<Job, Promise<void>>();
  private started = false;
  private closed = false;

  constructor(
    private readonly jobs: readonly Job[],
    private readonly log: JobLog,
  ) {}

  /** Runs every job now and then on its interval; a second call, or one after close(), does nothing. */
  start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    for (const job of this.jobs) {
      this.runOnce(job);
      // Unref'd: a forgotten close() must not keep the process alive (nor should a pending run).
      this.timers.push(setInterval(() => this.runOnce(job), job.everyMs).unref());
    }
  }

  /** Stops the timers and resolves once no run is in progress. */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearInterval(timer);
    await Promise.all(this.running.values());
  }

  private runOnce(job: Job): void {
    if (this.closed || this.running.has(job)) return;
    const run = Promise.resolve()
      .then(() => job.run())
      .then(
        () => undefined,
        (error: unknown) => this.log.warn({ err: error }, `${job.name} failed`),
      )
      .finally(() => this.running.delete(job));
    this.running.set(job, run);
  }
}
