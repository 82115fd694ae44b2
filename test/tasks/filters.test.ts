import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestTeam, type Actor } from '../factories.js';
import { expectError, expectStatus, startTestServer, type TestServer } from '../harness.js';

type Params = Record<string, string | number | (string | number)[]>;

/** `/v1/tasks?…`, repeating the parameter for each value of an array. */
function tasksPath(params: Params = {}): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    for (const item of Array.isArray(value) ? value : [value]) search.append(name, String(item));
  }
  const qs = search.toString();
  return qs ? `/v1/tasks?${qs}` : '/v1/tasks';
}

/** Ids of the tasks GET /v1/tasks returns for these filters. */
async function ids(actor: Actor, params: Params = {}): Promise<number[]> {
  return expectStatus(await actor.api.get(tasksPath(params)), 200).map((t: { id: number }) => t.id);
}

async function newTask(actor: Actor, title: string, body: Record<string, unknown> = {}): Promise<number> {
  return expectStatus(await actor.api.post('/v1/tasks', { title, ...body }), 201).id;
}

async function newList(actor: Actor, name: string): Promise<number> {
  return expectStatus(await actor.api.post('/v1/lists', { name }), 201).id;
}

/** The team's statuses by name: To do (default), In progress, Done (completed). */
async function statuses(actor: Actor): Promise<{ todo: number; doing: number; done: number }> {
  const all: { id: number; name: string }[] = expectStatus(await actor.api.get('/v1/task-statuses'), 200);
  const id = (name: string) => all.find((s) => s.name === name)!.id;
  return { todo: id('To do'), doing: id('In progress'), done: id('Done') };
}

/** Newest first: the ids given in creation order, reversed. */
const newestFirst = (...created: number[]): number[] => [...created].sort((a, b) => b - a);

