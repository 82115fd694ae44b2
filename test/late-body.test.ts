/**
 * A change is authorized against its caller as they are when it runs, not when its headers
 * arrived (http/caller-check.ts). For every route of the route table that may change something,
 * the world's owner sends the headers; once the server has authenticated them (the
 * `tasklane:request-authenticated` channel says so), a co-owner removes or demotes the sender,
 * and only then does the body follow. The change must be refused as a request sent now would be,
 * and change nothing.
 */
import assert from 'node:assert/strict';
import diagnostics from 'node:diagnostics_channel';
import http from 'node:http';
import { after, describe, test } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { expectStatus, startTestServer, TEST_STORE } from './harness.js';
import { showRaw, type RawRequest, type RawResponse } from './raw-request.js';
import { buildMatrixRequest, managersOnly } from './route-requests.js';
import { loadRouteTable } from './route-table.js';
import { assertUnchanged, snapshotDatabase } from './snapshot.js';
import { createWorld, type World } from './world.js';

const server = await startTestServer();
after(() => server.close());
const table = await loadRouteTable(server);

const CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const changingRoutes = table.routes.filter((r) => r.credential !== 'public' && CHANGING.has(r.method));

/** Requests whose headers have been authenticated, by the marker header each test sends. */
const authenticated = new Map<string, () => void>();
const MARKER = 'x-test-held';
diagnostics.subscribe('tasklane:request-authenticated', (message) => {
  const { request } = message as { request: FastifyRequest };
  const marker = request.headers[MARKER];
  if (typeof marker === 'string') authenticated.get(marker)?.();
});

/**
 * Sends `request`'s headers, waits until the server has authenticated them, runs `meanwhile`,
 * then sends the body (for a route without one, `{}`: any client may send a body and hold it).
 */
async function withBodyHeldBack(request: RawRequest, meanwhile: () => Promise<void>): Promise<RawResponse> {
  const marker = `${Math.random()}`;
  const body = request.body ?? '{}';
  const passed = new Promise<void>((resolve) => authenticated.set(marker, resolve));
  const url = new URL(server.url);
  const req = http.request({
    agent: false,
    host: url.hostname,
    port: url.port,
    method: request.method,
    path: request.path,
    headers: {
      'content-type': 'application/json',
      ...request.headers,
      [MARKER]: marker,
      'content-length': String(Buffer.byteLength(body)),
    },
  });
  const answered = new Promise<RawResponse>((resolve, reject) => {
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed, stream: false });
      });
    });
  });
  let early: RawResponse | undefined;
  void answered.then((response) => (early ??= response));
  req.flushHeaders();
  await passed;
  authenticated.delete(marker);
  await meanwhile();
  assert.equal(early, undefined, `answered before its body was sent: ${early && showRaw(early)}`);
  req.end(body);
  return answered;
}

/** A second owner (the world's list mate), who removes or demotes the world's owner. */
async function coOwner(world: World) {
  expectStatus(await world.owner.api.patch(`/v1/members/${world.mate.userId}`, { role: 'owner' }), 200);
  return world.mate.api;
}

describe(`a change whose body arrives after its sender lost access is refused (${TEST_STORE})`, () => {
  test('the route table has change routes to hold back', () => {
    assert.ok(changingRoutes.length >= 25, changingRoutes.map((r) => r.name).join(', '));
  });

  for (const route of changingRoutes) {
    test(`${route.name}: removed from the team while the body was held back → 401, nothing changes`, async () => {
      const world = await createWorld(server);
      const remover = await coOwner(world);
      const { raw } = buildMatrixRequest(route, world, 'owner', 'refs');
      let before;
      const response = await withBodyHeldBack(raw, async () => {
        expectStatus(await remover.delete(`/v1/members/${world.owner.userId}`), 200);
        before = await snapshotDatabase(server.store.db);
      });
      assert.equal(response.status, 401, `${route.name}: ${showRaw(response)}`);
      const message =
        route.credential === 'session'
          ? 'You are no longer a member of this team.'
          : "This API key's user is no longer a member of its team.";
      assert.deepEqual(response.body, { error: message });
      assertUnchanged(before!, await snapshotDatabase(server.store.db), `${route.name} after the sender's removal`);
    });
  }

  for (const route of changingRoutes.filter((r) => managersOnly(r))) {
    test(`${route.name}: demoted to member while the body was held back → the member's 403, nothing changes`, async () => {
      const world = await createWorld(server);
      const demoter = await coOwner(world);
      const { raw } = buildMatrixRequest(route, world, 'owner', 'refs');
      let before;
      const response = await withBodyHeldBack(raw, async () => {
        expectStatus(await demoter.patch(`/v1/members/${world.owner.userId}`, { role: 'member' }), 200);
        before = await snapshotDatabase(server.store.db);
      });
      assert.equal(response.status, 403, `${route.name}: ${showRaw(response)}`);
      assert.deepEqual(response.body, { error: managersOnly(route) });
      assertUnchanged(before!, await snapshotDatabase(server.store.db), `${route.name} after the sender's demotion`);
    });
  }

  test('an owner demoted to admin while an owner invitation was held back gets 403, and no link is made', async () => {
    const world = await createWorld(server);
    const demoter = await coOwner(world);
    let before;
    const response = await withBodyHeldBack(
      {
        method: 'POST',
        path: '/v1/invitations',
        headers: { 'x-api-key': world.owner.key },
        body: JSON.stringify({ role: 'owner' }),
      },
      async () => {
        expectStatus(await demoter.patch(`/v1/members/${world.owner.userId}`, { role: 'admin' }), 200);
        before = await snapshotDatabase(server.store.db);
      },
    );
    assert.deepEqual([response.status, response.body], [403, { error: 'Only an owner can invite an owner.' }]);
    assertUnchanged(before!, await snapshotDatabase(server.store.db), 'the held owner invitation');
  });

  test('a removed member whose POST /v1/tasks body arrives late gets a 401, no task and no gap in the numbers', async () => {
    const world = await createWorld(server);
    const remover = await coOwner(world);
    const response = await withBodyHeldBack(
      {
        method: 'POST',
        path: '/v1/tasks',
        headers: { 'x-api-key': world.owner.key },
        body: JSON.stringify({ title: 'Written after leaving', taskListIds: [world.listId] }),
      },
      async () => {
        expectStatus(await remover.delete(`/v1/members/${world.owner.userId}`), 200);
      },
    );
    assert.equal(response.status, 401, showRaw(response));
    const next = expectStatus(await remover.post('/v1/tasks', { title: 'The next task' }), 201);
    const first = expectStatus(await world.mate.api.get(`/v1/tasks/${world.taskId}`), 200);
    assert.equal(next.number, first.number + 1, 'a number was used by the refused create');
  });
});
