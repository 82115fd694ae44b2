/**
 * The security suite: every /v1 and /auth route of the server's own route table refuses an
 * unknown or revoked key and a user who has left the team, and changes nothing when it does.
 * (No credentials, another team and a teammate without access are tried on every route by the
 * authorization matrix, test/authz-matrix.test.ts.) Plus the identity, member and status reads
 * every client starts with, and how keys are stored.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { insertKey, revokeKey } from '../src/keys/keys.repository.js';
import { insertSession } from '../src/sessions/sessions.repository.js';
import { insertStatus } from '../src/statuses/statuses.repository.js';
import { deleteMember } from '../src/team/teams.repository.js';
import { createTestTeam, type Actor, type Team } from './factories.js';
import { expectError, expectStatus, show, startTestServer, type TestServer } from './harness.js';
import { errorBodyProblem, rawRequest, showRaw, type RawRequest, type RawResponse } from './raw-request.js';
import { buildMatrixRequest } from './route-requests.js';
import { loadRouteTable, type ApiRoute } from './route-table.js';
import { assertUnchanged, snapshotDatabase } from './snapshot.js';
import { createWorld, type World } from './world.js';

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

const server = await startTestServer();
after(() => server.close());

/** Every authenticated route, from the server's route table (a route added tomorrow is here too). */
const ROUTES: ApiRoute[] = (await loadRouteTable(server)).routes.filter((r) => r.credential !== 'public');

/** The owner's valid request to `route`, sent with other credentials instead of the owner's. */
function withCredentials(route: ApiRoute, world: World, credentials: Record<string, string>): RawRequest {
  const { raw } = buildMatrixRequest(route, world, 'owner', 'refs');
  const headers = Object.fromEntries(
    Object.entries(raw.headers ?? {}).filter(([name]) => !['x-api-key', 'cookie', 'x-csrf-token'].includes(name)),
  );
  return { ...raw, headers: { ...headers, ...credentials }, timeoutMs: 5000 };
}

/** Sends the request and checks that it was refused with `statuses` and {"error"}, changing nothing. */
async function expectRefused(route: ApiRoute, request: RawRequest, statuses: number[]): Promise<RawResponse> {
  const before = await snapshotDatabase(server.store.db);
  const response = await rawRequest(server.url, request);
  assert.ok(
    statuses.includes(response.status),
    `${route.name}: expected ${statuses.join(' or ')}, got ${showRaw(response)}`,
  );
  if (route.method !== 'HEAD') assert.equal(errorBodyProblem(response), undefined, showRaw(response));
  assertUnchanged(before, await snapshotDatabase(server.store.db), `a refused ${route.name}`);
  return response;
}

interface Fixture {
  team: Team;
  /** A teammate on the list and assigned to the task. */
  mate: Actor;
  objects: { listId: number; taskId: number; userId: string };
}

/** A team whose owner has a list (shared with a teammate) and a task on it assigned to the teammate. */
async function teamWithObjects(server: TestServer): Promise<Fixture> {
  const team = await createTestTeam(server);
  const mate = await team.member({ name: 'Mate' });
  const list = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Secret list', color: 'Blue' }), 201);
  expectStatus(await team.owner.api.post(`/v1/lists/${list.id}/members`, { userId: mate.userId }), 201);
  const task = expectStatus(
    await team.owner.api.post('/v1/tasks', {
      title: 'Secret task',
      taskListIds: [list.id],
      assigneeIds: [mate.userId],
    }),
    201,
  );
  return { team, mate, objects: { listId: list.id, taskId: task.id, userId: mate.userId } };
}

/** What the owner sees of the fixture: it must be the same after every refused request. */
async function snapshot(fixture: Fixture) {
  const { owner } = fixture.team;
  const { listId, taskId } = fixture.objects;
  return {
    list: expectStatus(await owner.api.get(`/v1/lists/${listId}`), 200),
    members: expectStatus(await owner.api.get(`/v1/lists/${listId}/members`), 200),
    task: expectStatus(await owner.api.get(`/v1/tasks/${taskId}`), 200),
  };
}