describe('GET /v1/tasks filters', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  test('taskListId matches any of the repeated values, without duplicates', async () => {
    const { owner } = await createTestTeam(server);
    const [l1, l2, l3] = [await newList(owner, 'One'), await newList(owner, 'Two'), await newList(owner, 'Three')];
    const in1 = await newTask(owner, 'in 1', { taskListIds: [l1] });
    const in2 = await newTask(owner, 'in 2', { taskListIds: [l2] });
    const in3 = await newTask(owner, 'in 3', { taskListIds: [l3] });
    const in12 = await newTask(owner, 'in 1 and 2', { taskListIds: [l1, l2] });
    await newTask(owner, 'in none');

    assert.deepEqual(await ids(owner, { taskListId: l1 }), newestFirst(in1, in12));
    assert.deepEqual(await ids(owner, { taskListId: [l1, l2] }), newestFirst(in1, in2, in12));
    assert.deepEqual(await ids(owner, { taskListId: [l3, l1, l3] }), newestFirst(in1, in3, in12));
  });

  test('assigneeId matches any of the repeated values, without duplicates', async () => {
    const team = await createTestTeam(server);
    const [a, b, c] = [await team.member(), await team.member(), await team.member()];
    const toA = await newTask(team.owner, 'a', { assigneeIds: [a.userId] });
    const toB = await newTask(team.owner, 'b', { assigneeIds: [b.userId] });
    const toAB = await newTask(team.owner, 'a+b', { assigneeIds: [a.userId, b.userId] });
    await newTask(team.owner, 'c', { assigneeIds: [c.userId] });
    await newTask(team.owner, 'nobody');

    assert.deepEqual(await ids(team.owner, { assigneeId: a.userId }), newestFirst(toA, toAB));
    assert.deepEqual(await ids(team.owner, { assigneeId: [a.userId, b.userId] }), newestFirst(toA, toB, toAB));
  });

  test('taskStatusId and priority match any of the repeated values', async () => {
    const { owner } = await createTestTeam(server);
    const s = await statuses(owner);
    const low = await newTask(owner, 'low', { priority: 'low', taskStatusId: s.todo });
    const medium = await newTask(owner, 'medium', { priority: 'medium', taskStatusId: s.doing });
    const high = await newTask(owner, 'high', { priority: 'high', taskStatusId: s.done });
    const urgent = await newTask(owner, 'urgent', { priority: 'urgent', taskStatusId: s.doing });
    const none = await newTask(owner, 'no priority');

    assert.deepEqual(await ids(owner, { taskStatusId: s.doing }), newestFirst(medium, urgent));
    assert.deepEqual(await ids(owner, { taskStatusId: [s.todo, s.done] }), newestFirst(low, high, none));
    assert.deepEqual(await ids(owner, { priority: 'high' }), [high]);
    assert.deepEqual(await ids(owner, { priority: ['low', 'urgent'] }), newestFirst(low, urgent));
    assert.deepEqual(
      await ids(owner, { priority: ['low', 'medium', 'high', 'urgent'] }),
      newestFirst(low, medium, high, urgent),
    );
  });

  test('isCompleted true/false follows the status; omitted returns both', async () => {
    const { owner } = await createTestTeam(server);
    const s = await statuses(owner);
    const open = await newTask(owner, 'open');
    const doing = await newTask(owner, 'doing', { taskStatusId: s.doing });
    const done = await newTask(owner, 'done', { taskStatusId: s.done });

    assert.deepEqual(await ids(owner, { isCompleted: 'true' }), [done]);
    assert.deepEqual(await ids(owner, { isCompleted: 'false' }), newestFirst(open, doing));
    assert.deepEqual(await ids(owner), newestFirst(open, doing, done));
    expectStatus(await owner.api.patch(`/v1/tasks/${open}`, { taskStatusId: s.done }), 200);
    assert.deepEqual(await ids(owner, { isCompleted: 'true' }), newestFirst(open, done));
  });

  test('one list with priority and isCompleted follows every change of priority, status and lists', async () => {
    // One list is answered from copies of priority and completion on the list's items: they
    // must follow patches of the task, and lists attached later must copy the task as it is then.
    const { owner } = await createTestTeam(server);
    const s = await statuses(owner);
    const [list, later] = [await newList(owner, 'Sprint'), await newList(owner, 'Later')];
    const task = await newTask(owner, 'Moving target', { taskListIds: [list], priority: 'low' });
    const other = await newTask(owner, 'Bystander', { taskListIds: [list], priority: 'medium' });
    const openMedium = (taskListId: number) => ids(owner, { taskListId, priority: 'medium', isCompleted: 'false' });

    assert.deepEqual(await openMedium(list), [other]);
    expectStatus(await owner.api.patch(`/v1/tasks/${task}`, { priority: 'medium' }), 200);
    assert.deepEqual(await openMedium(list), newestFirst(task, other));
    expectStatus(await owner.api.patch(`/v1/tasks/${task}`, { taskStatusId: s.done }), 200);
    assert.deepEqual(await openMedium(list), [other]);
    assert.deepEqual(await ids(owner, { taskListId: list, isCompleted: 'true' }), [task]);
    expectStatus(await owner.api.patch(`/v1/tasks/${task}`, { taskListIds: [list, later] }), 200);
    assert.deepEqual(await ids(owner, { taskListId: later, priority: 'medium', isCompleted: 'true' }), [task]);
    expectStatus(await owner.api.patch(`/v1/tasks/${task}`, { taskStatusId: s.todo, priority: null }), 200);
    assert.deepEqual(await ids(owner, { taskListId: later, isCompleted: 'false' }), [task]);
    assert.deepEqual(await openMedium(later), []);
    expectStatus(await owner.api.patch(`/v1/tasks/${task}`, { taskListIds: [later], priority: 'medium' }), 200);
    assert.deepEqual(await openMedium(list), [other]);
    assert.deepEqual(await openMedium(later), [task]);
  });

  test('one list or one assignee and a limit give the newest matches, as several would', async () => {
    const team = await createTestTeam(server);
    const mate = await team.member();
    const list = await newList(team.owner, 'Inbox');
    const created: number[] = [];
    for (let i = 0; i < 6; i++) {
      created.push(await newTask(team.owner, `Item ${i}`, { taskListIds: [list], assigneeIds: [mate.userId] }));
    }
    const newestThree = newestFirst(...created).slice(0, 3);
    assert.deepEqual(await ids(team.owner, { taskListId: list, limit: 3 }), newestThree);
    assert.deepEqual(await ids(team.owner, { assigneeId: mate.userId, limit: 3 }), newestThree);
    assert.deepEqual(await ids(team.owner, { taskListId: list, assigneeId: mate.userId, limit: 3 }), newestThree);
  });

  test('different filters combine with AND', async () => {
    const team = await createTestTeam(server);
    const mate = await team.member();
    const s = await statuses(team.owner);
    const list = await newList(team.owner, 'Sprint');
    const base = { taskListIds: [list], assigneeIds: [mate.userId], priority: 'high', dueDate: '2025-03-10' };
    const hit = await newTask(team.owner, 'Ship release', base);
    await newTask(team.owner, 'Ship release', { ...base, taskListIds: [] });
    await newTask(team.owner, 'Ship release', { ...base, assigneeIds: [] });
    await newTask(team.owner, 'Ship release', { ...base, priority: 'low' });
    await newTask(team.owner, 'Ship release', { ...base, dueDate: '2025-04-10' });
    await newTask(team.owner, 'Ship release', { ...base, taskStatusId: s.done });
    await newTask(team.owner, 'Write notes', base);

    const all = {
      taskListId: list,
      assigneeId: mate.userId,
      priority: ['high', 'urgent'],
      taskStatusId: [s.todo, s.doing],
      isCompleted: 'false',
      query: 'ship',
      dueDateFrom: '2025-03-01',
      dueDateTo: '2025-03-31',
    };
    assert.deepEqual(await ids(team.owner, all), [hit]);
    assert.deepEqual(await ids(team.owner, { ...all, isCompleted: 'true' }), []);
  });

  test('query is a case-insensitive substring of the title, with %, _ and \\ taken literally', async () => {
    const { owner } = await createTestTeam(server);
    const titles = ['100% done', '1000 things', 'a_b test', 'axb test', 'C:\\temp\\file', 'C:/temp/file', 'Plain'];
    const id: Record<string, number> = {};
    for (const title of titles) id[title] = await newTask(owner, title);
    const found = async (query: string) => (await ids(owner, { query })).map((n) => titles.find((t) => id[t] === n));

    assert.deepEqual(await found('100%'), ['100% done']);
    assert.deepEqual(await found('%'), ['100% done']);
    assert.deepEqual(await found('DONE'), ['100% done']);
    assert.deepEqual(await found('a_b'), ['a_b test']);
    assert.deepEqual(await found('_'), ['a_b test']);
    assert.deepEqual(await found('\\'), ['C:\\temp\\file']);
    assert.deepEqual(await found(':\\T'), ['C:\\temp\\file']);
    assert.deepEqual(await found('\\%'), []);
    assert.deepEqual(await found('plain'), ['Plain']);
    assert.deepEqual(await found('nothing like it'), []);
    assert.equal((await found('')).length, titles.length, 'an empty query filters nothing');
  });

  test('query folds non-ASCII case and follows title changes', async () => {
    const { owner } = await createTestTeam(server);
    const anger = await newTask(owner, 'Ärger im Büro');
    const lower = await newTask(owner, 'kein ärger');
    const russian = await newTask(owner, 'Привет мир');
    await newTask(owner, 'Arger without umlaut');

    assert.deepEqual(await ids(owner, { query: 'ÄRGER' }), newestFirst(anger, lower));
    assert.deepEqual(await ids(owner, { query: 'BÜRO' }), [anger]);
    assert.deepEqual(await ids(owner, { query: 'привет' }), [russian]);
    assert.deepEqual(await ids(owner, { query: 'МИР' }), [russian]);

    expectStatus(await owner.api.patch(`/v1/tasks/${russian}`, { title: 'Renamed ÉCOLE' }), 200);
    assert.deepEqual(await ids(owner, { query: 'привет' }), []);
    assert.deepEqual(await ids(owner, { query: 'école' }), [russian]);
  });

  test('dueDateFrom and dueDateTo are inclusive; tasks without a due date are left out when a bound is given', async () => {
    const { owner } = await createTestTeam(server);
    const jan1 = await newTask(owner, 'jan 1', { dueDate: '2025-01-01' });
    const jan15 = await newTask(owner, 'jan 15', { dueDate: '2025-01-15' });
    const jan31 = await newTask(owner, 'jan 31', { dueDate: '2025-01-31' });
    const undated = await newTask(owner, 'undated');

    assert.deepEqual(await ids(owner), newestFirst(jan1, jan15, jan31, undated));
    assert.deepEqual(await ids(owner, { dueDateFrom: '2025-01-15' }), newestFirst(jan15, jan31));
    assert.deepEqual(await ids(owner, { dueDateTo: '2025-01-15' }), newestFirst(jan1, jan15));
    assert.deepEqual(await ids(owner, { dueDateFrom: '2025-01-15', dueDateTo: '2025-01-15' }), [jan15]);
    assert.deepEqual(await ids(owner, { dueDateFrom: '2025-01-02', dueDateTo: '2025-01-30' }), [jan15]);
    assert.deepEqual(await ids(owner, { dueDateFrom: '2025-02-01', dueDateTo: '2025-01-01' }), []);
    assert.deepEqual(await ids(owner, { dueDateFrom: '1900-01-01' }), newestFirst(jan1, jan15, jan31));
    assert.deepEqual(await ids(owner, { dueDateTo: '2999-12-31' }), newestFirst(jan1, jan15, jan31));
  });

  test('results are newest first (descending id) and stable across calls and updates', async () => {
    const { owner } = await createTestTeam(server);
    const created: number[] = [];
    for (let i = 0; i < 6; i++) created.push(await newTask(owner, `task ${i}`, { priority: i % 2 ? 'high' : null }));

    const first = await ids(owner);
    assert.deepEqual(first, newestFirst(...created));
    expectStatus(await owner.api.patch(`/v1/tasks/${created[0]}`, { title: 'oldest, but updated last' }), 200);
    assert.deepEqual(await ids(owner), first);
    assert.deepEqual(
      await ids(owner, { priority: 'high' }),
      first.filter((_, i) => i % 2 === 0),
    );
  });

  test('limit caps the newest results; the default returns up to 1000', async () => {
    const { owner } = await createTestTeam(server);
    const created: number[] = [];
    for (let i = 0; i < 1001; i++) created.push(await newTask(owner, `bulk ${i}`));
    const expected = newestFirst(...created);

    assert.deepEqual(await ids(owner, { limit: 1 }), expected.slice(0, 1));
    assert.deepEqual(await ids(owner, { limit: 7 }), expected.slice(0, 7));
    assert.deepEqual(
      await ids(owner, { limit: 7, query: 'bulk 99' }),
      (await ids(owner, { query: 'bulk 99' })).slice(0, 7),
    );
    assert.deepEqual(await ids(owner, { limit: 1000 }), expected.slice(0, 1000));
    assert.deepEqual(await ids(owner), expected.slice(0, 1000));
  });

  test('parentId (extension) returns the subtasks of a task', async () => {
    const { owner } = await createTestTeam(server);
    const parent = await newTask(owner, 'Parent');
    const other = await newTask(owner, 'Other parent');
    const sub1 = await newTask(owner, 'Sub 1', { parentId: parent });
    await newTask(owner, 'Sub of other', { parentId: other });
    const sub2 = await newTask(owner, 'Sub 2', { parentId: parent, priority: 'urgent' });

    assert.deepEqual(await ids(owner, { parentId: parent }), newestFirst(sub1, sub2));
    assert.deepEqual(await ids(owner, { parentId: parent, priority: 'urgent' }), [sub2]);
    assert.deepEqual(await ids(owner, { parentId: sub1 }), []);
  });

  test('malformed parameters answer 400 with a message naming the parameter', async () => {
    const { owner } = await createTestTeam(server);
    await newTask(owner, 'Exists');
    const bad: [string, RegExp][] = [
      ['limit=0', /limit/],
      ['limit=1001', /limit/],
      ['limit=abc', /limit/],
      ['limit=-1', /limit/],
      ['limit=1.5', /limit/],
      ['taskListId=abc', /taskListId/],
      ['taskListId=1&taskListId=abc', /taskListId/],
      ['taskStatusId=x', /taskStatusId/],
      ['assigneeId=not-a-uuid', /assigneeId/],
      ['priority=critical', /priority/],
      ['priority=low&priority=critical', /priority/],
      ['isCompleted=yes', /isCompleted/],
      ['dueDateFrom=2025-02-30', /dueDateFrom/],
      ['dueDateFrom=2025-1-1', /dueDateFrom/],
      ['dueDateTo=2025-13-01', /dueDateTo/],
      ['parentId=abc', /parentId/],
    ];
    for (const [qs, message] of bad) expectError(await owner.api.get(`/v1/tasks?${qs}`), 400, message);
  });

  test('huge numeric ids are no error, just no results', async () => {
    const { owner } = await createTestTeam(server);
    await newTask(owner, 'Exists');
    for (const id of ['99999999999999', '2147483648', '99999999999999999999999']) {
      for (const name of ['taskListId', 'taskStatusId', 'parentId']) {
        assert.deepEqual(await ids(owner, { [name]: id }), [], `${name}=${id}`);
      }
    }
  });

  test('filtering by another team’s ids returns nothing from that team', async () => {
    const home = await createTestTeam(server);
    const away = await createTestTeam(server);
    const homeMate = await home.member();
    const homeStatus = await statuses(home.owner);
    const homeList = await newList(home.owner, 'Home');
    const homeTask = await newTask(home.owner, 'Home task', {
      taskListIds: [homeList],
      assigneeIds: [homeMate.userId],
    });
    await newTask(home.owner, 'Home sub', { parentId: homeTask });
    const awayTask = await newTask(away.owner, 'Away task');

    assert.deepEqual(await ids(away.owner), [awayTask]);
    const foreign: Params[] = [
      { taskListId: homeList },
      { assigneeId: homeMate.userId },
      { assigneeId: home.owner.userId },
      { taskStatusId: [homeStatus.todo, homeStatus.doing, homeStatus.done] },
      { parentId: homeTask },
      { query: 'Home' },
    ];
    for (const params of foreign) assert.deepEqual(await ids(away.owner, params), [], JSON.stringify(params));
    assert.deepEqual(await ids(home.owner, { taskListId: homeList }), [homeTask]);
  });
});
