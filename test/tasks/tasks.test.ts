import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { createTestTeam, type Actor } from '../factories.js';
import { expectFixedError } from '../fixed-errors.js';
import { expectError, expectStatus, startTestServer, type TestServer } from '../harness.js';

const DETAIL_KEYS = [
  'assignees',
  'attachmentCount', // issue 31: an extension, 0 without files
  'createdAt',
  'createdBy',
  'description',
  'dueDate',
  'id',
  'isCompleted',
  'labels', // issue 29: an extension, [] without labels
  'number',
  'parent',
  'parentId',
  'priority',
  'status',
  'subtaskCount',
  'taskLists',
  'taskStatusId',
  'title',
  'updatedAt',
];
const UPDATE_KEYS = ['dueDate', 'id', 'number', 'priority', 'taskStatusId', 'title', 'updatedAt'];

interface Status {
  id: number;
  name: string;
  color: string | null;
  isDefault: boolean;
  isCompleted: boolean;
}

/** The team's statuses by name: "To do" (default), "In progress", "Done" (completed). */
async function statusesOf(actor: Actor): Promise<Record<string, Status>> {
  const all: Status[] = expectStatus(await actor.api.get('/v1/task-statuses'), 200);
  return Object.fromEntries(all.map((s) => [s.name, s]));
}

async function newList(actor: Actor, name = 'List', members: Actor[] = []): Promise<{ id: number; name: string }> {
  const list = expectStatus(await actor.api.post('/v1/lists', { name }), 201);
  for (const m of members)
    expectStatus(await actor.api.post(`/v1/lists/${list.id}/members`, { userId: m.userId }), 201);
  return list;
}

async function newTask(actor: Actor, body: Record<string, unknown> = {}) {
  return expectStatus(await actor.api.post('/v1/tasks', { title: 'A task', ...body }), 201);
}

const getTask = async (actor: Actor, id: number) => expectStatus(await actor.api.get(`/v1/tasks/${id}`), 200);
const visibleIds = async (actor: Actor): Promise<number[]> =>
  expectStatus(await actor.api.get('/v1/tasks'), 200).map((t: { id: number }) => t.id);
const person = (a: Actor) => ({ id: a.userId, name: a.name, email: a.email });
const isIsoTimestamp = (value: string) => new Date(value).toISOString() === value;

