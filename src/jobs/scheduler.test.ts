/**
 * The scheduler of periodic jobs: when jobs run, what a failure does, and what closing waits for.
 * Time is node:test's mock clock (setInterval), and a job's run ends when the test says so: no
 * assertion depends on how fast this machine is.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, mock, test } from 'node:test';
import { Scheduler, type Job, type JobLog } from './scheduler.js';

/** A log that keeps its warnings. */
function recordingLog(): JobLog & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, warn: (_details, message) => warnings.push(message) };
}

/** Lets the promise callbacks queued so far (a run's start, its end) run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A job that counts its runs. With `held`, each run waits until the test calls `finish()`; runs
 * listed in `failing` throw.
 */
function countingJob(everyMs: number, options: { held?: boolean; failing?: number[] } = {}) {
  const waiting: (() => void)[] = [];
  const job = {
    name: 'counting',
    everyMs,
    runs: 0,
    finished: 0,
    /** How many runs were going at once, at most. */
    most: 0,
    going: 0,
    finish: () => waiting.splice(0).forEach((release) => release()),
    async run() {
      const run = ++job.runs;
      job.most = Math.max(job.most, ++job.going);
      if (options.held) await new Promise<void>((release) => waiting.push(release));
      job.going--;
      if (options.failing?.includes(run)) throw new Error(`run ${run} failed`);
      job.finished++;
    },
  };
  return job;
}

describe('Scheduler', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setInterval'] }));
  afterEach(() => mock.timers.reset());

  test('runs every job once at start, then again every everyMs', async () => {
    const often = countingJob(20);
    const rarely = countingJob(60_000);
    const scheduler = new Scheduler([often, rarely], recordingLog());
    scheduler.start();
    await settle();
    assert.equal(often.runs, 1, 'the frequent job ran at start');
    assert.equal(rarely.runs, 1, 'the rare job ran at start');
    for (let i = 0; i < 5; i++) {
      mock.timers.tick(20);
      await settle();
    }
    await scheduler.close();
    assert.equal(often.runs, 6, 'once at start and once per 20 ms');
    assert.equal(rarely.runs, 1, 'the rare job waits for its own interval');
  });

  test('nothing runs before start, and start twice does not double the timers', async () => {
    const job = countingJob(20);
    const scheduler = new Scheduler([job], recordingLog());
    mock.timers.tick(100);
    await settle();
    assert.equal(job.runs, 0);
    scheduler.start();
    scheduler.start();
    await settle();
    assert.equal(job.runs, 1);
    for (let i = 0; i < 4; i++) {
      mock.timers.tick(20);
      await settle();
    }
    await scheduler.close();
    assert.equal(job.runs, 5, 'one timer only');
  });

  test('a failing run logs a warning naming the job, and the job runs again next time', async () => {
    const log = recordingLog();
    const job = countingJob(20, { failing: [1, 2] });
    const scheduler = new Scheduler([job], log);
    scheduler.start();
    for (let i = 0; i < 2; i++) {
      await settle();
      mock.timers.tick(20);
    }
    await settle();
    await scheduler.close();
    assert.equal(job.finished, 1, 'the third run succeeded');
    assert.deepEqual(log.warnings, ['counting failed', 'counting failed'], 'only the failed runs are logged');
  });

  test('a job that throws before returning a promise is logged like any failure, and other jobs run on', async () => {
    const log = recordingLog();
    const broken: Job = {
      name: 'broken',
      everyMs: 20,
      run: () => {
        throw new Error('thrown at once');
      },
    };
    const healthy = countingJob(20);
    const scheduler = new Scheduler([broken, healthy], log);
    scheduler.start();
    for (let i = 0; i < 2; i++) {
      await settle();
      mock.timers.tick(20);
    }
    await settle();
    await scheduler.close();
    assert.equal(healthy.runs, 3);
    assert.deepEqual(log.warnings, ['broken failed', 'broken failed', 'broken failed']);
  });

  test('close waits for a run in progress to finish, and nothing runs after it', async () => {
    const job = countingJob(10, { held: true });
    const scheduler = new Scheduler([job], recordingLog());
    scheduler.start();
    await settle();
    assert.equal(job.runs, 1);
    let closed = false;
    const closing = scheduler.close().then(() => (closed = true));
    await settle();
    assert.equal(closed, false, 'close waits while the run is going');
    job.finish();
    await closing;
    assert.equal(job.finished, 1, 'close resolved once the run in progress had finished');
    mock.timers.tick(100);
    await settle();
    assert.equal(job.runs, 1, 'no run starts after close');
    scheduler.start();
    await settle();
    assert.equal(job.runs, 1, 'a closed scheduler does not start again');
  });

  test('a run still going when its next time comes is not doubled', async () => {
    const job = countingJob(5, { held: true });
    const scheduler = new Scheduler([job], recordingLog());
    scheduler.start();
    for (let i = 0; i < 10; i++) {
      mock.timers.tick(5);
      await settle();
    }
    assert.equal(job.runs, 1, 'its times passed while it ran');
    job.finish();
    await settle();
    mock.timers.tick(5);
    await settle();
    assert.equal(job.runs, 2, 'the next time after it ended runs it again');
    assert.equal(job.most, 1);
    job.finish();
    await scheduler.close();
  });
});
