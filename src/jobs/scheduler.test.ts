/** The scheduler of periodic jobs: when jobs run, what a failure does, and what closing waits for. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Scheduler, type Job, type JobLog } from './scheduler.js';

/** A log that keeps its warnings. */
function recordingLog(): JobLog & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, warn: (_details, message) => warnings.push(message) };
}

/** A job that counts its runs; each run takes `takesMs`, and runs listed in `failing` throw. */
function countingJob(everyMs: number, options: { takesMs?: number; failing?: number[] } = {}) {
  const job = {
    name: 'counting',
    everyMs,
    runs: 0,
    finished: 0,
    async run() {
      const run = ++job.runs;
      if (options.takesMs) await sleep(options.takesMs);
      if (options.failing?.includes(run)) throw new Error(`run ${run} failed`);
      job.finished++;
    },
  };
  return job;
}

async function waitUntil(what: string, condition: () => boolean, ms = 2_000): Promise<void> {
  for (const deadline = Date.now() + ms; !condition(); await sleep(5)) {
    assert.ok(Date.now() < deadline, `timed out waiting until ${what}`);
  }
}

describe('Scheduler', () => {
  test('runs every job once at start, then again every everyMs', async () => {
    const often = countingJob(20);
    const rarely = countingJob(60_000);
    const scheduler = new Scheduler([often, rarely], recordingLog());
    scheduler.start();
    await sleep(0);
    assert.equal(often.runs, 1, 'the frequent job ran at start');
    assert.equal(rarely.runs, 1, 'the rare job ran at start');
    await sleep(110);
    await scheduler.close();
    assert.ok(often.runs >= 2 && often.runs <= 7, `about one run per 20 ms (${often.runs} in 110 ms)`);
    assert.equal(rarely.runs, 1, 'the rare job waits for its own interval');
  });

  test('nothing runs before start, and start twice does not double the timers', async () => {
    const job = countingJob(20);
    const scheduler = new Scheduler([job], recordingLog());
    await sleep(50);
    assert.equal(job.runs, 0);
    scheduler.start();
    scheduler.start();
    await sleep(0);
    assert.equal(job.runs, 1);
    await sleep(90);
    await scheduler.close();
    assert.ok(job.runs <= 6, `one timer only (${job.runs} runs in 90 ms at one per 20 ms)`);
  });

  test('a failing run logs a warning naming the job, and the job runs again next time', async () => {
    const log = recordingLog();
    const job = countingJob(20, { failing: [1, 2] });
    const scheduler = new Scheduler([job], log);
    scheduler.start();
    await waitUntil('a run succeeds after the failures', () => job.finished >= 1);
    await scheduler.close();
    assert.deepEqual(log.warnings.slice(0, 2), ['counting failed', 'counting failed']);
    assert.equal(log.warnings.length, 2, 'only the failed runs are logged');
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
    await waitUntil('the healthy job ran a few times', () => healthy.runs >= 3);
    await scheduler.close();
    assert.ok(log.warnings.length >= 3);
    assert.ok(log.warnings.every((message) => message === 'broken failed'));
  });

  test('close waits for a run in progress to finish, and nothing runs after it', async () => {
    const job = countingJob(10, { takesMs: 100 });
    const scheduler = new Scheduler([job], recordingLog());
    scheduler.start();
    await sleep(20);
    assert.equal(job.finished, 0, 'the first run is still going');
    await scheduler.close();
    assert.equal(job.finished, job.runs, 'close resolved only once the run in progress had finished');
    const runs = job.runs;
    await sleep(50);
    assert.equal(job.runs, runs, 'no run starts after close');
    scheduler.start();
    await sleep(0);
    assert.equal(job.runs, runs, 'a closed scheduler does not start again');
  });

  test('a run still going when its next time comes is not doubled', async () => {
    let concurrent = 0;
    let most = 0;
    const job: Job = {
      name: 'slow',
      everyMs: 5,
      async run() {
        most = Math.max(most, ++concurrent);
        await sleep(40);
        concurrent--;
      },
    };
    const scheduler = new Scheduler([job], recordingLog());
    scheduler.start();
    await sleep(100);
    await scheduler.close();
    assert.equal(most, 1);
  });
});