describe('tasks', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  describe('POST /v1/tasks', () => {
    test('answers 201 with the full detail, the default status and empty relations', async () => {
      const { owner } = await createTestTeam(server);
      const todo = (await statusesOf(owner))['To do']!;
      assert.equal(todo.isDefault, true);
      const task = await newTask(owner, { title: 'Write the spec' });
      assert.deepEqual(Object.keys(task).sort(), DETAIL_KEYS);
      assert.equal(typeof task.id, 'number');
      assert.ok(isIsoTimestamp(task.createdAt), task.createdAt);
      assert.equal(task.updatedAt, task.createdAt);
      assert.deepEqual(task, {
        id: task.id,
        number: 1,
        title: 'Write the spec',
        description: null,
        priority: null,
        dueDate: null,
        parentId: null,
        parent: null,
        subtaskCount: 0,
        attachmentCount: 0,
        createdAt: task.createdAt,
        updatedAt: task.createdAt,
        isCompleted: false,
        taskStatusId: todo.id,
        status: { id: todo.id, name: 'To do', color: todo.color, isCompleted: false },
        assignees: [],
        taskLists: [],
        createdBy: person(owner),
        labels: [],
      });
      assert.deepEqual(await getTask(owner, task.id), task);
    });

    test('stores every given field, follows the status for isCompleted and deduplicates ids', async () => {
      const team = await createTestTeam(server);
      const mate = await team.member({ name: 'Mate' });
      const { owner } = team;
      const done = (await statusesOf(owner))['Done']!;
      const a = await newList(owner, 'Alpha');
      const b = await newList(owner, 'Beta');
      const task = await newTask(owner, {
        title: 'Ship it',
        description: '# Notes\n\n- one',
        priority: 'urgent',
        dueDate: '2024-02-29',
        taskStatusId: done.id,
        taskListIds: [b.id, a.id, b.id],
        assigneeIds: [mate.userId, owner.userId, mate.userId],
      });
      assert.equal(task.description, '# Notes\n\n- one');
      assert.equal(task.priority, 'urgent');
      assert.equal(task.dueDate, '2024-02-29');
      assert.equal(task.taskStatusId, done.id);
      assert.deepEqual(task.status, { id: done.id, name: 'Done', color: done.color, isCompleted: true });
      assert.equal(task.isCompleted, true);
      assert.deepEqual(
        task.taskLists,
        [a, b].map(({ id, name }) => ({ id, name })),
      );
      assert.deepEqual(task.assignees, [person(mate), person(owner)]);
      assert.deepEqual(await getTask(owner, task.id), task);
      // An assignee gains access; the lists they are not a member of stay hidden from them.
      assert.deepEqual((await getTask(mate, task.id)).taskLists, []);
    });

    test('numbers tasks 1, 2, 3… per team, independently across teams, ignoring a client number', async () => {
      const one = (await createTestTeam(server)).owner;
      const two = (await createTestTeam(server)).owner;
      const numbers: [number, number][] = [];
      for (let i = 0; i < 3; i++) {
        numbers.push([(await newTask(one, { number: 99 })).number, (await newTask(two, { id: 1 })).number]);
      }
      assert.deepEqual(numbers, [
        [1, 1],
        [2, 2],
        [3, 3],
      ]);
    });

    test('makes a subtask with parentId; the parent counts it', async () => {
      const { owner } = await createTestTeam(server);
      const parent = await newTask(owner, { title: 'Epic' });
      const child = await newTask(owner, { title: 'Story', parentId: parent.id });
      await newTask(owner, { title: 'Story 2', parentId: parent.id });
      assert.equal(child.parentId, parent.id);
      assert.deepEqual(child.parent, { id: parent.id, number: 1, title: 'Epic' });
      assert.equal((await getTask(owner, parent.id)).subtaskCount, 2);
      assert.equal(child.subtaskCount, 0);
    });

    test('accepts a title of exactly 500 characters', async () => {
      const { owner } = await createTestTeam(server);
      assert.equal((await newTask(owner, { title: 'x'.repeat(500) })).title.length, 500);
    });

    test('answers 400 "Invalid input." to every kind of bad input, with the reason in Error-Detail, and creates nothing', async () => {
      const team = await createTestTeam(server);
      const { owner } = team;
      const mate = await team.member();
      const stranger = (await createTestTeam(server)).owner;
      const foreignStatus = (await statusesOf(stranger))['To do']!;
      const foreignList = await newList(stranger);
      const foreignTask = await newTask(stranger);
      const matesList = await newList(mate, 'Not mine');
      const archived = await newList(owner, 'Old');
      expectStatus(await owner.api.post(`/v1/lists/${archived.id}/archive`), 200);
      const matesTask = await newTask(mate); // number 1 of the team; owner has no access

      const title = 'title must be a string of 1 to 500 characters with at least one non-whitespace character.';
      const dueDate = 'dueDate must be a real calendar date written YYYY-MM-DD.';
      const priority = 'priority must be one of: low, medium, high, urgent, or null.';
      const statusId = 'taskStatusId must be a task status ID (a number).';
      const notStatus = (id: number) => `taskStatusId ${id} is not a task status of this team.`;
      const notList = (id: number) => `taskListIds: ${id} is not a list you are a member of, or it is archived.`;
      const notParent = (id: number) => `parentId ${id} is not a task you can access.`;
      const notObject = 'The request body must be an object.';
      const bad: [unknown, string][] = [
        [{}, 'title is required.'],
        [{ title: '' }, title],
        [{ title: '   \t\n' }, title],
        [{ title: 'x'.repeat(501) }, 'title must be at most 500 characters long.'],
        [{ title: 5 }, title],
        [{ title: null }, title],
        [{ title: 'x', description: 7 }, 'description must be a string of at most 100,000 characters, or null.'],
        [{ title: 'x', description: 'd'.repeat(100_001) }, 'description must be at most 100,000 characters long.'],
        [{ title: 'x', priority: 'critical' }, priority],
        [{ title: 'x', priority: 'High' }, priority],
        [{ title: 'x', dueDate: '2025-02-30' }, dueDate],
        [{ title: 'x', dueDate: '2025-13-01' }, dueDate],
        [{ title: 'x', dueDate: 'tomorrow' }, dueDate],
        [{ title: 'x', dueDate: '2025-01-01T10:00:00Z' }, dueDate],
        [{ title: 'x', taskStatusId: foreignStatus.id }, notStatus(foreignStatus.id)],
        [{ title: 'x', taskStatusId: 999999 }, notStatus(999999)],
        [{ title: 'x', taskStatusId: '1' }, statusId],
        [{ title: 'x', taskStatusId: null }, statusId],
        [{ title: 'x', taskStatusId: 1e20 }, statusId],
        [{ title: 'x', taskListIds: [foreignList.id] }, notList(foreignList.id)],
        [{ title: 'x', taskListIds: [matesList.id] }, notList(matesList.id)],
        [{ title: 'x', taskListIds: [archived.id] }, notList(archived.id)],
        [{ title: 'x', taskListIds: [999999] }, notList(999999)],
        [
          { title: 'x', taskListIds: [999998, 999999] },
          'taskListIds: 999998, 999999 are not lists you are a member of, or they are archived.',
        ],
        [{ title: 'x', taskListIds: [1.5] }, 'taskListIds[0] must be a whole number.'],
        [{ title: 'x', taskListIds: ['1'] }, 'taskListIds[0] must be a whole number.'],
        [{ title: 'x', taskListIds: 1 }, 'taskListIds must be an array of list IDs (numbers), at most 1,000.'],
        [{ title: 'x', taskListIds: [2 ** 53] }, 'taskListIds[0] must be at most 2147483647.'],
        [
          { title: 'x', assigneeIds: [stranger.userId] },
          `assigneeIds: ${stranger.userId} is not a member of this team.`,
        ],
        [{ title: 'x', assigneeIds: ['not-a-uuid'] }, 'assigneeIds[0] must be a user ID (UUID).'],
        [{ title: 'x', assigneeIds: owner.userId }, 'assigneeIds must be an array of user IDs (UUIDs), at most 1,000.'],
        [{ title: 'x', parentId: foreignTask.id }, notParent(foreignTask.id)],
        [{ title: 'x', parentId: matesTask.id }, notParent(matesTask.id)],
        [{ title: 'x', parentId: 999999 }, notParent(999999)],
        [{ title: 'x', parentId: 'abc' }, 'parentId must be a task ID (a number).'],
        [{ title: 'x', parentId: 1e20 }, 'parentId must be a task ID (a number).'],
        [[], notObject],
        ['title', notObject],
        [42, notObject],
        [null, notObject],
      ];
      for (const [body, detail] of bad) {
        const res = await owner.api.request('POST', '/v1/tasks', {
          rawBody: JSON.stringify(body),
          headers: { 'content-type': 'application/json' },
        });
        expectFixedError(res, 'Invalid input.', detail);
      }
      for (const [raw, detail] of [
        ['{"title":', 'The request body is not valid JSON.'],
        ['{title: "x"}', 'The request body is not valid JSON.'],
        ['', notObject],
      ] as const) {
        const res = await owner.api.request('POST', '/v1/tasks', {
          rawBody: raw,
          headers: { 'content-type': 'application/json' },
        });
        expectFixedError(res, 'Invalid input.', detail);
      }
      assert.deepEqual(await visibleIds(owner), []);
      assert.deepEqual(await visibleIds(mate), [matesTask.id]);
      assert.equal((await newTask(owner)).number, 2, 'a refused create must not use up a number');
    });
  });

  test('50+ concurrent creates in one team get distinct consecutive numbers', async () => {
    const { owner } = await createTestTeam(server);
    const n = 60;
    const created = await Promise.all(
      Array.from({ length: n }, (_, i) => owner.api.post('/v1/tasks', { title: `T${i}` })),
    );
    const numbers = created.map((res) => expectStatus(res, 201).number).sort((x: number, y: number) => x - y);
    assert.deepEqual(
      numbers,
      Array.from({ length: n }, (_, i) => i + 1),
    );
    assert.equal((await visibleIds(owner)).length, n);
  });

  describe('GET /v1/tasks/{taskId}', () => {
    test('creator, assignee and list member may read; others get 403, other teams and missing ids 404', async () => {
      const team = await createTestTeam(server);
      const { owner } = team;
      const [assignee, listMember, outsider] = [await team.member(), await team.member(), await team.member()];
      const stranger = (await createTestTeam(server)).owner;
      const list = await newList(owner, 'Shared', [listMember]);
      const task = await newTask(owner, { assigneeIds: [assignee.userId], taskListIds: [list.id] });

      for (const reader of [owner, assignee, listMember]) assert.equal((await getTask(reader, task.id)).id, task.id);
      expectError(await outsider.api.get(`/v1/tasks/${task.id}`), 403, 'You do not have access to this task.');
      expectError(await stranger.api.get(`/v1/tasks/${task.id}`), 404, `Task ${task.id} not found.`);
      expectError(await owner.api.get('/v1/tasks/999999'), 404, 'Task 999999 not found.');
      expectError(await owner.api.get('/v1/tasks/99999999999999999999'), 404, 'Task 99999999999999999999 not found.');
      expectError(await owner.api.get('/v1/tasks/abc'), 400);
      expectError(await owner.api.get('/v1/tasks/-1'), 400);
    });

    test('membership of an archived list gives no access', async () => {
      const team = await createTestTeam(server);
      const listMember = await team.member();
      const list = await newList(team.owner, 'Shared', [listMember]);
      const task = await newTask(team.owner, { taskListIds: [list.id] });
      expectStatus(await team.owner.api.post(`/v1/lists/${list.id}/archive`), 200);
      expectError(await listMember.api.get(`/v1/tasks/${task.id}`), 403, 'You do not have access to this task.');
      assert.deepEqual(await visibleIds(listMember), []);
      assert.equal((await getTask(team.owner, task.id)).id, task.id);
    });

    test('parent is shown only when the caller can access it; subtaskCount counts subtasks', async () => {
      const team = await createTestTeam(server);
      const mate = await team.member();
      const parent = await newTask(mate, { title: 'Private epic' });
      const child = await newTask(mate, {
        title: 'Shared story',
        parentId: parent.id,
        assigneeIds: [team.owner.userId],
      });
      assert.deepEqual((await getTask(mate, child.id)).parent, {
        id: parent.id,
        number: parent.number,
        title: 'Private epic',
      });
      assert.equal((await getTask(mate, parent.id)).subtaskCount, 1);
      const seenByOwner = await getTask(team.owner, child.id);
      assert.equal(seenByOwner.parentId, parent.id);
      assert.equal(seenByOwner.parent, null);
    });
  });

  describe('PATCH /v1/tasks/{taskId}', () => {
    test('answers exactly the update result and changes only the given fields', async () => {
      const team = await createTestTeam(server);
      const mate = await team.member();
      const { owner } = team;
      const task = await newTask(owner, {
        title: 'Old',
        description: 'Keep',
        priority: 'low',
        dueDate: '2025-05-01',
        assigneeIds: [mate.userId],
      });
      await sleep(5);
      const result = expectStatus(
        await owner.api.patch(`/v1/tasks/${task.id}`, { title: 'New', priority: 'high' }),
        200,
      );
      assert.deepEqual(Object.keys(result).sort(), UPDATE_KEYS);
      assert.deepEqual(result, {
        id: task.id,
        number: task.number,
        title: 'New',
        priority: 'high',
        dueDate: '2025-05-01',
        taskStatusId: task.taskStatusId,
        updatedAt: result.updatedAt,
      });
      assert.ok(isIsoTimestamp(result.updatedAt));
      assert.ok(result.updatedAt > task.updatedAt, `updatedAt ${result.updatedAt} must advance past ${task.updatedAt}`);
      assert.deepEqual(await getTask(owner, task.id), {
        ...task,
        title: 'New',
        priority: 'high',
        updatedAt: result.updatedAt,
      });
    });

    test('null clears description, priority and dueDate', async () => {
      const { owner } = await createTestTeam(server);
      const task = await newTask(owner, { description: 'text', priority: 'medium', dueDate: '2025-01-31' });
      const result = expectStatus(
        await owner.api.patch(`/v1/tasks/${task.id}`, { description: null, priority: null, dueDate: null }),
        200,
      );
      assert.equal(result.priority, null);
      assert.equal(result.dueDate, null);
      const after = await getTask(owner, task.id);
      assert.deepEqual([after.description, after.priority, after.dueDate, after.title], [null, null, null, task.title]);
    });

    test('assigneeIds replaces the whole set, [] clears it, omitting it keeps it', async () => {
      const team = await createTestTeam(server);
      const [a, b] = [await team.member({ name: 'Ann' }), await team.member({ name: 'Bob' })];
      const { owner } = team;
      const task = await newTask(owner, { assigneeIds: [a.userId] });
      expectStatus(
        await owner.api.patch(`/v1/tasks/${task.id}`, { assigneeIds: [b.userId, owner.userId, b.userId] }),
        200,
      );
      assert.deepEqual((await getTask(owner, task.id)).assignees, [person(b), person(owner)]);
      expectError(await a.api.get(`/v1/tasks/${task.id}`), 403, 'You do not have access to this task.');
      expectStatus(await owner.api.patch(`/v1/tasks/${task.id}`, { title: 'Renamed' }), 200);
      assert.equal((await getTask(owner, task.id)).assignees.length, 2);
      expectStatus(await owner.api.patch(`/v1/tasks/${task.id}`, { assigneeIds: [] }), 200);
      assert.deepEqual((await getTask(owner, task.id)).assignees, []);
    });

    test('a status change moves the task and isCompleted follows it', async () => {
      const { owner } = await createTestTeam(server);
      const statuses = await statusesOf(owner);
      const task = await newTask(owner);
      for (const name of ['Done', 'In progress', 'Done', 'To do']) {
        const status = statuses[name]!;
        assert.equal(
          expectStatus(await owner.api.patch(`/v1/tasks/${task.id}`, { taskStatusId: status.id }), 200).taskStatusId,
          status.id,
        );
        const after = await getTask(owner, task.id);
        assert.equal(after.isCompleted, status.isCompleted, name);
        assert.deepEqual(after.status, { id: status.id, name, color: status.color, isCompleted: status.isCompleted });
      }
    });

    test('invalid input answers 400 and changes nothing', async () => {
      const team = await createTestTeam(server);
      const { owner } = team;
      const stranger = (await createTestTeam(server)).owner;
      const foreignStatus = (await statusesOf(stranger))['Done']!;
      const task = await newTask(owner, { description: 'd', priority: 'low', dueDate: '2025-03-03' });
      const bad: unknown[] = [
        { taskStatusId: foreignStatus.id },
        { taskStatusId: 999999 },
        { taskStatusId: '1' },
        { title: '' },
        { title: '   ' },
        { title: 5 },
        { title: null },
        { title: 'x'.repeat(501) },
        { priority: 'none' },
        { dueDate: '2025-02-30' },
        { dueDate: 'tomorrow' },
        { assigneeIds: [stranger.userId] },
        { assigneeIds: ['nope'] },
        { title: 'Valid', taskStatusId: foreignStatus.id },
        { title: 'Valid', assigneeIds: [stranger.userId] },
        [],
      ];
      for (const body of bad) expectError(await owner.api.patch(`/v1/tasks/${task.id}`, body), 400);
      expectError(
        await owner.api.request('PATCH', `/v1/tasks/${task.id}`, {
          rawBody: '{"title":',
          headers: { 'content-type': 'application/json' },
        }),
        400,
      );
      assert.deepEqual(await getTask(owner, task.id), task);
    });

    test('403 without access, 404 for another team or a missing task, 400 for a non-numeric id', async () => {
      const team = await createTestTeam(server);
      const outsider = await team.member();
      const stranger = (await createTestTeam(server)).owner;
      const task = await newTask(team.owner, { title: 'Mine' });
      expectError(
        await outsider.api.patch(`/v1/tasks/${task.id}`, { title: 'Hijack' }),
        403,
        'You do not have access to this task.',
      );
      expectError(
        await stranger.api.patch(`/v1/tasks/${task.id}`, { title: 'Hijack' }),
        404,
        `Task ${task.id} not found.`,
      );
      expectError(await team.owner.api.patch('/v1/tasks/999999', { title: 'x' }), 404, 'Task 999999 not found.');
      expectError(await team.owner.api.patch('/v1/tasks/abc', { title: 'x' }), 400);
      assert.deepEqual(await getTask(team.owner, task.id), task);
    });

    test('taskListIds (extension) replaces only the lists the caller is a member of', async () => {
      const team = await createTestTeam(server);
      const mate = await team.member();
      const { owner } = team;
      const [a, b] = [await newList(owner, 'A'), await newList(owner, 'B')];
      const matesList = await newList(mate, 'Mate only');
      const task = await newTask(owner, { taskListIds: [a.id], assigneeIds: [mate.userId] });
      expectStatus(await mate.api.patch(`/v1/tasks/${task.id}`, { taskListIds: [matesList.id] }), 200);
      expectStatus(await owner.api.patch(`/v1/tasks/${task.id}`, { taskListIds: [b.id, b.id] }), 200);
      assert.deepEqual((await getTask(owner, task.id)).taskLists, [{ id: b.id, name: 'B' }]);
      assert.deepEqual((await getTask(mate, task.id)).taskLists, [{ id: matesList.id, name: 'Mate only' }]);
      expectError(await owner.api.patch(`/v1/tasks/${task.id}`, { taskListIds: [matesList.id] }), 400);
      expectStatus(await owner.api.patch(`/v1/tasks/${task.id}`, { taskListIds: [] }), 200);
      assert.deepEqual((await getTask(owner, task.id)).taskLists, []);
    });
  });

  describe('DELETE /v1/tasks/{taskId}', () => {
    test('deletes the task for good; subtasks survive as top-level tasks; its number and id are not reused', async () => {
      const { owner } = await createTestTeam(server);
      const parent = await newTask(owner, { title: 'Parent' });
      const child = await newTask(owner, { title: 'Child', parentId: parent.id });
      const list = await newList(owner);
      const last = await newTask(owner, { title: 'Last', assigneeIds: [owner.userId], taskListIds: [list.id] });
      assert.deepEqual(expectStatus(await owner.api.delete(`/v1/tasks/${last.id}`), 200), {
        id: last.id,
        number: 3,
        deleted: true,
      });
      assert.deepEqual(expectStatus(await owner.api.delete(`/v1/tasks/${parent.id}`), 200), {
        id: parent.id,
        number: 1,
        deleted: true,
      });

      expectError(await owner.api.get(`/v1/tasks/${parent.id}`), 404, `Task ${parent.id} not found.`);
      expectError(await owner.api.delete(`/v1/tasks/${parent.id}`), 404, `Task ${parent.id} not found.`);
      expectError(await owner.api.patch(`/v1/tasks/${parent.id}`, { title: 'x' }), 404, `Task ${parent.id} not found.`);
      assert.deepEqual(await visibleIds(owner), [child.id]);
      const orphan = await getTask(owner, child.id);
      assert.equal(orphan.parentId, null);
      assert.equal(orphan.parent, null);
      const next = await newTask(owner);
      assert.equal(next.number, 4);
      assert.ok(next.id > last.id, 'a deleted task id must not be handed out again');
    });

    test('403 without access, 404 for another team, "Invalid input." for a non-numeric id; nothing is deleted', async () => {
      const team = await createTestTeam(server);
      const outsider = await team.member();
      const stranger = (await createTestTeam(server)).owner;
      const task = await newTask(team.owner);
      expectError(await outsider.api.delete(`/v1/tasks/${task.id}`), 403, 'You do not have access to this task.');
      expectError(await stranger.api.delete(`/v1/tasks/${task.id}`), 404, `Task ${task.id} not found.`);
      expectError(await team.owner.api.delete('/v1/tasks/999999'), 404, 'Task 999999 not found.');
      expectFixedError(await team.owner.api.delete('/v1/tasks/abc'), 'Invalid input.', 'taskId must be a number.');
      expectFixedError(await team.owner.api.delete('/v1/tasks/1.5'), 'Invalid input.', 'taskId must be a number.');
      assert.deepEqual(await getTask(team.owner, task.id), task);
    });
  });
});
