/**
 * The Error-Detail response header: it goes with the 400s whose body the spec fixes, and with
 * nothing else; an idempotent retry gets it again; a cross-origin page may read it. (What it
 * says for each kind of bad input: test/tasks/tasks.test.ts and test/lists.test.ts; on every
 * route, for unknown query parameters: test/query-parameters.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestTeam } from './factories.js';
import { expectFixedError } from './fixed-errors.js';
import { expectError, expectStatus, show, startTestServer, type Response, type TestServer } from './harness.js';

const PAGE_ORIGIN = 'https://board.example.com';

const noDetail = (response: Response) =>
  assert.equal(response.headers.get('error-detail'), null, `unexpected Error-Detail: ${show(response)}`);

describe('Error-Detail', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ CORS_ORIGINS: PAGE_ORIGIN });
  });
  after(() => server.close());

  test('only a 400 with the spec’s fixed body carries it: not a success, nor an error whose body already says why', async () => {
    const team = await createTestTeam(server);
    const outsider = await team.member();
    const { owner } = team;
    const list = await owner.api.post('/v1/lists', { name: 'Plans' });
    const task = await owner.api.post('/v1/tasks', { title: 'Plan', taskListIds: [expectStatus(list, 201).id] });
    expectStatus(task, 201);
    const taskId = task.body.id;
    for (const success of [list, task, await owner.api.get(`/v1/tasks/${taskId}`), await owner.api.get('/v1/lists')]) {
      noDetail(success);
    }
    const precise: [Response, number, string][] = [
      [await owner.api.patch(`/v1/tasks/${taskId}`, { title: '' }), 400, 'title must be a string'],
      [await owner.api.get('/v1/tasks?limit=0'), 400, 'limit must be a whole number from 1 to 1000.'],
      [await server.client().post('/v1/tasks', { title: 'x' }), 401, 'Missing API key'],
      [await outsider.api.delete(`/v1/tasks/${taskId}`), 403, 'You do not have access to this task.'],
      [await owner.api.delete('/v1/tasks/999999'), 404, 'Task 999999 not found.'],
    ];
    for (const [response, status, message] of precise) {
      expectError(response, status, new RegExp(`^${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
      noDetail(response);
    }
  });

  test('an idempotent retry of a refused create answers the same body and Error-Detail, and creates nothing', async () => {
    const team = await createTestTeam(server);
    const stranger = (await createTestTeam(server)).owner;
    const body = { title: 'Assigned to a stranger', assigneeIds: [stranger.userId] };
    const headers = { 'idempotency-key': 'refused-create' };
    const detail = `assigneeIds: ${stranger.userId} is not a member of this team.`;
    const first = await team.owner.api.post('/v1/tasks', body, headers);
    expectFixedError(first, 'Invalid input.', detail);
    const retry = await team.owner.api.post('/v1/tasks', body, headers);
    expectFixedError(retry, 'Invalid input.', detail);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true', show(retry));
    assert.deepEqual(expectStatus(await team.owner.api.get('/v1/tasks'), 200), []);
  });

  test('a page of a listed origin may read it (Access-Control-Expose-Headers)', async () => {
    const { owner } = await createTestTeam(server);
    const refused = await owner.api.post('/v1/lists', { name: '' }, { origin: PAGE_ORIGIN });
    expectFixedError(refused, 'Invalid input.', /^name must be a string of 1 to 200 characters/);
    assert.equal(refused.headers.get('access-control-allow-origin'), PAGE_ORIGIN, show(refused));
    const exposed = (refused.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/\s*,\s*/);
    assert.ok(exposed.includes('error-detail'), `Error-Detail not exposed: ${exposed.join(', ')}`);
  });
});
