import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TASK_SORT_KEYS, type TaskSortKey, type TaskSummary } from '../../src/contract/index.js';
import { createTestTeam, type Actor } from '../factories.js';
import { expectError, expectStatus, startTestServer, type Response, type TestServer } from '../harness.js';

const RANK = { low: 1, medium: 2, high: 3, urgent: 4 } as const;

/** A task's value for a sort, as the API documents it (null: empty). */
function valueOf(task: TaskSummary, key: TaskSortKey): string | number | null {
  switch (key) {
    case 'priority':
      return task.priority ? RANK[task.priority] : null;
    case 'title':
      return task.title.toLowerCase();
    default:
      return task[key];
  }
}

/** The documented order: by value (empty values last, either way), ties by id in the same direction. */
function expectedOrder(tasks: TaskSummary[], key: TaskSortKey, descending: boolean): number[] {
  const sign = descending ? -1 : 1;
  return [...tasks]
    .sort((a, b) => {
      const [x, y] = [valueOf(a, key), valueOf(b, key)];
      if (x === null || y === null) return x === y ? sign * (a.id - b.id) : x === null ? 1 : -1;
      if (x !== y) return sign * (x < y ? -1 : 1);
      return sign * (a.id - b.id);
    })
    .map((t) => t.id);
}

/** Every page of a sorted GET /v1/tasks, following Link headers: the ids in order, and how many pages. */
async function allPages(actor: Actor, path: string): Promise<{ ids: number[]; pages: number }> {
  const ids: number[] = [];
  let pages = 0;
  for (let next: string | undefined = path; next; pages++) {
    const response: Response = await actor.api.get(next);
    ids.push(...expectStatus<TaskSummary[]>(response, 200).map((t) => t.id));
    next = /^<([^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1];
  }
  return { ids, pages };
}

describe('GET /v1/tasks?sort=', () => {
  let server: TestServer;
  let owner: Actor;
  let tasks: TaskSummary[];
  before(async () => {
    server = await startTestServer();
    ({ owner } = await createTestTeam(server));
    // Runs of equal values, and empty ones, for every sort: three titles (two differ only in
    // case), two due dates and none, two priorities and none.
    const titles = ['Beta', 'alpha', 'Alpha'];
    const dueDates = ['2026-03-01', null, '2026-01-15'];
    const priorities = ['high', null, 'low', 'urgent'];
    for (let i = 0; i < 13; i++) {
      const body = { title: titles[i % 3], dueDate: dueDates[i % 3], priority: priorities[i % 4] };
      const id = expectStatus(await owner.api.post('/v1/tasks', body), 201).id;
      // Some updated after, so updatedAt is not the creation order.
      if (i % 4 === 1) expectStatus(await owner.api.patch(`/v1/tasks/${id}`, { title: titles[i % 3] }), 200);
    }
    tasks = expectStatus(await owner.api.get('/v1/tasks'), 200);
  });
  after(() => server.close());

  for (const key of TASK_SORT_KEYS) {
    for (const descending of [false, true]) {
      const sort = `${descending ? '-' : ''}${key}`;
      test(`sort=${sort} orders by ${key}, ties by id, empty values last`, async () => {
        const page = expectStatus<TaskSummary[]>(await owner.api.get(`/v1/tasks?sort=${sort}`), 200);
        assert.deepEqual(
          page.map((t) => t.id),
          expectedOrder(tasks, key, descending),
        );
      });

      test(`sort=${sort} pages by cursor, across runs of equal and empty values, without skipping or repeating`, async () => {
        for (const limit of [1, 2, 5]) {
          const { ids, pages } = await allPages(owner, `/v1/tasks?sort=${sort}&limit=${limit}`);
          assert.deepEqual(ids, expectedOrder(tasks, key, descending), `limit=${limit}`);
          assert.equal(pages, Math.ceil(tasks.length / limit), `limit=${limit}`);
        }
      });
    }
  }

  test('a page boundary holds when the last task of the page changes before the next page is read', async () => {
    const { owner: own } = await createTestTeam(server);
    for (const dueDate of ['2026-01-01', '2026-01-02', '2026-01-03', '2026-01-04']) {
      expectStatus(await own.api.post('/v1/tasks', { title: 'x', dueDate }), 201);
    }
    const first = await own.api.get('/v1/tasks?sort=dueDate&limit=2');
    const [, second] = expectStatus<TaskSummary[]>(first, 200);
    expectStatus(await own.api.patch(`/v1/tasks/${second!.id}`, { dueDate: '2027-01-01' }), 200);
    const next = /^<([^>]+)>/.exec(first.headers.get('link')!)![1]!;
    // The moved task is now last: the next page goes on from where the first ended.
    const { ids } = await allPages(own, next);
    const rest = expectStatus<TaskSummary[]>(await own.api.get('/v1/tasks?sort=dueDate'), 200).slice(1);
    assert.deepEqual(
      ids,
      rest.map((t) => t.id),
    );
    assert.equal(rest[rest.length - 1]!.id, second!.id);
  });

  test('sort=title orders lower-cased titles by code point, the same on both stores', async () => {
    const { owner: own } = await createTestTeam(server);
    for (const title of ['éclair', 'Zeta', 'apple', 'Émile', 'zeta', 'Apple pie']) {
      expectStatus(await own.api.post('/v1/tasks', { title }), 201);
    }
    const page = expectStatus<TaskSummary[]>(await own.api.get('/v1/tasks?sort=title'), 200);
    assert.deepEqual(
      page.map((t) => t.title),
      ['apple', 'Apple pie', 'Zeta', 'zeta', 'éclair', 'Émile'],
    );
  });

  test('without sort the order is newest first, with no Link header, as published', async () => {
    const response = await owner.api.get('/v1/tasks?limit=3');
    assert.deepEqual(
      expectStatus<TaskSummary[]>(response, 200).map((t) => t.id),
      tasks.slice(0, 3).map((t) => t.id),
    );
    assert.equal(response.headers.get('link'), null);
  });

  test('the last sorted page has no Link header', async () => {
    const response = await owner.api.get(`/v1/tasks?sort=number&limit=${tasks.length}`);
    expectStatus(response, 200);
    assert.equal(response.headers.get('link'), null);
  });

  test('a sorted page shows only the tasks the caller can read', async () => {
    const team = await createTestTeam(server);
    const member = await team.member();
    const mine = expectStatus(await member.api.post('/v1/tasks', { title: 'mine' }), 201).id;
    expectStatus(await team.owner.api.post('/v1/tasks', { title: 'private' }), 201);
    const assigned = expectStatus(
      await team.owner.api.post('/v1/tasks', { title: 'assigned', assigneeIds: [member.userId] }),
      201,
    ).id;
    const { ids } = await allPages(member, '/v1/tasks?sort=title&limit=1');
    assert.deepEqual(ids, [assigned, mine]);
  });

  test('sort combines with the filters', async () => {
    const page = expectStatus<TaskSummary[]>(
      await owner.api.get('/v1/tasks?sort=-dueDate&priority=high&priority=low'),
      200,
    );
    const matching = tasks.filter((t) => t.priority === 'high' || t.priority === 'low');
    assert.deepEqual(
      page.map((t) => t.id),
      expectedOrder(matching, 'dueDate', true),
    );
  });

  test('an unknown sort is a 400 naming the choices, and changes nothing', async () => {
    expectError(await owner.api.get('/v1/tasks?sort=due'), 400, /^sort must be one of number, dueDate, priority/);
    expectError(await owner.api.get('/v1/tasks?sort=--title'), 400, /^sort must be one of/);
  });

  test('a cursor without its sort, with another sort, or not made by the server is a 400', async () => {
    const first = await owner.api.get('/v1/tasks?sort=title&limit=1');
    const cursor = new URL(/^<([^>]+)>/.exec(first.headers.get('link')!)![1]!, 'http://x').searchParams.get('cursor')!;
    expectError(await owner.api.get(`/v1/tasks?cursor=${cursor}`), 400, /send sort too/);
    expectError(
      await owner.api.get(`/v1/tasks?sort=-title&cursor=${cursor}`),
      400,
      'This cursor belongs to sort=title; send it with that sort.',
    );
    const forged = (value: unknown) => Buffer.from(JSON.stringify(['number', value, 1])).toString('base64url');
    for (const bad of ['abc', forged('x'), forged(null), forged(1.5), Buffer.from('[').toString('base64url'), 'a+b']) {
      expectError(await owner.api.get(`/v1/tasks?sort=number&cursor=${bad}`), 400, /^cursor must be a cursor/);
    }
    const title = (value: unknown) => Buffer.from(JSON.stringify(['title', value, 1])).toString('base64url');
    expectError(
      await owner.api.get(`/v1/tasks?sort=title&cursor=${title('a\u0000')}`),
      400,
      /^cursor must be a cursor/,
    );
    expectError(await owner.api.get(`/v1/tasks?sort=title&cursor=${title(5)}`), 400, /^cursor must be a cursor/);
    const priority = Buffer.from(JSON.stringify(['-priority', 4, 1])).toString('base64url');
    expectError(await owner.api.get(`/v1/tasks?sort=-priority&cursor=${priority}`), 400, /^cursor must be a cursor/);
  });
});
