/**
 * An apply whose batch fails on a fault of the server (issue 32): the runner tries it again later,
 * and after MAX_BATCH_TRIES the import stops as failed, saying so; what earlier batches wrote stays
 * and can be undone. The fault is a database trigger that refuses one task's insert.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { APPLY_BATCH, APPLY_JOB, GAVE_UP_MESSAGE, MAX_BATCH_TRIES } from '../../src/imports/apply.js';
import { isPostgres } from '../../src/storage/dialect.js';
import { createTestTeam, type Team } from '../factories.js';
import { expectStatus, startTestServer, type TestServer } from '../harness.js';
import { TIMEOUT } from '../events/support.js';
import { csvOf, uploadImport, waitForImport } from './support.js';

const FAULTY_TITLE = 'Faulty';

describe('an import batch that keeps failing', TIMEOUT, () => {
  let server: TestServer;
  let team: Team;

  before(async () => {
    server = await startTestServer({ SCHEDULED_JOBS: 'on', JOBS_POLL_MS: '100' });
    team = await createTestTeam(server);
    const db = server.store.db;
    if (isPostgres(db)) {
      await sql`create function refuse_faulty() returns trigger language plpgsql as $$
        begin if new.title = ${sql.lit(FAULTY_TITLE)} then raise exception 'injected fault'; end if; return new; end $$`.execute(
        db,
      );
      await sql`create trigger refuse_faulty before insert on tasks for each row execute function refuse_faulty()`.execute(
        db,
      );
    } else {
      await sql`create trigger refuse_faulty before insert on tasks when new.title = ${sql.lit(FAULTY_TITLE)}
        begin select raise(abort, 'injected fault'); end`.execute(db);
    }
  });
  after(() => server.close());

  /** The apply job once it has failed its `tries`-th try (and waits to be tried again). */
  async function failedTry(tries: number): Promise<{ id: number }> {
    for (const deadline = Date.now() + 30_000; ;) {
      const job = await server.store.db
        .selectFrom('scheduled_jobs')
        .select(['id', 'attempts', 'last_error'])
        .where('kind', '=', APPLY_JOB)
        .executeTakeFirst();
      if (job && job.last_error !== null && job.attempts === tries) return job;
      assert.ok(Date.now() < deadline, `the apply job has not failed its try ${tries}: ${JSON.stringify(job)}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Makes the job due now, as `tries` tries so far: the runner's delays grow to half an hour. */
  async function dueNow(job: { id: number }, tries?: number): Promise<void> {
    await server.store.db
      .updateTable('scheduled_jobs')
      .set({
        claimed_until: new Date().toISOString(),
        last_error: null,
        ...(tries !== undefined && { attempts: tries }),
      })
      .where('id', '=', job.id)
      .execute();
  }

  test(`after ${MAX_BATCH_TRIES} failed tries of a batch the import stops as failed, and what it wrote can be undone`, async () => {
    const titles = Array.from({ length: APPLY_BATCH + 20 }, (_, i) => `Fine ${i + 1}`);
    titles[APPLY_BATCH + 10] = FAULTY_TITLE; // in the second batch: the first is written
    const file = csvOf([['Title'], ...titles.map((title) => [title])]);
    const planned = expectStatus(await uploadImport(team.owner.api, file, { source: 'csv' }), 201);
    expectStatus(await team.owner.api.post(`/v1/imports/${planned.id}/apply`), 200);

    const job = await failedTry(1);
    await dueNow(job, MAX_BATCH_TRIES - 1);
    await failedTry(MAX_BATCH_TRIES);
    assert.equal(expectStatus(await team.owner.api.get(`/v1/imports/${planned.id}`), 200).status, 'applying');
    await dueNow(job);

    const ended = await waitForImport(team.owner.api, planned.id);
    assert.equal(ended.status, 'failed');
    assert.equal(ended.error, GAVE_UP_MESSAGE);
    assert.equal(ended.result.create, APPLY_BATCH, 'the first batch was written, the second not');
    const left = await server.store.db
      .selectFrom('scheduled_jobs')
      .select('id')
      .where('kind', '=', APPLY_JOB)
      .execute();
    assert.deepEqual(left, [], 'nothing is tried again');

    expectStatus(await team.owner.api.post(`/v1/imports/${planned.id}/undo`), 200);
    const tasks = expectStatus(await team.owner.api.get('/v1/tasks?limit=1000'), 200);
    assert.equal(tasks.filter((task: { title: string }) => task.title.startsWith('Fine')).length, 0);
  });
});
