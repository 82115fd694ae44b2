/**
 * Periodic housekeeping tied to the app's life: a task runs once the app is ready and then
 * every `everyMs`, and closing the app waits for a run in progress, so the database is never
 * closed under it. Tasks run in every process; they must be idempotent (deleting expired
 * records is), so processes sharing a PostgreSQL database may overlap harmlessly.
 */
import type { App } from './app-types.js';

export interface PeriodicTask {
  /** What the task does, for the log line when it fails ("pruning expired sessions"). */
  name: string;
  everyMs: number;
  run(): Promise<unknown>;
}

export function schedulePeriodic(app: App, task: PeriodicTask): void {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  const run = () => {
    running = task.run().catch((error: unknown) => app.log.warn({ err: error }, `${task.name} failed`));
  };
  app.addHook('onReady', async () => {
    run();
    timer = setInterval(run, task.everyMs).unref();
  });
  app.addHook('onClose', async () => {
    clearInterval(timer);
    await running;
  });
}
