/**
 * The authorization matrix. Its routes come from the server's own route table (joined with the
 * OpenAPI document for their schemas), so a new route is tried here the day it is added. Each
 * route is sent, with a valid request, by:
 *
 * - nobody (no credentials): 401 {"error"};
 * - a user of another team: refused exactly as an id that does not exist would be (404 naming
 *   the id for a path object), so the answer reveals nothing;
 * - a teammate without access to the list or task: the spec's 403, or 404 for another user's key;
 * - the owner of the objects: the route's documented success.
 *
 * Every refused call must leave the database byte-for-byte as it was, and no answer to a caller
 * (body or Error-Detail header) may carry the names of objects they cannot see. Routes that other people may use (collections,
 * their own profile) must leave the owner's objects untouched.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { startTestServer, TEST_STORE } from './harness.js';
import { errorBodyProblem, rawRequest, showRaw, type RawResponse } from './raw-request.js';
import {
  bodyVariants,
  buildMatrixRequest,
  CannotExercise,
  EVERYONE,
  expectationFor,
  withoutIds,
  type Expectation,
  type Who,
} from './route-requests.js';
import { loadRouteTable, type ApiRoute } from './route-table.js';
import { assertUnchanged, snapshotDatabase, type DatabaseSnapshot } from './snapshot.js';
import { exportsSettled } from './exports/support.js';
import { createWorld, type World } from './world.js';

const server = await startTestServer();
after(() => server.close());
const table = await loadRouteTable(server);

/** Markers `who` must never read in an answer. */
function secretsHiddenFrom(world: World, who: Who): string[] {
  if (who === 'owner') return [];
  if (who === 'outsider') return [world.listMarker];
  return [world.listMarker, world.teamMarker];
}

/**
 * The rows of the owner's private objects (and, for another team's user, of the whole team):
 * a call that others may make must leave them exactly as they were.
 */
function protectedRows(snapshot: DatabaseSnapshot, world: World, who: Who): string {
  const same = (a: unknown, b: unknown) => a !== null && a !== undefined && String(a) === String(b);
  const rows = (table: string, keep: (row: Record<string, unknown>) => boolean) =>
    (snapshot.tables[table] ?? []).filter(keep);
  const people = new Set([world.owner.userId, world.mate.userId]);
  const picked: Record<string, unknown> = {
    task_lists: rows('task_lists', (r) => same(r.id, world.listId)),
    list_members: rows('list_members', (r) => same(r.list_id, world.listId)),
    tasks: rows('tasks', (r) => same(r.id, world.taskId)),
    task_assignees: rows('task_assignees', (r) => same(r.task_id, world.taskId)),
    task_list_items: rows('task_list_items', (r) => same(r.task_id, world.taskId) || same(r.list_id, world.listId)),
    task_comments: rows('task_comments', (r) => same(r.task_id, world.taskId)),
    task_activity: rows('task_activity', (r) => same(r.task_id, world.taskId)),
    users: rows('users', (r) => people.has(String(r.id))),
    api_keys: rows('api_keys', (r) => people.has(String(r.user_id))),
    sessions: rows('sessions', (r) => people.has(String(r.user_id))),
  };
  if (who === 'stranger') {
    for (const [name, tableRows] of Object.entries(snapshot.tables)) {
      picked[`team of ${name}`] = tableRows.filter(
        (r) => same(r.team_id, world.teamId) || (name === 'teams' && same(r.id, world.teamId)),
      );
    }
  }
  return JSON.stringify(picked);
}

function describeExpectation(route: ApiRoute, expectation: Expectation): string {
  if (expectation.outcome === 'allowed') return `succeeds (${route.successStatuses.join('/')})`;
  const status = expectation.status ?? '4xx';
  const like = expectation.likeMissing ? ', the same answer as for an id that does not exist' : '';
  return `refused with ${status}${expectation.message ? ` "${expectation.message}"` : ''}${like} (${expectation.why}), nothing changed`;
}

async function send(route: ApiRoute, world: World, who: Who, variant: 'refs' | 'minimal', missing = false) {
  const request = buildMatrixRequest(route, world, who, variant, missing);
  const response = await rawRequest(server.url, { ...request.raw, timeoutMs: 5000 });
  assert.ok(response.status < 500, `${who}: ${route.name} answered a server error: ${showRaw(response)}`);
  return { ...request, response };
}

function assertNoLeak(response: RawResponse, world: World, who: Who, route: ApiRoute): void {
  const told = `${response.text}\n${response.headers['error-detail'] ?? ''}`;
  for (const secret of secretsHiddenFrom(world, who)) {
    assert.ok(
      !told.includes(secret),
      `${who}: ${route.name} revealed data they may not see (${secret}): ${showRaw(response)}`,
    );
  }
}

