/**
 * The security suite: every /v1 route refuses a missing, unknown or revoked key, refuses a user
 * who has left the team, and hides another team's objects behind a plain 404. Plus the identity,
 * member and status reads every client starts with, and how keys are stored.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { insertKey, revokeKey } from '../src/keys/keys.repository.js';
import { insertStatus } from '../src/statuses/statuses.repository.js';
import { deleteMember } from '../src/teams/teams.repository.js';
import { createTestTeam, type Actor, type Team } from './factories.js';
import {
  expectError,
  expectStatus,
  show,
  startTestServer,
  type Client,
  type Response,
  type TestServer,
} from './harness.js';

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/** The objects a route's path and body can refer to. */
interface Objects {
  listId: number;
  taskId: number;
  /** A teammate who is a member of the list (for the list-member routes). */
  userId: string;
}

interface Route {
  /** `METHOD /path/{param}` exactly as the spec (or the list-member extension) names it. */
  name: string;
  body?: (o: Objects) => unknown;
  /** The object the path names, whose cross-team 404 message the spec fixes. */
  names?: 'list' | 'task';
}

/** Every /v1 route. Bodies are valid, so only authentication and authorization can refuse them. */
const ROUTES: Route[] = [
  { name: 'GET /v1/me' },
  { name: 'GET /v1/lists' },
  { name: 'POST /v1/lists', body: () => ({ name: 'Intruder list' }) },
  { name: 'GET /v1/lists/{listId}', names: 'list' },
  { name: 'PATCH /v1/lists/{listId}', body: () => ({ name: 'Hijacked', color: 'Red' }), names: 'list' },
  { name: 'POST /v1/lists/{listId}/archive', names: 'list' },
  { name: 'POST /v1/lists/{listId}/unarchive', names: 'list' },
  { name: 'GET /v1/lists/{listId}/members', names: 'list' },
  { name: 'POST /v1/lists/{listId}/members', body: (o) => ({ userId: o.userId }), names: 'list' },
  { name: 'DELETE /v1/lists/{listId}/members/{userId}', names: 'list' },
  { name: 'GET /v1/task-statuses' },
  { name: 'GET /v1/users' },
  { name: 'GET /v1/tasks' },
  { name: 'POST /v1/tasks', body: () => ({ title: 'Intruder task' }) },
  { name: 'GET /v1/tasks/{taskId}', names: 'task' },
  { name: 'PATCH /v1/tasks/{taskId}', body: () => ({ title: 'Hijacked', priority: 'urgent' }), names: 'task' },
  { name: 'DELETE /v1/tasks/{taskId}', names: 'task' },
];

/** Sends `route` through `client`, filling its path parameters and body from `objects`. */
function call(client: Client, route: Route, objects: Objects): Promise<Response> {
  const [method, template] = route.name.split(' ') as [string, string];
  const path = template
    .replace('{listId}', String(objects.listId))
    .replace('{taskId}', String(objects.taskId))
    .replace('{userId}', objects.userId);
  return client.request(method, path, route.body ? { body: route.body(objects) } : {});
}

