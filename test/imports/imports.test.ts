/**
 * Imports (issue 32), as a client meets them: a file is planned and nothing is written; applying
 * writes what the plan said; the same file again changes nothing; a newer one updates what
 * changed; an undo takes it back unless something it made was changed since.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestTeam, type Actor, type Team } from '../factories.js';
import { expectError, expectStatus, startTestServer, type TestServer } from '../harness.js';
import { csvOf, importFile, uploadImport, waitForImport } from './support.js';

const HEADER = ['Title', 'Description', 'Status', 'Priority', 'Due date', 'Assignees', 'Labels', 'List', 'ID'];

describe('imports', () => {
  let server: TestServer;
  let team: Team;
  let ada: Actor;
  let member: Actor;

  before(async () => {
    server = await startTestServer({ SCHEDULED_JOBS: 'on', JOBS_POLL_MS: '200' });
    team = await createTestTeam(server);
    ada = await team.member({ name: 'Ada', email: 'ada@example.test' });
    member = await team.member({ name: 'Max Member' });
  });
  after(() => server.close());

  const sheet = (title = 'Write the launch post') =>
    csvOf([
      HEADER,
      [
        title,
        'Draft, then *review*',
        'In review',
        'high',
        '2026-12-03',
        'ada@example.test; stranger@example.test',
        'marketing',
        'Launch',
        'L-1',
      ],
      ['Book the venue', '', '', 'urgent', '', 'ADA@example.test', 'marketing, ops', 'Launch', 'L-2'],
      ['x'.repeat(600), '', 'Done', '', '', '', '', 'Launch', 'L-3'],
    ]);

  const tasksOf = async (api = team.owner.api) => expectStatus(await api.get('/v1/tasks?limit=1000'), 200);

  it('answers a plan with counts, first rows, unknown people and problems by line, and writes nothing', async () => {
    const before = await tasksOf();
    const planned = expectStatus(
      await uploadImport(team.owner.api, sheet(), { source: 'csv' }, { fileName: 'launch.csv' }),
      201,
    );
    assert.equal(planned.status, 'planned');
    assert.equal(planned.source, 'csv');
    assert.equal(planned.fileName, 'launch.csv');
    const { kinds, people, problems } = planned.plan;
    assert.equal(kinds.task.create, 3);
    assert.equal(kinds.list.create, 1);
    assert.deepEqual(
      kinds.task.first.map((row: any) => row.line),
      [2, 3, 4],
    );
    assert.equal(kinds.status.create, 1, 'In review is new; Done is a status of the team');
    assert.deepEqual(kinds.label.first.map((row: any) => row.name).sort(), ['marketing', 'ops']);
    assert.equal(people.matched, 1);
    assert.deepEqual(people.unknown, [{ name: null, email: 'stranger@example.test', line: 2, count: 1 }]);
    assert.ok(
      problems.some((p: any) => p.line === 2 && p.message.includes('stranger@example.test')),
      JSON.stringify(problems),
    );
    assert.ok(
      problems.some((p: any) => p.line === 4 && p.message.includes('shortened to 500')),
      JSON.stringify(problems),
    );
    assert.deepEqual(await tasksOf(), before, 'a plan writes nothing');
    const statuses = expectStatus(await team.owner.api.get('/v1/task-statuses'), 200);
    assert.ok(!statuses.some((s: any) => s.name === 'In review'));
  });

  let applied: any;
  it('applies the plan: the tasks, their status, people by email, labels, list and dates, as the file says', async () => {
    applied = await importFile(team.owner.api, sheet(), { source: 'csv' }, 'launch.csv');
    assert.deepEqual(applied.progress, { done: applied.progress.total, total: applied.progress.total });
    assert.equal(applied.result.create, applied.progress.total);
    assert.ok(applied.undoUntil);
    const items = await tasksOf();
    const post = items.find((t: any) => t.title === 'Write the launch post');
    assert.ok(post, JSON.stringify(items.map((t: any) => t.title)));
    const detail = expectStatus(await team.owner.api.get(`/v1/tasks/${post.id}`), 200);
    assert.equal(detail.description, 'Draft, then *review*');
    assert.equal(detail.status.name, 'In review');
    assert.equal(detail.priority, 'high');
    assert.equal(detail.dueDate, '2026-12-03');
    assert.deepEqual(
      detail.assignees.map((a: any) => a.id),
      [ada.userId],
    );
    assert.deepEqual(
      detail.labels.map((l: any) => l.name),
      ['marketing'],
    );
    assert.deepEqual(
      detail.taskLists.map((l: any) => l.name),
      ['Launch'],
    );
    const long = items.find((t: any) => t.title.startsWith('xxx'));
    assert.equal(long.title.length, 500);
    assert.equal(expectStatus(await team.owner.api.get(`/v1/tasks/${long.id}`), 200).isCompleted, true);
    // An import notifies no one: Ada was assigned two tasks by it.
    const inbox = expectStatus(await ada.api.get('/v1/notifications'), 200);
    assert.equal(inbox.items.length, 0, JSON.stringify(inbox));
  });

  it('the same file again plans nothing but unchanged rows, and applying it changes nothing', async () => {
    const before = await tasksOf();
    const again = expectStatus(await uploadImport(team.owner.api, sheet(), { source: 'csv' }), 201);
    assert.equal(again.plan.kinds.task.unchanged, 3);
    assert.equal(again.plan.kinds.task.create + again.plan.kinds.task.update, 0);
    assert.equal(again.plan.kinds.list.unchanged, 1);
    expectStatus(await team.owner.api.post(`/v1/imports/${again.id}/apply`), 200);
    const ended = await waitForImport(team.owner.api, again.id);
    assert.equal(ended.result.create + ended.result.update, 0, JSON.stringify(ended.result));
    assert.deepEqual(await tasksOf(), before, 'no task changed, not even its version');
  });

  it('a newer file updates what changed in it, by its refs, and leaves the rest', async () => {
    const ended = await importFile(team.owner.api, sheet('Write the launch post, v2'), { source: 'csv' });
    assert.equal(ended.result.update, 1);
    assert.equal(ended.result.create, 0);
    const titles = (await tasksOf()).map((t: any) => t.title);
    assert.ok(titles.includes('Write the launch post, v2'));
    assert.ok(!titles.includes('Write the launch post'));
  });

  it('an undo is refused, naming what blocks it, once a task it created was edited; and takes it back otherwise', async () => {
    const file = csvOf([
      HEADER,
      ['Undo me', '', '', '', '', '', '', 'Scratch', 'U-1'],
      ['Edit me', '', '', '', '', '', '', 'Scratch', 'U-2'],
    ]);
    const ended = await importFile(team.owner.api, file, { source: 'csv' });
    const tasks = await tasksOf();
    const edited = tasks.find((t: any) => t.title === 'Edit me');
    expectStatus(await team.owner.api.patch(`/v1/tasks/${edited.id}`, { priority: 'low' }), 200);
    const refused = await team.owner.api.post(`/v1/imports/${ended.id}/undo`);
    expectError(refused, 409, new RegExp(`task #${edited.number} “Edit me” was edited`));
    assert.ok(
      (await tasksOf()).some((t: any) => t.title === 'Undo me'),
      'a refused undo changes nothing',
    );

    expectStatus(await team.owner.api.delete(`/v1/tasks/${edited.id}`), 200);
    const undone = expectStatus(await team.owner.api.post(`/v1/imports/${ended.id}/undo`), 200);
    assert.equal(undone.status, 'undone');
    assert.ok(!(await tasksOf()).some((t: any) => t.title === 'Undo me'));
    expectError(await team.owner.api.post(`/v1/imports/${ended.id}/undo`), 409, /undone already/);
    // Undone, its refs are forgotten: the file imports anew.
    const again = expectStatus(await uploadImport(team.owner.api, file, { source: 'csv' }), 201);
    assert.equal(again.plan.kinds.task.create, 2);
  });

  it('a planned import can be cancelled, and then not applied', async () => {
    const planned = expectStatus(await uploadImport(team.owner.api, sheet(), { source: 'csv' }), 201);
    const cancelled = expectStatus(await team.owner.api.post(`/v1/imports/${planned.id}/cancel`), 200);
    assert.equal(cancelled.status, 'cancelled');
    expectError(
      await team.owner.api.post(`/v1/imports/${planned.id}/apply`),
      409,
      /only a planned import can be applied/,
    );
  });

  it('takes the fields in any order, the file first too', async () => {
    const planned = expectStatus(
      await uploadImport(team.owner.api, sheet(), { source: 'csv' }, { fileFirst: true }),
      201,
    );
    assert.equal(planned.status, 'planned');
  });

  it('a CSV takes a column mapping', async () => {
    const file = csvOf([
      ['Name', 'When'],
      ['Mapped task', '2027-01-02'],
    ]);
    const planned = expectStatus(
      await uploadImport(team.owner.api, file, {
        source: 'csv',
        columns: JSON.stringify({ title: 'Name', dueDate: 'When' }),
      }),
      201,
    );
    assert.deepEqual(planned.plan.kinds.task.first, [{ line: 2, action: 'create', name: 'Mapped task' }]);
  });

  it('refuses a file its source cannot read, bad fields, and members, with a clear error, keeping nothing', async () => {
    const before = expectStatus(await team.owner.api.get('/v1/imports'), 200).length;
    expectError(await uploadImport(team.owner.api, 'not gzip', { source: 'tasklane' }), 400);
    expectError(await uploadImport(team.owner.api, '{', { source: 'trello' }), 400);
    expectError(await uploadImport(team.owner.api, sheet(), { source: 'excel' }), 400, /source must be one of/);
    expectError(await uploadImport(team.owner.api, sheet(), {}), 400, /source must be one of/);
    expectError(
      await uploadImport(team.owner.api, sheet(), { source: 'csv', columns: '{"nope": "X"}' }),
      400,
      /nope is not a field/,
    );
    expectError(
      await uploadImport(team.owner.api, sheet(), { source: 'csv', columns: '[' }),
      400,
      /columns must be a JSON object/,
    );
    expectError(
      await uploadImport(team.owner.api, sheet(), { source: 'trello', columns: '{}' }),
      400,
      /csv source only/,
    );
    expectError(
      await uploadImport(team.owner.api, sheet(), { source: 'csv' }, { fileField: 'upload' }),
      400,
      /field "file"/,
    );
    expectError(await team.owner.api.post('/v1/imports', { source: 'csv' }), 415);
    expectError(
      await uploadImport(member.api, sheet(), { source: 'csv' }),
      403,
      /owners and admins can manage imports/,
    );
    expectError(await member.api.get('/v1/imports'), 403);
    expectError(await member.api.get(`/v1/imports/${applied.id}`), 403);
    expectError(await team.owner.api.get('/v1/imports/999999'), 404, /Import 999999 not found/);
    assert.equal(expectStatus(await team.owner.api.get('/v1/imports'), 200).length, before);
  });

  it("another team's import is not found", async () => {
    const other = await createTestTeam(server);
    expectError(await other.owner.api.get(`/v1/imports/${applied.id}`), 404);
    expectError(await other.owner.api.post(`/v1/imports/${applied.id}/undo`), 404);
  });
});
