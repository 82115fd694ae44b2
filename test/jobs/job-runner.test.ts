/**
 * The durable scheduler (jobs/job-runner.ts) on a real database of the store under test, with a
 * clock the test moves: a job runs once at its time, late when found late, in one transaction
 * with its removal; a failing one stays with its reason and is tried again later; two runners
 * (two processes' pools) run each job once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Clock } from '../../src/clock.js';
import { JobRunner, type JobHandler } from '../../src/jobs/job-runner.js';
import { insertJobs, jobsStatus } from '../../src/jobs/scheduled-jobs.repository.js';
import { createTeam } from '../../src/membership/accounts.service.js';
import { openStore, type Store } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { TEST_STORE, tempDatabase, type TempDatabase } from '../harness.js';
import { waitFor } from '../webhooks/support.js';

const T0 = Date.parse('2031-05-01T09:00:00Z');

/** A clock that reads what the test sets. */
function manualClock(at: number): Clock & { set(ms: number): void } {
  let now = at;
  return { now: () => new Date(now), set: (ms) => (now = ms) };
}

const quietLog = { warn: () => undefined, info: () => undefined };

describe(`scheduled jobs (${TEST_STORE})`, { timeout: 30_000 }, () => {
  let database: TempDatabase;
  let store: Store;
  let teamId: string;
  before(async () => {
    database = await tempDatabase();
    store = openStore(database.url);
    await migrateToLatest(store);
    teamId = (await store.transaction((trx) => createTeam(trx, 'Jobs'))).id;
  });
  after(async () => {
    await store.close();
    await database.remove();
  });

  const plan = (kind: string, runAt: number, data: unknown = {}) =>
    insertJobs(store.db, [{ kind, teamId, taskId: null, userId: null, data, runAt: new Date(runAt) }], new Date());
  const left = async (kind: string) =>
    (await store.db.selectFrom('scheduled_jobs').select(['id', 'last_error']).where('kind', '=', kind).execute())
      .length;
  const runner = (handlers: Record<string, JobHandler>, clock: Clock, on: Store = store) =>
    new JobRunner(on, handlers, { pollMs: 20, leaseMs: 60_000, clock, log: quietLog });

  test('a due job runs once at its time, told whether it is late; one not yet due waits for its time', async () => {
    const clock = manualClock(T0 + 1_000);
    const runs: { data: unknown; late: boolean }[] = [];
    await plan('test.timed', T0, 'on time');
    await plan('test.timed', T0 - 5 * 60_000, 'late');
    await plan('test.timed', T0 + 60 * 60_000, 'in an hour');
    const jobs = runner(
      { 'test.timed': async (_trx, job, context) => void runs.push({ data: job.data, late: context.late }) },
      clock,
    );
    jobs.start();
    try {
      await waitFor('the due jobs', async () => (await left('test.timed')) === 1);
      assert.deepEqual(runs, [
        { data: 'late', late: true },
        { data: 'on time', late: false },
      ]);
      clock.set(T0 + 60 * 60_000);
      await waitFor('the job an hour later', async () => (await left('test.timed')) === 0);
      assert.deepEqual(
        runs.map((run) => run.data),
        ['late', 'on time', 'in an hour'],
        'each ran exactly once',
      );
    } finally {
      await jobs.close();
    }
  });

  test('a job whose work fails stays, undone, with its reason, and is tried again after a delay', async () => {
    const clock = manualClock(T0);
    await plan('test.flaky', T0);
    let attempts = 0;
    const jobs = runner(
      {
        'test.flaky': async (trx) => {
          attempts++;
          await trx
            .updateTable('teams')
            .set({ name: `Renamed by attempt ${attempts}` })
            .where('id', '=', teamId)
            .execute();
          if (attempts === 1) throw new Error('the first attempt fails');
        },
      },
      clock,
    );
    jobs.start();
    try {
      const status = await waitFor('the failure recorded', async () => {
        const shown = await jobsStatus(store.db, clock.now(), 10);
        return shown.failing.length === 1 && shown;
      });
      assert.deepEqual(status.kinds, [
        { kind: 'test.flaky', planned: 1, due: 1, failing: 1, nextRunAt: new Date(T0).toISOString() },
      ]);
      const [failing] = status.failing;
      assert.equal(failing!.error, 'the first attempt fails');
      assert.equal(failing!.attempts, 1);
      assert.equal(failing!.retryAt, new Date(T0 + 30_000).toISOString(), 'tried again 30 s later');
      const team = await store.db.selectFrom('teams').select('name').where('id', '=', teamId).executeTakeFirstOrThrow();
      assert.equal(team.name, 'Jobs', 'the failed attempt’s writes were rolled back with it');

      clock.set(T0 + 30_000);
      await waitFor('the second attempt', async () => (await left('test.flaky')) === 0);
      assert.equal(attempts, 2);
      const renamed = await store.db
        .selectFrom('teams')
        .select('name')
        .where('id', '=', teamId)
        .executeTakeFirstOrThrow();
      assert.equal(renamed.name, 'Renamed by attempt 2');
    } finally {
      await jobs.close();
      await store.db.updateTable('teams').set({ name: 'Jobs' }).where('id', '=', teamId).execute();
    }
  });

  // On PostgreSQL each runner has its own pool, as two processes would; SQLite is one process's.
  test('two runners on one database run each of 200 jobs exactly once', async () => {
    const clock = manualClock(T0);
    for (let n = 0; n < 200; n++) await plan('test.shared', T0 - n, n);
    const second = TEST_STORE === 'postgres' ? openStore(database.url) : store;
    const runs = new Map<number, number>();
    const handler: JobHandler = async (_trx, job) =>
      void runs.set(job.data as number, (runs.get(job.data as number) ?? 0) + 1);
    const runners = [runner({ 'test.shared': handler }, clock), runner({ 'test.shared': handler }, clock, second)];
    for (const jobs of runners) jobs.start();
    try {
      await waitFor('every job run', async () => (await left('test.shared')) === 0);
      assert.equal(runs.size, 200);
      assert.deepEqual(
        [...runs].filter(([, count]) => count !== 1),
        [],
        'no job ran twice',
      );
    } finally {
      for (const jobs of runners) await jobs.close();
      if (second !== store) await second.close();
    }
  });
});
