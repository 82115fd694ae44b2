/**
 * Query parameters, over every route of the server's route table (as the authorization matrix
 * walks them): a parameter the route does not declare is refused with a 400 that names it and
 * the closest known one (in Error-Detail where the spec fixes the body), after authentication
 * (without credentials it is the 401 whatever the query string), changing nothing; every
 * declared parameter, repeated where it is an array, is still taken.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { FIXED_TEXTS } from './fixed-errors.js';
import { startTestServer, TEST_STORE } from './harness.js';
import { errorBodyProblem, rawRequest, showRaw, type RawResponse } from './raw-request.js';
import { buildMatrixRequest, type MatrixRequest } from './route-requests.js';
import { loadRouteTable, type ApiRoute } from './route-table.js';
import { assertUnchanged, snapshotDatabase } from './snapshot.js';
import { createWorld, type World } from './world.js';

const server = await startTestServer();
after(() => server.close());
const table = await loadRouteTable(server);

function withQuery(request: MatrixRequest, query: string): MatrixRequest['raw'] {
  const { raw } = request;
  return { ...raw, path: `${raw.path}${raw.path.includes('?') ? '&' : '?'}${query}`, timeoutMs: 5000 };
}

const shown = (response: RawResponse) => `Error-Detail: ${response.headers['error-detail']}; ${showRaw(response)}`;

/**
 * A 400 saying `message`: in the body, or, on a route whose 400 the spec fixes (it declares
 * Error-Detail), in Error-Detail with the spec's text as the body. No other route sends the header.
 */
function assertRefused(route: ApiRoute, response: RawResponse, message: string): void {
  const context = `${route.name}: ${shown(response)}`;
  assert.equal(response.status, 400, context);
  const detail = response.headers['error-detail'];
  if (route.errorDetailStatuses.includes(400)) assert.equal(detail, message, context);
  else assert.equal(detail, undefined, `only routes that declare Error-Detail send it: ${context}`);
  if (route.method === 'HEAD') return; // no body
  assert.equal(errorBodyProblem(response), undefined, context);
  if (route.errorDetailStatuses.includes(400)) assert.ok(FIXED_TEXTS.has(response.body.error), context);
  // OAuth's registration and token endpoints: the message in error_description (docs/api.md).
  else if (response.body.error_description !== undefined) {
    assert.deepEqual(response.body, { error: 'invalid_request', error_description: message }, context);
  } else assert.equal(response.body.error, message, context);
}

