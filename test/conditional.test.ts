import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestTeam } from './factories.js';
import { expectError, expectStatus, startTestServer, type TestServer } from './harness.js';

describe('conditional requests (ETag / If-Match)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  test('a task read sends an ETag that changes whenever the task changes', async () => {
    const { owner } = await createTestTeam(server);
    const created = await owner.api.post('/v1/tasks', { title: 'Versioned' });
    const task = expectStatus(created, 201);
    const first = (await owner.api.get(`/v1/tasks/${task.id}`)).headers.get('etag');
    assert.ok(first, 'GET /v1/tasks/{id} must send an ETag');
    assert.equal(created.headers.get('etag'), first);
    assert.equal((await owner.api.get(`/v1/tasks/${task.id}`)).headers.get('etag'), first, 'stable while unchanged');
    expectStatus(await owner.api.patch(`/v1/tasks/${task.id}`, { priority: 'low' }), 200);
    assert.notEqual((await owner.api.get(`/v1/tasks/${task.id}`)).headers.get('etag'), first);
    assert.equal(
      expectStatus(await owner.api.get(`/v1/tasks/${task.id}`), 200).version,
      undefined,
      'no internal fields',
    );
  });

  test('PATCH with If-Match of an older version answers 412 and changes nothing; the current one succeeds', async () => {
    const { owner } = await createTestTeam(server);
    const task = expectStatus(await owner.api.post('/v1/tasks', { title: 'Draft', description: 'mine' }), 201);
    const stale = (await owner.api.get(`/v1/tasks/${task.id}`)).headers.get('etag')!;
    const saved = await owner.api.patch(`/v1/tasks/${task.id}`, { description: 'teammate' }, { 'if-match': stale });
    expectStatus(saved, 200);
    const current = saved.headers.get('etag')!;
    assert.notEqual(current, stale);

    expectError(
      await owner.api.patch(`/v1/tasks/${task.id}`, { description: 'overwrite' }, { 'if-match': stale }),
      412,
    );
    assert.equal(expectStatus(await owner.api.get(`/v1/tasks/${task.id}`), 200).description, 'teammate');
    expectError(await owner.api.delete(`/v1/tasks/${task.id}`, { 'if-match': stale }), 412);

    expectStatus(await owner.api.patch(`/v1/tasks/${task.id}`, { title: 'Final' }, { 'if-match': current }), 200);
    expectStatus(await owner.api.patch(`/v1/tasks/${task.id}`, { title: 'Any' }, { 'if-match': '*' }), 200);
    expectStatus(await owner.api.patch(`/v1/tasks/${task.id}`, { title: 'Unconditional' }), 200);
  });

  test('a list read sends an ETag, and a stale If-Match on PATCH answers 412', async () => {
    const { owner } = await createTestTeam(server);
    const created = expectStatus(await owner.api.post('/v1/lists', { name: 'Plan' }), 201);
    const etag = (await owner.api.get(`/v1/lists/${created.id}`)).headers.get('etag')!;
    assert.ok(etag);
    expectStatus(await owner.api.post(`/v1/lists/${created.id}/archive`), 200);
    expectError(await owner.api.patch(`/v1/lists/${created.id}`, { name: 'Late' }, { 'if-match': etag }), 412);
    assert.equal(expectStatus(await owner.api.get(`/v1/lists/${created.id}`), 200).name, 'Plan');
    const fresh = (await owner.api.get(`/v1/lists/${created.id}`)).headers.get('etag')!;
    assert.notEqual(fresh, etag);
    expectStatus(await owner.api.patch(`/v1/lists/${created.id}`, { name: 'On time' }, { 'if-match': fresh }), 200);
  });
});
