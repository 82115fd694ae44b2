import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TaskSummary } from '../../src/contract/index.js';
import { createTestTeam, type Actor } from '../factories.js';
import { expectStatus, startTestServer, type TestServer } from '../harness.js';

/** The fields of a summary, in the order the response schema serializes them. */
const SUMMARY_FIELDS = Object.keys(TaskSummary.properties);

async function detail(actor: Actor, taskId: number) {
  return expectStatus(await actor.api.get(`/v1/tasks/${taskId}`), 200);
}

/** The detail cut to a summary: what GET /v1/tasks must show for the same task and caller. */
function asSummary(task: Record<string, unknown>) {
  const status = task.status as { id: number; name: string };
  return Object.fromEntries(
    SUMMARY_FIELDS.map((field) => [field, field === 'status' ? { id: status.id, name: status.name } : task[field]]),
  );
}

// The database writes each page's JSON (tasks/task-query.ts), while a detail is built in the
// server: these tests hold the two to the same shape, types, order and visibility rules.
describe('GET /v1/tasks rows', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  test("each row is the task's detail cut to the summary's fields, with the same types and key order", async () => {
    const team = await createTestTeam(server);
    const owner = team.owner;
    const list = expectStatus(await owner.api.post('/v1/lists', { name: 'Café "quoted" \\ list' }), 201);
    const parent = expectStatus(await owner.api.post('/v1/tasks', { title: 'Parent' }), 201);
    const full = expectStatus(
      await owner.api.post('/v1/tasks', {
        title: 'Ünïcödé 😀 "title" with \\ and \n newline',
        priority: 'urgent',
        dueDate: '2026-12-31',
        parentId: parent.id,
        taskListIds: [list.id],
        assigneeIds: [owner.userId],
      }),
      201,
    );
    const statuses = expectStatus(await owner.api.get('/v1/task-statuses'), 200) as {
      id: number;
      isCompleted: boolean;
    }[];
    const done = statuses.find((s) => s.isCompleted)!;
    expectStatus(await owner.api.patch(`/v1/tasks/${full.id}`, { taskStatusId: done.id }), 200);

    const response = await owner.api.get('/v1/tasks');
    assert.match(response.headers.get('content-type') ?? '', /^application\/json; charset=utf-8$/);
    const rows = expectStatus(response, 200) as Record<string, unknown>[];
    assert.equal(rows.length, 2);
    for (const row of rows) {
      const expected = asSummary(await detail(owner, row.id as number));
      assert.deepEqual(row, expected);
      assert.deepEqual(Object.keys(row), SUMMARY_FIELDS, "keys in the schema's order, as the serializer writes them");
    }
    const [first, second] = rows;
    assert.equal(first!.isCompleted, true, 'a boolean, not 1');
    assert.equal(second!.isCompleted, false, 'a boolean, not 0');
    assert.equal(second!.priority, null);
    assert.deepEqual(second!.assignees, []);
    assert.deepEqual(second!.taskLists, []);
  });

  test('assignees are ordered by name (by code point, whatever the database collation), then id', async () => {
    const team = await createTestTeam(server);
    // Code point order: "B" < "a" < "é" < "Ｆ" (U+FF26) < "😀" (U+1F600), whatever a locale would say.
    const names = ['😀 Smile', 'Ｆullwidth', 'é accent', 'a lower', 'B upper', 'B upper'];
    const people = [];
    for (const name of names) people.push(await team.member({ name }));
    const task = expectStatus(
      await team.owner.api.post('/v1/tasks', { title: 'Crowded', assigneeIds: people.map((p) => p.userId) }),
      201,
    );
    const [row] = expectStatus(await team.owner.api.get('/v1/tasks'), 200);
    const twins = people
      .slice(4)
      .map((p) => p.userId)
      .sort();
    assert.deepEqual(
      row.assignees.map((p: { name: string; id: string }) => [p.name, p.id]),
      [
        ['B upper', twins[0]],
        ['B upper', twins[1]],
        ['a lower', people[3]!.userId],
        ['é accent', people[2]!.userId],
        ['Ｆullwidth', people[1]!.userId],
        ['😀 Smile', people[0]!.userId],
      ],
    );
    assert.deepEqual(row.assignees, task.assignees, "the same order as the create's answer");
  });

  test('a row names only the lists its reader is a member of, by id', async () => {
    const team = await createTestTeam(server);
    const reader = await team.member({ name: 'Reader' });
    const lists = [];
    for (const name of ['Shared 1', 'Private', 'Shared 2']) {
      lists.push(expectStatus(await team.owner.api.post('/v1/lists', { name }), 201));
    }
    for (const shared of [lists[2], lists[0]]) {
      expectStatus(await team.owner.api.post(`/v1/lists/${shared.id}/members`, { userId: reader.userId }), 201);
    }
    expectStatus(
      await team.owner.api.post('/v1/tasks', {
        title: 'On three lists',
        taskListIds: [lists[2].id, lists[1].id, lists[0].id],
        assigneeIds: [reader.userId],
      }),
      201,
    );
    const [ownerRow] = expectStatus(await team.owner.api.get('/v1/tasks'), 200);
    assert.deepEqual(
      ownerRow.taskLists.map((l: { id: number }) => l.id),
      lists.map((l) => l.id).sort((a, b) => a - b),
    );
    const [readerRow] = expectStatus(await reader.api.get('/v1/tasks'), 200);
    assert.deepEqual(readerRow.taskLists, [
      { id: lists[0].id, name: 'Shared 1' },
      { id: lists[2].id, name: 'Shared 2' },
    ]);
  });
});
