import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MAX_VIEWS_PER_PERSON, type TaskSummary, type View } from '../src/contract/index.js';
import { createTestTeam, type Actor, type Team } from './factories.js';
import { expectError, expectStatus, startTestServer, type TestServer } from './harness.js';
import { rawRequest, showRaw } from './raw-request.js';

const view = (body: Record<string, unknown> = {}) => ({ name: 'Mine', filters: {}, layout: 'rows', ...body });

async function create(actor: Actor, body: Record<string, unknown> = {}): Promise<View> {
  return expectStatus<View>(await actor.api.post('/v1/views', view(body)), 201);
}

const names = async (actor: Actor) => expectStatus<View[]>(await actor.api.get('/v1/views'), 200).map((v) => v.name);

/** GET /v1/tasks with a view's filters and sort, as the web app opens it. */
function tasksPathOf(v: View): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(v.filters)) {
    for (const item of Array.isArray(value) ? value : [value]) search.append(name, String(item));
  }
  if (v.sort) search.set('sort', v.sort);
  return `/v1/tasks?${search}`;
}

describe('/v1/views', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  test('a saved view keeps its filters as GET /v1/tasks takes them, its sort and layout', async () => {
    const { owner } = await createTestTeam(server);
    const created = await create(owner, {
      name: 'Urgent open',
      filters: { priority: ['urgent', 'high'], isCompleted: false, taskListId: 7, query: 'report' },
      sort: '-dueDate',
      layout: 'board',
    });
    assert.deepEqual(created.filters, {
      priority: ['urgent', 'high'],
      isCompleted: 'false',
      taskListId: ['7'],
      query: 'report',
    });
    assert.equal(created.sort, '-dueDate');
    assert.equal(created.layout, 'board');
    assert.equal(created.sharedWithTeam, false);
    assert.equal(created.canManage, true);
    assert.equal(created.author?.id, owner.userId);
    assert.deepEqual(expectStatus(await owner.api.get(`/v1/views/${created.id}`), 200), created);
    expectStatus(await owner.api.get(tasksPathOf(created)), 200);
  });

  test('filters GET /v1/tasks would refuse are a 400 naming the parameter, and nothing is saved', async () => {
    const { owner } = await createTestTeam(server);
    const refused: [Record<string, unknown>, RegExp][] = [
      [{ listId: ['1'] }, /^filters: listId is not a parameter of GET \/v1\/tasks\. Did you mean taskListId\?$/],
      [{ limit: '10' }, /^filters: limit is not a parameter/],
      [{ sort: 'title' }, /^filters: sort is not a parameter/],
      [{ priority: ['soon'] }, /^filters: priority must be one of/],
      [{ taskListId: ['x'] }, /^filters: taskListId must be a number\.$/],
      [{ assigneeId: 'nobody' }, /^filters: assigneeId must be a user ID/],
      [{ isCompleted: 'maybe' }, /^filters: isCompleted must be true or false\.$/],
      [{ dueDateFrom: '2026-02-30' }, /^filters: dueDateFrom must be a real calendar date/],
      [{ query: 'x'.repeat(201) }, /^filters: query must be at most 200 characters long\.$/],
      [{ query: 'a\u0000' }, /^filters.query must not contain NUL/],
    ];
    for (const [filters, message] of refused) {
      expectError(await owner.api.post('/v1/views', view({ filters })), 400, message);
    }
    expectError(await owner.api.post('/v1/views', view({ filters: ['priority'] })), 400, /^filters must be an object/);
    // Deeper than a query string can hold (the fuzzer's 10,000 nested arrays once overflowed the stack).
    for (const filters of [{ priority: [['high']] }, { query: { nested: 'x' } }]) {
      expectError(
        await owner.api.post('/v1/views', view({ filters })),
        400,
        /^filters\.(priority|query) must be a string/,
      );
    }
    const deep = `${'['.repeat(10_000)}"x"${']'.repeat(10_000)}`;
    const nested = await rawRequest(server.url, {
      method: 'POST',
      path: '/v1/views',
      headers: { 'x-api-key': owner.key, 'content-type': 'application/json' },
      body: `{"name":"Deep","layout":"rows","filters":{"dueDateTo":${deep}}}`,
    });
    assert.equal(nested.status, 400, showRaw(nested));
    assert.match(nested.body.error, /^filters\.dueDateTo must be a string/);
    expectError(await owner.api.post('/v1/views', view({ sort: 'due' })), 400, /^sort must be one of/);
    expectError(
      await owner.api.post('/v1/views', view({ layout: 'grid' })),
      400,
      'layout must be one of: rows, board.',
    );
    expectError(await owner.api.post('/v1/views', view({ name: '  ' })), 400, /^name must be a string of 1 to 100/);
    expectError(await owner.api.post('/v1/views', view({ name: 'x'.repeat(101) })), 400, /at most 100/);
    assert.deepEqual(await names(owner), []);
  });

  test('a person’s view names are unique ignoring case; two people may use the same name', async () => {
    const team = await createTestTeam(server);
    const member = await team.member();
    const first = await create(team.owner, { name: 'Open work' });
    expectError(
      await team.owner.api.post('/v1/views', view({ name: 'OPEN WORK' })),
      409,
      'You already have a view named "OPEN WORK".',
    );
    const other = await create(team.owner, { name: 'Other' });
    expectError(
      await team.owner.api.patch(`/v1/views/${other.id}`, { name: 'open work' }),
      409,
      /already have a view named/,
    );
    expectStatus(await team.owner.api.patch(`/v1/views/${first.id}`, { name: 'Open Work' }), 200);
    await create(member, { name: 'Open work', sharedWithTeam: true });
    assert.deepEqual(await names(team.owner), ['Open Work', 'Open work', 'Other']);
  });

  test(`a person may have at most ${MAX_VIEWS_PER_PERSON} views`, async () => {
    const { owner } = await createTestTeam(server);
    for (let i = 0; i < MAX_VIEWS_PER_PERSON; i++) await create(owner, { name: `View ${i}` });
    expectError(await owner.api.post('/v1/views', view({ name: 'One more' })), 409, /most one person may have/);
    assert.equal((await names(owner)).length, MAX_VIEWS_PER_PERSON);
  });

  test('creates at once keep the bound and the names unique: the others are 409s, never a 5xx', async () => {
    const { owner } = await createTestTeam(server);
    for (let i = 0; i < MAX_VIEWS_PER_PERSON - 2; i++) await create(owner, { name: `View ${i}` });
    const statuses = await Promise.all(
      ['A', 'B', 'C', 'D', 'D'].map(async (name) => (await owner.api.post('/v1/views', view({ name }))).status),
    );
    assert.deepEqual(
      statuses.filter((status) => status === 201),
      [201, 201],
    );
    assert.equal(statuses.filter((status) => status === 409).length, 3);
    assert.equal((await names(owner)).length, MAX_VIEWS_PER_PERSON);
  });

  describe('sharing', () => {
    let team: Team;
    let author: Actor;
    let mate: Actor;
    let admin: Actor;
    before(async () => {
      team = await createTestTeam(server);
      [author, mate, admin] = [await team.member(), await team.member(), await team.member({ role: 'admin' })];
    });

    test('a private view is its author’s alone: others are told it does not exist', async () => {
      const mine = await create(author, { name: 'Private' });
      assert.ok(!(await names(mate)).includes('Private'));
      for (const other of [mate, admin, team.owner]) {
        expectError(await other.api.get(`/v1/views/${mine.id}`), 404, `View ${mine.id} not found.`);
        expectError(await other.api.patch(`/v1/views/${mine.id}`, { name: 'x' }), 404);
        expectError(await other.api.delete(`/v1/views/${mine.id}`), 404);
      }
    });

    test('a shared view is listed for every member, who may open but not change it', async () => {
      const shared = await create(author, { name: 'Team board', sharedWithTeam: true, layout: 'board' });
      const seen = expectStatus<View[]>(await mate.api.get('/v1/views'), 200).find((v) => v.id === shared.id)!;
      assert.equal(seen.canManage, false);
      expectError(
        await mate.api.patch(`/v1/views/${shared.id}`, { name: 'Mine now' }),
        403,
        "Only this view's author and the team's owners and admins can change a shared view.",
      );
      expectError(await mate.api.delete(`/v1/views/${shared.id}`), 403);
      assert.equal(expectStatus<View>(await author.api.get(`/v1/views/${shared.id}`), 200).name, 'Team board');
    });

    test('owners and admins manage shared views, their authors their own', async () => {
      const shared = await create(author, { name: 'Managed', sharedWithTeam: true });
      assert.equal(expectStatus<View>(await admin.api.get(`/v1/views/${shared.id}`), 200).canManage, true);
      const renamed = expectStatus<View>(await admin.api.patch(`/v1/views/${shared.id}`, { name: 'Managed 2' }), 200);
      assert.equal(renamed.author?.id, author.userId);
      // Made private by an owner, it is its author's again, and gone from everyone else's list.
      expectStatus(await team.owner.api.patch(`/v1/views/${shared.id}`, { sharedWithTeam: false }), 200);
      assert.ok(!(await names(mate)).includes('Managed 2'));
      expectError(await admin.api.delete(`/v1/views/${shared.id}`), 404);
      assert.deepEqual(expectStatus(await author.api.delete(`/v1/views/${shared.id}`), 200), {
        id: shared.id,
        deleted: true,
      });
    });

    test('a shared view shows each person only the tasks they can read', async () => {
      const list = expectStatus(await author.api.post('/v1/lists', { name: 'Author only' }), 201).id;
      const hidden = expectStatus(
        await author.api.post('/v1/tasks', { title: 'hidden', priority: 'urgent', taskListIds: [list] }),
        201,
      ).id;
      const visible = expectStatus(
        await author.api.post('/v1/tasks', { title: 'visible', priority: 'urgent', assigneeIds: [mate.userId] }),
        201,
      ).id;
      const shared = await create(author, {
        name: 'Urgent',
        filters: { priority: 'urgent' },
        sort: 'title',
        sharedWithTeam: true,
      });
      const ids = async (actor: Actor) =>
        expectStatus<TaskSummary[]>(await actor.api.get(tasksPathOf(shared)), 200).map((t) => t.id);
      assert.deepEqual(await ids(author), [hidden, visible]);
      assert.deepEqual(await ids(mate), [visible]);
    });
  });

  test('when its author leaves, a private view goes and a shared one stays, the team’s', async () => {
    const team = await createTestTeam(server);
    const leaver = await team.member();
    const mate = await team.member();
    await create(leaver, { name: 'Private' });
    const shared = await create(leaver, { name: 'Shared', sharedWithTeam: true });
    expectStatus(await team.owner.api.delete(`/v1/members/${leaver.userId}`), 200);
    const views = expectStatus<View[]>(await team.owner.api.get('/v1/views'), 200);
    assert.deepEqual(
      views.map((v) => [v.name, v.author, v.canManage]),
      [['Shared', null, true]],
    );
    const count = await server.store.db.selectFrom('views').select('name').where('team_id', '=', team.id).execute();
    assert.deepEqual(count, [{ name: 'Shared' }]);
    expectError(await mate.api.patch(`/v1/views/${shared.id}`, { name: 'x' }), 403);
    expectError(
      await team.owner.api.patch(`/v1/views/${shared.id}`, { sharedWithTeam: false }),
      400,
      /belongs to the team .* stays shared/,
    );
    expectStatus(await team.owner.api.patch(`/v1/views/${shared.id}`, { name: 'Kept' }), 200);
    expectStatus(await team.owner.api.delete(`/v1/views/${shared.id}`), 200);
  });

  test('a view of another team does not exist for the caller', async () => {
    const a = await createTestTeam(server);
    const b = await createTestTeam(server);
    const shared = await create(a.owner, { sharedWithTeam: true });
    expectError(await b.owner.api.get(`/v1/views/${shared.id}`), 404);
    expectError(await b.owner.api.patch(`/v1/views/${shared.id}`, { name: 'x' }), 404);
    expectError(await b.owner.api.delete(`/v1/views/${shared.id}`), 404);
    assert.deepEqual(await names(b.owner), []);
  });

  test('a PATCH with bad input changes nothing', async () => {
    const { owner } = await createTestTeam(server);
    const created = await create(owner, { filters: { priority: 'low' }, sort: 'number' });
    expectError(await owner.api.patch(`/v1/views/${created.id}`, { name: 'New', filters: { bogus: '1' } }), 400);
    expectError(await owner.api.patch(`/v1/views/${created.id}`, { name: 'New', layout: 'grid' }), 400);
    assert.deepEqual(expectStatus(await owner.api.get(`/v1/views/${created.id}`), 200), created);
    const cleared = expectStatus<View>(
      await owner.api.patch(`/v1/views/${created.id}`, { sort: null, filters: {} }),
      200,
    );
    assert.deepEqual([cleared.sort, cleared.filters, cleared.name], [null, {}, 'Mine']);
  });
});
