/**
 * An apply's progress (issue 32): batches of APPLY_BATCH rows, each followed by `import.progress`
 * `{"importId"}` to the person who applied it alone; a cancel stops it at the next batch; the
 * housekeeping drops abandoned uploads and cancels plans nobody applied.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { APPLY_BATCH } from '../../src/imports/apply.js';
import { dropStaleImports, PLAN_RETENTION_MS } from '../../src/imports/expiry.js';
import { createTestTeam, type Team } from '../factories.js';
import { expectError, expectStatus, startTestServer, type TestServer } from '../harness.js';
import { live, TIMEOUT } from '../events/support.js';
import { closeAllStreams } from '../sse/stream.js';
import { csvOf, uploadImport, waitForImport } from './support.js';

/** A spreadsheet of `count` tasks on a list named after `prefix`. */
const rows = (count: number, prefix: string) =>
  csvOf([['Title', 'List'], ...Array.from({ length: count }, (_, i) => [`${prefix} ${i + 1}`, `${prefix} list`])]);

describe('import progress', TIMEOUT, () => {
  let server: TestServer;
  let team: Team;

  before(async () => {
    server = await startTestServer({ SCHEDULED_JOBS: 'on', JOBS_POLL_MS: '200', EVENTS_HEARTBEAT_SECONDS: '1' });
    team = await createTestTeam(server);
  });
  after(async () => {
    await closeAllStreams();
    await server.close();
  });

  test('each batch is followed by import.progress to the person applying, and to no one else', async () => {
    const admin = await team.member({ name: 'Ada Admin', role: 'admin' });
    const ownerStream = await live(server, team.owner, 'owner');
    const adminStream = await live(server, admin, 'admin');
    const total = APPLY_BATCH * 2 + 1;
    const planned = expectStatus(await uploadImport(team.owner.api, rows(total, 'Task'), { source: 'csv' }), 201);
    expectStatus(await team.owner.api.post(`/v1/imports/${planned.id}/apply`), 200);
    const ended = await waitForImport(team.owner.api, planned.id);
    assert.equal(ended.status, 'applied');
    assert.deepEqual(ended.progress, { done: total + 1, total: total + 1 }, 'its tasks and its list');
    let heard = 0;
    const progress = await ownerStream.collectUntil((e) => e.type === 'import.progress' && ++heard === 3, 10_000);
    const events = progress.filter((e) => e.type === 'import.progress');
    assert.equal(events.length, 3, 'one after each of its three batches, the last as it ends');
    for (const event of events) assert.deepEqual(JSON.parse(event.data), { importId: planned.id });
    await ownerStream.expectNothingFor(300);
    // The admin hears of nothing of it: the tasks are on a list only the owner is on.
    await adminStream.expectNothingFor(300);
  });

  test('a cancel stops an apply at its next batch; what it wrote stays, and can be undone', async () => {
    const planned = expectStatus(
      await uploadImport(team.owner.api, rows(APPLY_BATCH * 30, 'Cancelled'), { source: 'csv' }),
      201,
    );
    expectStatus(await team.owner.api.post(`/v1/imports/${planned.id}/apply`), 200);
    const cancelled = expectStatus(await team.owner.api.post(`/v1/imports/${planned.id}/cancel`), 200);
    assert.equal(cancelled.status, 'cancelled');
    const ended = await waitForImport(team.owner.api, planned.id);
    assert.equal(ended.status, 'cancelled');
    assert.ok(ended.progress.done < ended.progress.total, JSON.stringify(ended.progress));
    const written = expectStatus(await team.owner.api.get('/v1/tasks?limit=1000'), 200).filter((t: any) =>
      t.title.startsWith('Cancelled'),
    ).length;
    // What it created: its list (the file's first row), then the tasks of the batches it ran.
    assert.equal(written, Math.max(ended.result.create - 1, 0));
    expectError(
      await team.owner.api.post(`/v1/imports/${planned.id}/cancel`),
      409,
      /only a planned or applying import/,
    );
    expectStatus(await team.owner.api.post(`/v1/imports/${planned.id}/undo`), 200);
    const left = expectStatus(await team.owner.api.get('/v1/tasks?limit=1000'), 200).filter((t: any) =>
      t.title.startsWith('Cancelled'),
    );
    assert.equal(left.length, 0);
  });

  test('two applies of one plan at once: one applies it, the other is refused, and it is written once', async () => {
    const planned = expectStatus(await uploadImport(team.owner.api, rows(5, 'Twice'), { source: 'csv' }), 201);
    const answers = await Promise.all([
      team.owner.api.post(`/v1/imports/${planned.id}/apply`),
      team.owner.api.post(`/v1/imports/${planned.id}/apply`),
    ]);
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 409], answers.map((a) => a.text).join(' / '));
    assert.equal((await waitForImport(team.owner.api, planned.id)).status, 'applied');
    const written = expectStatus(await team.owner.api.get('/v1/tasks?limit=1000'), 200).filter((t: any) =>
      t.title.startsWith('Twice'),
    );
    assert.equal(written.length, 5);
  });

  test('the housekeeping cancels a plan nobody applied in a week, and leaves a newer one', async () => {
    const old = expectStatus(await uploadImport(team.owner.api, rows(3, 'Old'), { source: 'csv' }), 201);
    const later = new Date(Date.now() + PLAN_RETENTION_MS + 60_000);
    assert.ok((await dropStaleImports(server.store.db, later)) >= 1);
    const shown = expectStatus(await team.owner.api.get(`/v1/imports/${old.id}`), 200);
    assert.equal(shown.status, 'cancelled');
    assert.match(shown.error, /Nobody applied the plan/);
    expectError(await team.owner.api.post(`/v1/imports/${old.id}/apply`), 409);
    const rowsLeft = await server.store.db
      .selectFrom('import_rows')
      .select('seq')
      .where('import_id', '=', old.id)
      .execute();
    assert.equal(rowsLeft.length, 0);
    const fresh = expectStatus(await uploadImport(team.owner.api, rows(3, 'Fresh'), { source: 'csv' }), 201);
    await dropStaleImports(server.store.db);
    assert.equal(expectStatus(await team.owner.api.get(`/v1/imports/${fresh.id}`), 200).status, 'planned');
  });
});
