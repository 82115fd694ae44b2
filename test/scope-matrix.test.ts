/**
 * The scope matrix (issue 33): route × scope, derived from the server's own route table (as the
 * authorization matrix is, test/authz-matrix.test.ts), so a new route is tried the day it is added.
 *
 * - Every authenticated /v1 and /auth route declares the scope a key needs (`config.scope`,
 *   published in the OpenAPI document as SCOPE_EXTENSION): a route that forgets fails here.
 * - For a route needing a scope, the world's owner's key holding every scope but that one is
 *   refused with the 403 naming it, and the database is left exactly as it was; a key holding
 *   only that scope gets what the owner's own key gets (the route's success).
 * - For a `'full'` route, a key holding every scope is refused with the 403 saying the route needs
 *   a key without scopes, and nothing changes.
 *
 * Session-only routes (key management, the account) are sent with the scoped key, as a client
 * holding only that key would: the scope check answers before the route's own session check.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { KEY_SCOPES, type KeyScope } from '../src/contract/keys.js';
import { insertKey } from '../src/keys/keys.repository.js';
import { FULL_ROUTE_MESSAGE, lacksScopeMessage } from '../src/keys/scopes.js';
import { exportsSettled } from './exports/support.js';
import { startTestServer, TEST_STORE } from './harness.js';
import { errorBodyProblem, rawRequest, showRaw } from './raw-request.js';
import { buildMatrixRequest, expectationFor } from './route-requests.js';
import { loadRouteTable, type ApiRoute } from './route-table.js';
import { assertUnchanged, snapshotDatabase } from './snapshot.js';
import { createWorld, type World } from './world.js';

const server = await startTestServer();
after(() => server.close());
const table = await loadRouteTable(server);
const authenticated = table.routes.filter((r) => r.credential !== 'public');

/** A key of the world's owner holding `scopes`, used once (so that no later request writes its first use). */
async function ownerKey(world: World, scopes: readonly KeyScope[]): Promise<string> {
  const { key } = await insertKey(server.store.db, {
    teamId: world.teamId,
    userId: world.owner.userId,
    name: `scoped ${scopes.join(' ')}`,
    scopes,
  });
  await rawRequest(server.url, { method: 'GET', path: '/v1/me', headers: { 'x-api-key': key } });
  return key;
}

/** The owner's request to `route`, sent with `key` alone (no session cookie, no CSRF token). */
async function sendWithKey(route: ApiRoute, world: World, key: string) {
  const request = buildMatrixRequest(route, world, 'owner', 'refs');
  const headers = { ...request.raw.headers } as Record<string, string>;
  delete headers.cookie;
  delete headers['x-csrf-token'];
  headers['x-api-key'] = key;
  const response = await rawRequest(server.url, { ...request.raw, headers, timeoutMs: 5000 });
  assert.ok(response.status < 500, `${route.name} answered a server error: ${showRaw(response)}`);
  return { response, references: request.references };
}

describe(`scope matrix over the server's route table (${TEST_STORE})`, () => {
  test('every authenticated /v1 and /auth route declares the scope a key needs for it', () => {
    assert.deepEqual(table.problems, [], table.problems.join('\n'));
    const undeclared = authenticated.filter((r) => r.scope === undefined).map((r) => r.name);
    assert.deepEqual(
      undeclared,
      [],
      `routes without config.scope (declare one in the route table):\n${undeclared.join('\n')}`,
    );
    const known = new Set<string>([...KEY_SCOPES, 'full']);
    for (const route of authenticated)
      assert.ok(known.has(route.scope!), `${route.name}: unknown scope ${route.scope}`);
    // A few the issue fixes, so that a slip in the table shows here by name.
    const scopeOf = (name: string) => authenticated.find((r) => r.name === name)?.scope;
    assert.equal(scopeOf('GET /v1/tasks'), 'tasks:read');
    assert.equal(scopeOf('POST /v1/tasks/{taskId}/comments'), 'comments:write');
    assert.equal(scopeOf('POST /v1/api-keys'), 'full');
    assert.equal(scopeOf('POST /v1/webhooks'), 'full');
    assert.equal(scopeOf('GET /v1/events'), 'tasks:read');
    assert.equal(scopeOf('PATCH /v1/lists/{listId}'), 'lists:write');
    assert.equal(scopeOf('GET /v1/me'), 'team:read');
  });

  for (const route of authenticated.filter((r) => r.scope !== undefined)) {
    const scope = route.scope as KeyScope | 'full';
    const title =
      scope === 'full'
        ? `${route.name} (full): a key with every scope is refused, nothing changed`
        : `${route.name} (${scope}): a key with every other scope is refused naming ${scope}, nothing changed; a key with ${scope} alone succeeds`;
    test(title, async () => {
      const world = await createWorld(server);
      await exportsSettled(server.store.db);
      const others = scope === 'full' ? KEY_SCOPES : KEY_SCOPES.filter((s) => s !== scope);
      const refusedKey = await ownerKey(world, others);
      const before = await snapshotDatabase(server.store.db);
      const refused = await sendWithKey(route, world, refusedKey);
      assertUnchanged(before, await snapshotDatabase(server.store.db), `the refused ${route.name}`);
      const message = scope === 'full' ? FULL_ROUTE_MESSAGE : lacksScopeMessage(scope);
      const context = `${route.name} with a key lacking ${scope} should be refused with 403 "${message}"; got ${showRaw(refused.response)}`;
      assert.equal(refused.response.status, 403, context);
      if (route.method !== 'HEAD') {
        assert.equal(errorBodyProblem(refused.response), undefined, context);
        assert.equal(refused.response.body.error, message, context);
      }
      if (scope === 'full') return;

      const onlyKey = await ownerKey(world, [scope]);
      const allowed = await sendWithKey(route, world, onlyKey);
      const expectation = expectationFor(route, 'owner', allowed.references);
      const got = showRaw(allowed.response);
      assert.notEqual(allowed.response.body?.error, message, `${route.name} refused a key holding ${scope}: ${got}`);
      if (expectation.outcome === 'allowed') {
        assert.ok(
          route.successStatuses.includes(allowed.response.status),
          `${route.name} with a key holding ${scope} alone should succeed as the owner does (${route.successStatuses.join('/')}); got ${got}`,
        );
      }
    });
  }
});