describe(`unknown query parameters, over the server's route table (${TEST_STORE})`, () => {
  test('the route table covers every registered /v1 and /auth route', () => {
    assert.deepEqual(table.problems, [], table.problems.join('\n'));
    assert.ok(table.routes.length > 20, `only ${table.routes.length} routes`);
  });

  test('the routes whose 400 body the spec fixes are the ones that declare Error-Detail on it', () => {
    const declaring = table.routes
      .filter((r) => r.method !== 'HEAD' && r.errorDetailStatuses.includes(400))
      .map((r) => r.name)
      .sort();
    assert.deepEqual(declaring, [
      'DELETE /v1/tasks/{taskId}',
      'GET /v1/lists/{listId}',
      'POST /v1/lists',
      'POST /v1/lists/{listId}/archive',
      'POST /v1/lists/{listId}/unarchive',
      'POST /v1/tasks',
    ]);
    for (const route of table.routes) {
      assert.deepEqual(
        route.errorDetailStatuses.filter((s) => s !== 400),
        [],
        `${route.name}: only a 400 has it`,
      );
    }
  });

  for (const route of table.routes) {
    const known = route.queryParams.map((p) => p.name);
    test(`${route.name}: an unknown query parameter is a 400 naming it (and ${known.length ? 'the closest known one' : 'that there are none'}), after authentication; nothing changes`, async () => {
      const world: World = await createWorld(server);
      const request = buildMatrixRequest(route, world, 'owner', 'refs');
      const before = await snapshotDatabase(server.store.db);

      const takes = known.length === 0 ? 'no query parameters' : known.join(', ');
      const bogus = await rawRequest(server.url, withQuery(request, 'bogus=1'));
      assertRefused(route, bogus, `Unknown query parameter bogus. This endpoint takes ${takes}.`);
      // A known parameter in the wrong case is a near miss: the answer names the right one.
      for (const name of known) {
        const upper = name.toUpperCase();
        const nearMiss = await rawRequest(server.url, withQuery(request, `${upper}=1`));
        assertRefused(route, nearMiss, `Unknown query parameter ${upper}. Did you mean ${name}?`);
      }
      assertUnchanged(before, await snapshotDatabase(server.store.db), `${route.name} with an unknown parameter`);

      if (route.credential !== 'public') {
        const anonymous = buildMatrixRequest(route, world, 'anonymous', 'refs');
        const refused = await rawRequest(server.url, withQuery(anonymous, 'bogus=1'));
        assert.equal(refused.status, 401, `without credentials, the 401 comes first: ${shown(refused)}`);
        assert.equal(refused.headers['error-detail'], undefined, shown(refused));
      }
    });
  }

  for (const route of table.routes.filter((r) => r.queryParams.length > 0)) {
    test(`${route.name}: every declared query parameter, array ones repeated, is still taken`, async () => {
      const world = await createWorld(server);
      const { raw } = buildMatrixRequest(route, world, 'owner', 'refs', false, { everyQueryParameter: true });
      const response = await rawRequest(server.url, { ...raw, timeoutMs: 5000 });
      assert.ok(route.successStatuses.includes(response.status), `${raw.path}: ${shown(response)}`);
    });
  }

  const numeric = (p: { schema: { type?: unknown } }) => p.schema.type === 'integer' || p.schema.type === 'number';
  for (const route of table.routes.filter((r) => r.method !== 'HEAD' && r.queryParams.some(numeric))) {
    test(`${route.name}: a number parameter too large for a number (1e400, -1e400) is a 400 with the parameter's own message, not a 500`, async () => {
      const world = await createWorld(server);
      const request = buildMatrixRequest(route, world, 'owner', 'refs');
      for (const param of route.queryParams.filter(numeric)) {
        for (const value of ['1e400', '-1e400']) {
          const response = await rawRequest(server.url, withQuery(request, `${param.name}=${value}`));
          const own = (param.schema as { errorMessage?: string }).errorMessage;
          assert.equal(response.status, 400, `${param.name}=${value}: ${shown(response)}`);
          assert.equal(errorBodyProblem(response), undefined, shown(response));
          if (own && !route.errorDetailStatuses.includes(400)) assert.equal(response.body.error, own, shown(response));
        }
      }
    });
  }

  test('GET /v1/tasks?listId=2, the typo for taskListId, is refused naming taskListId instead of answering every task', async () => {
    const world = await createWorld(server);
    const response = await world.owner.api.get(`/v1/tasks?listId=${world.listId}`);
    assert.equal(response.status, 400, response.text);
    assert.deepEqual(response.body, { error: 'Unknown query parameter listId. Did you mean taskListId?' });
  });

  test('a parameter name that is not printable ASCII reaches Error-Detail escaped, never splitting the header', async () => {
    const world = await createWorld(server);
    const response = await rawRequest(server.url, {
      method: 'GET',
      path: `/v1/lists/${world.listId}?%E2%82%AC%0D%0ASet-Cookie:%20x=1`,
      headers: { 'x-api-key': world.owner.key },
    });
    assert.equal(response.status, 400, shown(response));
    assert.deepEqual(response.body, { error: 'Invalid input.' });
    assert.equal(
      response.headers['error-detail'],
      'Unknown query parameter \\u20ac\\u000d\\u000aSet-Cookie: x. This endpoint takes no query parameters.',
    );
    assert.equal(response.headers['set-cookie'], undefined);
  });

  test('pages outside /v1 and /auth (health, OpenAPI, docs, the web app) still take any query string', async () => {
    for (const path of ['/healthz?probe=1', '/openapi.json?v=2', '/docs?x=1']) {
      const response = await rawRequest(server.url, { method: 'GET', path });
      assert.ok(response.status < 400, `${path}: ${showRaw(response)}`);
    }
  });
});