/** A fresh key for an existing actor, with a client that sends it. */
async function newKey(
  server: TestServer,
  actor: Actor,
): Promise<{ id: string; key: string; api: ReturnType<TestServer['client']> }> {
  const { record: row, key } = await insertKey(server.store.db, {
    teamId: actor.teamId,
    userId: actor.userId,
    name: 'extra',
  });
  return { id: row.id, key, api: server.client(key) };
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

describe('security of every /v1 and /auth route', () => {
  let world: World;
  before(async () => {
    // Shared: every request below is refused, and each checks that it changed nothing.
    world = await createWorld(server);
  });

  test('the route table lists the routes this suite must cover', () => {
    const names = ROUTES.map((r) => r.name);
    for (const known of ['GET /v1/me', 'POST /v1/tasks', 'DELETE /v1/api-keys/{keyId}', 'POST /auth/team']) {
      assert.ok(names.includes(known), `the route table lost ${known}: ${names.join(', ')}`);
    }
  });

  describe('a request with an unknown key gets 401 {"error"} and changes nothing', () => {
    for (const route of ROUTES) {
      test(route.name, async () => {
        // One key shaped like a real one (the owner's with its last character changed), and garbage.
        const real = world.owner.key;
        const lookalike = real.slice(0, -1) + (real.endsWith('A') ? 'B' : 'A');
        for (const key of [lookalike, 'not-a-key', ' ']) {
          await expectRefused(route, withCredentials(route, world, { 'x-api-key': key }), [401]);
        }
      });
    }
  });

  describe('a revoked key gets 401 on the very next request, and changes nothing', () => {
    for (const route of ROUTES) {
      test(route.name, async () => {
        const key = await newKey(server, world.owner);
        expectStatus(await key.api.get('/v1/me'), 200); // the key works (and any cache is warm)
        assert.equal(await revokeKey(server.store.db, key.id), true);
        await expectRefused(route, withCredentials(route, world, { 'x-api-key': key.key }), [401]);
        // The owner's other key is unaffected.
        expectStatus(await world.owner.api.get('/v1/me'), 200);
      });
    }
  });

  describe('a user removed from the team: GET /v1/me 404 "Membership not found.", every other route 401 or 403, nothing changed', () => {
    for (const route of ROUTES) {
      test(route.name, async () => {
        // The leaver was on the list and assigned to the task; the request is the owner's, sent
        // with the leaver's key (or session, for session routes).
        const leaver = await world.team.member({ name: 'Leaver' });
        expectStatus(await world.owner.api.post(`/v1/lists/${world.listId}/members`, { userId: leaver.userId }), 201);
        const task = expectStatus(await world.owner.api.get(`/v1/tasks/${world.taskId}`), 200);
        const assigneeIds = [...task.assignees.map((a: { id: string }) => a.id), leaver.userId];
        expectStatus(await world.owner.api.patch(`/v1/tasks/${world.taskId}`, { assigneeIds }), 200);
        const session = await insertSession(server.store.db, leaver.userId, world.teamId);
        expectStatus(await leaver.api.get(`/v1/tasks/${world.taskId}`), 200); // access before leaving
        assert.equal(await deleteMember(server.store.db, world.teamId, leaver.userId), true);

        const credentials: Record<string, string> =
          route.credential === 'session'
            ? { cookie: `tasklane_session=${session.token}`, 'x-csrf-token': session.csrfToken }
            : { 'x-api-key': leaver.key };
        const request = withCredentials(route, world, credentials);
        if (route.path === '/v1/me') {
          const response = await expectRefused(route, request, [404]);
          if (route.method === 'GET') assert.equal(response.body.error, 'Membership not found.');
        } else {
          await expectRefused(route, request, [401, 403]);
        }
      });
    }
  });

  describe('another team’s objects stay hidden', () => {
    test('a stranger admin or owner gets the same 404 as a stranger member', async () => {
      const victim = await teamWithObjects(server);
      const other = await createTestTeam(server);
      const admin = await other.member({ role: 'admin' });
      for (const actor of [other.owner, admin]) {
        expectError(
          await actor.api.get(`/v1/lists/${victim.objects.listId}`),
          404,
          `List ${victim.objects.listId} not found.`,
        );
        expectError(
          await actor.api.get(`/v1/tasks/${victim.objects.taskId}`),
          404,
          `Task ${victim.objects.taskId} not found.`,
        );
      }
    });

    test('collections and filters never reveal another team’s lists or tasks', async () => {
      const victim = await teamWithObjects(server);
      const stranger = (await createTestTeam(server)).owner;
      const { listId, taskId } = victim.objects;
      assert.deepEqual(expectStatus(await stranger.api.get('/v1/lists'), 200), []);
      assert.deepEqual(expectStatus(await stranger.api.get('/v1/tasks'), 200), []);
      assert.deepEqual(expectStatus(await stranger.api.get(`/v1/tasks?taskListId=${listId}`), 200), []);
      assert.deepEqual(expectStatus(await stranger.api.get('/v1/tasks?query=Secret'), 200), []);
      // Nor can a new task be hung on the other team's list or task.
      const before = await snapshot(victim);
      for (const body of [
        { title: 'Sneaky', taskListIds: [listId] },
        { title: 'Sneaky', parentId: taskId },
      ]) {
        const res = await stranger.api.post('/v1/tasks', body);
        assert.ok(res.status === 400 || res.status === 404, `expected 400 or 404, got ${show(res)}`);
        expectError(res, res.status);
      }
      assert.deepEqual(await snapshot(victim), before);
      assert.equal(
        expectStatus(await victim.team.owner.api.get(`/v1/tasks?taskListId=${listId}`), 200).length,
        1,
        'the victim list gained a task',
      );
    });
  });

  describe('GET /v1/me', () => {
    test('answers exactly {user{id,name,email}, team{id,name}, role}', async () => {
      const team = await createTestTeam(server, 'Identity team');
      const admin = await team.member({ role: 'admin', name: 'Ada Admin' });
      for (const actor of [team.owner, admin]) {
        assert.deepEqual(expectStatus(await actor.api.get('/v1/me'), 200), {
          user: { id: actor.userId, name: actor.name, email: actor.email },
          team: { id: team.id, name: 'Identity team' },
          role: actor.role,
        });
      }
    });
  });

  describe('GET /v1/users', () => {
    test('returns every member of the team with their role, and nobody from another team', async () => {
      const team = await createTestTeam(server);
      const admin = await team.member({ role: 'admin', name: 'Ada Admin' });
      const member = await team.member({ name: 'Max Member' });
      const other = await createTestTeam(server);
      await other.member({ name: 'Stranger' });

      const users = expectStatus(await member.api.get('/v1/users'), 200);
      assert.ok(Array.isArray(users));
      const seen = users
        .map((u: Record<string, string>) => ({ id: u.id!, name: u.name, email: u.email, role: u.role }))
        .sort((a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id));
      const expected = [team.owner, admin, member]
        .map((a) => ({ id: a.userId, name: a.name, email: a.email, role: a.role }))
        .sort((a, b) => a.id.localeCompare(b.id));
      assert.deepEqual(seen, expected);
    });

    test('a member removed from the team disappears from the list at once', async () => {
      const team = await createTestTeam(server);
      const leaver = await team.member();
      assert.equal(expectStatus(await team.owner.api.get('/v1/users'), 200).length, 2);
      await deleteMember(server.store.db, team.id, leaver.userId);
      const users = expectStatus(await team.owner.api.get('/v1/users'), 200);
      assert.deepEqual(
        users.map((u: { id: string }) => u.id),
        [team.owner.userId],
      );
    });
  });

  describe('GET /v1/task-statuses', () => {
    const isStatus = (s: Record<string, unknown>) =>
      typeof s.id === 'number' &&
      typeof s.name === 'string' &&
      (s.color === null || typeof s.color === 'string') &&
      typeof s.isDefault === 'boolean' &&
      typeof s.isCompleted === 'boolean' &&
      typeof s.order === 'number';

    test('a new team has statuses sorted by order, exactly one default and at least one completed', async () => {
      const { owner } = await createTestTeam(server);
      const statuses = expectStatus(await owner.api.get('/v1/task-statuses'), 200);
      assert.ok(statuses.length > 0);
      for (const s of statuses) assert.ok(isStatus(s), `not a task status: ${JSON.stringify(s)}`);
      const orders = statuses.map((s: { order: number }) => s.order);
      assert.deepEqual(
        orders,
        [...orders].sort((a, b) => a - b),
      );
      assert.equal(statuses.filter((s: { isDefault: boolean }) => s.isDefault).length, 1);
      assert.ok(statuses.some((s: { isCompleted: boolean }) => s.isCompleted));
    });

    test('statuses added out of order come back sorted, and other teams’ statuses never appear', async () => {
      const team = await createTestTeam(server);
      const other = await createTestTeam(server);
      const first = await insertStatus(server.store.db, team.id, {
        name: 'Triage',
        color: null,
        isDefault: false,
        isCompleted: false,
        order: -5,
      });
      const last = await insertStatus(server.store.db, team.id, {
        name: 'Archived',
        color: '#000000',
        isDefault: false,
        isCompleted: true,
        order: 100,
      });
      const statuses = expectStatus(await team.owner.api.get('/v1/task-statuses'), 200);
      assert.deepEqual(statuses[0], first);
      assert.deepEqual(statuses.at(-1), last);
      const orders = statuses.map((s: { order: number }) => s.order);
      assert.deepEqual(
        orders,
        [...orders].sort((a, b) => a - b),
      );

      const otherIds = new Set(
        expectStatus(await other.owner.api.get('/v1/task-statuses'), 200).map((s: { id: number }) => s.id),
      );
      for (const s of statuses) assert.ok(!otherIds.has(s.id), `status ${s.id} is shared between teams`);
    });
  });

  describe('API keys at rest', () => {
    test('the api_keys table stores only a hash: no column holds the key or its secret part', async () => {
      const team = await createTestTeam(server);
      const key = await newKey(server, team.owner);
      expectStatus(await key.api.get('/v1/me'), 200);
      const rows = await server.store.db.selectFrom('api_keys').selectAll().execute();
      const row = rows.find((r) => r.id === key.id);
      assert.ok(row, 'the key row exists');
      const secretTail = key.key.slice(-16);
      for (const r of rows) {
        for (const [column, value] of Object.entries(r)) {
          if (value === null || value === undefined) continue;
          const text = String(value);
          for (const k of [key.key, team.owner.key]) {
            assert.ok(!text.includes(k), `api_keys.${column} contains a key in clear`);
            assert.ok(!text.includes(k.slice(-16)), `api_keys.${column} contains the secret part of a key`);
          }
          assert.ok(!text.includes(secretTail));
        }
      }
    });
  });
});