interface Fixture {
  team: Team;
  /** A teammate on the list and assigned to the task. */
  mate: Actor;
  objects: Objects;
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

/** Lists and tasks stored for a team, straight from the database. */
async function countRows(server: TestServer, teamId: string): Promise<{ lists: number; tasks: number }> {
  const db = server.store.db;
  const lists = await db.selectFrom('task_lists').select('id').where('team_id', '=', teamId).execute();
  const tasks = await db.selectFrom('tasks').select('id').where('team_id', '=', teamId).execute();
  return { lists: lists.length, tasks: tasks.length };
}

/** A fresh key for an existing actor, with a client that sends it. */
async function newKey(server: TestServer, actor: Actor): Promise<{ id: string; key: string; api: Client }> {
  const { row, key } = await insertKey(server.store.db, { teamId: actor.teamId, userId: actor.userId, name: 'extra' });
  return { id: row.id, key, api: server.client(key) };
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

describe('security of every /v1 route', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  describe('a request without x-api-key gets 401 {"error"} and changes nothing', () => {
    for (const route of ROUTES) {
      test(route.name, async () => {
        const fixture = await teamWithObjects(server);
        const before = await snapshot(fixture);
        const rowsBefore = await countRows(server, fixture.team.id);
        expectError(await call(server.client(), route, fixture.objects), 401);
        assert.deepEqual(await snapshot(fixture), before);
        assert.deepEqual(await countRows(server, fixture.team.id), rowsBefore);
      });
    }
  });

  describe('a request with an unknown key gets 401 {"error"} and changes nothing', () => {
    for (const route of ROUTES) {
      test(route.name, async () => {
        const fixture = await teamWithObjects(server);
        const before = await snapshot(fixture);
        const rowsBefore = await countRows(server, fixture.team.id);
        // One key shaped like a real one (the owner's with its last characters changed), one garbage.
        const real = fixture.team.owner.key;
        const lookalike = real.slice(0, -1) + (real.endsWith('A') ? 'B' : 'A');
        for (const key of [lookalike, 'not-a-key', ' ']) {
          expectError(await call(server.client(key), route, fixture.objects), 401);
        }
        assert.deepEqual(await snapshot(fixture), before);
        assert.deepEqual(await countRows(server, fixture.team.id), rowsBefore);
      });
    }
  });

  describe('a revoked key gets 401 on the very next request', () => {
    for (const route of ROUTES) {
      test(route.name, async () => {
        const fixture = await teamWithObjects(server);
        const key = await newKey(server, fixture.team.owner);
        expectStatus(await key.api.get('/v1/me'), 200); // the key works (and any cache is warm)
        const before = await snapshot(fixture);
        const rowsBefore = await countRows(server, fixture.team.id);

        assert.equal(await revokeKey(server.store.db, key.id), true);
        expectError(await call(key.api, route, fixture.objects), 401);
        assert.deepEqual(await snapshot(fixture), before);
        assert.deepEqual(await countRows(server, fixture.team.id), rowsBefore);
        // The owner's other key is unaffected.
        expectStatus(await fixture.team.owner.api.get('/v1/me'), 200);
      });
    }
  });

  describe('a user removed from the team: GET /v1/me 404 "Membership not found.", every other route 401 or 403', () => {
    for (const route of ROUTES) {
      test(route.name, async () => {
        const fixture = await teamWithObjects(server);
        // The leaver created nothing but was on the list and assigned to the task; the list-member
        // routes name another teammate.
        const leaver = await fixture.team.member({ name: 'Leaver' });
        const { listId, taskId } = fixture.objects;
        expectStatus(await fixture.team.owner.api.post(`/v1/lists/${listId}/members`, { userId: leaver.userId }), 201);
        expectStatus(await fixture.team.owner.api.patch(`/v1/tasks/${taskId}`, { assigneeIds: [leaver.userId] }), 200);
        expectStatus(await leaver.api.get(`/v1/tasks/${taskId}`), 200); // access before leaving
        expectStatus(await leaver.api.get('/v1/me'), 200);
        const before = await snapshot(fixture);
        const rowsBefore = await countRows(server, fixture.team.id);

        assert.equal(await deleteMember(server.store.db, fixture.team.id, leaver.userId), true);
        const res = await call(leaver.api, route, fixture.objects);
        if (route.name === 'GET /v1/me') {
          expectError(res, 404, 'Membership not found.');
        } else {
          assert.ok(res.status === 401 || res.status === 403, `expected 401 or 403, got ${show(res)}`);
          expectError(res, res.status);
        }
        // The list and task changed only by losing the leaver.
        const now = await snapshot(fixture);
        assert.deepEqual(now.list, before.list);
        assert.equal(now.task.title, before.task.title);
        assert.deepEqual(
          now.members.map((m: { id: string }) => m.id).sort(),
          before.members
            .map((m: { id: string }) => m.id)
            .filter((id: string) => id !== leaver.userId)
            .sort(),
        );
        assert.deepEqual(await countRows(server, fixture.team.id), rowsBefore);
      });
    }
  });

  describe('another team’s existing object is a 404 naming the id: never 403, never data', () => {
    for (const route of ROUTES.filter((r) => r.names)) {
      test(route.name, async () => {
        const victim = await teamWithObjects(server);
        const stranger = (await createTestTeam(server)).owner;
        const before = await snapshot(victim);
        const { listId, taskId } = victim.objects;
        const message = route.names === 'list' ? `List ${listId} not found.` : `Task ${taskId} not found.`;
        expectError(await call(stranger.api, route, victim.objects), 404, message);
        assert.deepEqual(await snapshot(victim), before);
      });
    }

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