function assertRefusal(
  route: ApiRoute,
  who: Who,
  expectation: Expectation & { outcome: 'refused' },
  response: RawResponse,
) {
  const context = `${who}: ${route.name} should be ${describeExpectation(route, expectation)}; got ${showRaw(response)}`;
  assert.ok(response.status >= 400 && response.status < 500, context);
  if (expectation.status !== undefined) assert.equal(response.status, expectation.status, context);
  if (route.method === 'HEAD') return; // no body to check
  assert.equal(errorBodyProblem(response), undefined, context);
  if (expectation.message !== undefined) assert.equal(response.body.error, expectation.message, context);
}

describe(`authorization matrix over the server's route table (${TEST_STORE})`, () => {
  test('every registered /v1 and /auth route is in the route table with its schemas (none hidden, none unknown)', () => {
    assert.deepEqual(table.problems, [], `routes the matrix cannot cover:\n${table.problems.join('\n')}`);
    const names = new Set(table.routes.map((r) => r.name));
    for (const known of ['GET /v1/me', 'PATCH /v1/tasks/{taskId}', 'DELETE /v1/lists/{listId}/members/{userId}']) {
      assert.ok(names.has(known), `the route table lost ${known}: ${[...names].join(', ')}`);
    }
  });

  test('POST /auth/sign-in (public) into another team answers exactly as into a team that does not exist, changing nothing', async () => {
    const world = await createWorld(server);
    const signIn = (teamId: string) =>
      rawRequest(server.url, {
        method: 'POST',
        path: '/auth/sign-in',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: world.stranger.email, password: world.stranger.password, teamId }),
      });
    const before = await snapshotDatabase(server.store.db);
    const other = await signIn(world.teamId);
    const missing = await signIn('00000000-0000-4000-8000-000000000001');
    assertUnchanged(before, await snapshotDatabase(server.store.db), 'a refused sign-in');
    assert.equal(other.status, 403, showRaw(other));
    assert.equal(errorBodyProblem(other), undefined, showRaw(other));
    assert.deepEqual([missing.status, missing.body], [other.status, other.body], 'the answers differ: existence leaks');
    assertNoLeak(
      other,
      world,
      'stranger',
      table.routes.find((r) => r.path === '/auth/sign-in')!,
    );
  });

  for (const route of table.routes.filter((r) => r.credential !== 'public')) {
    test(`${route.name}: no key, another team, a teammate without access and the owner each get what the access rules say; refusals change nothing`, async (t) => {
      const world = await createWorld(server);
      for (const who of EVERYONE) {
        for (const variant of bodyVariants(route)) {
          let first;
          try {
            first = buildMatrixRequest(route, world, who, variant);
          } catch (error) {
            if (error instanceof CannotExercise) assert.fail(`cannot exercise ${route.name}: ${error.message}`);
            throw error;
          }
          const expectation = expectationFor(route, who, first.references);
          const label = `${who}${variant === 'minimal' ? ' (required fields only)' : ''}: ${describeExpectation(route, expectation)}`;
          await t.test(label, async () => {
            // An export accepted by an earlier request finishes in the background first.
            await exportsSettled(server.store.db);
            const before = await snapshotDatabase(server.store.db);
            const { response, references } = await send(route, world, who, variant);
            const afterwards = await snapshotDatabase(server.store.db);
            assertNoLeak(response, world, who, route);

            if (expectation.outcome === 'allowed') {
              assert.ok(
                route.successStatuses.includes(response.status),
                `${who}: ${route.name} should succeed (${route.successStatuses.join('/')}); got ${showRaw(response)}`,
              );
              if (who !== 'owner') {
                assert.equal(
                  protectedRows(afterwards, world, who),
                  protectedRows(before, world, who),
                  `${who}: ${route.name} changed the owner's objects`,
                );
              }
              return;
            }

            assertRefusal(route, who, expectation, response);
            assertUnchanged(before, afterwards, `${who}'s refused ${route.name}`);
            if (!expectation.likeMissing) return;
            // The same request naming ids that do not exist must get the very same answer.
            const ghost = await send(route, world, who, variant, true);
            assertUnchanged(afterwards, await snapshotDatabase(server.store.db), `${who}'s refused ${route.name}`);
            const context = `${who}: ${route.name} answers differently for an existing object (${showRaw(response)}) than for a missing one (${showRaw(ghost.response)}), so it reveals existence`;
            assert.equal(response.status, ghost.response.status, context);
            const ids = [...references, ...ghost.references];
            if (route.method !== 'HEAD') {
              assert.equal(withoutIds(response.body.error, ids), withoutIds(ghost.response.body.error, ids), context);
            }
            // The reason behind a fixed "Invalid input." must not tell them apart either.
            const detail = (r: RawResponse) => withoutIds(String(r.headers['error-detail'] ?? ''), ids);
            assert.equal(detail(response), detail(ghost.response), `${context}; Error-Detail differs`);
          });
        }
      }
    });
  }
});
