/**
 * Property-based fuzzing of every endpoint, derived from the OpenAPI document of a running
 * server: generated path segments, query parameters, bodies and headers (valid values, wrong
 * types, boundaries, huge and unicode strings, nulls, extra and missing fields, `__proto__`,
 * repeated parameters, odd ids). For every request:
 *
 * - the answer is never a 5xx (nor a hang);
 * - a 4xx body is exactly {"error": "<non-empty string>"} in JSON;
 * - a 4xx leaves the database byte-for-byte as it was;
 * - a query parameter the route does not declare is never taken, and its refusal names it and
 *   suggests only parameters the route takes;
 * - a 400 whose body is the spec's fixed text carries Error-Detail, only on the routes that
 *   declare it, in printable ASCII;
 * - a success uses a status the route documents.
 *
 * FUZZ_RUNS cases per endpoint (default 20); `npm run fuzz` runs many more. FUZZ_SEED replays a
 * run (the seed is printed on failure), FUZZ_ONLY="POST /v1/tasks" narrows it to one endpoint,
 * FUZZ_PATH replays one case, FUZZ_SHRINK=1 shrinks a failure to a smaller one. With
 * TASKLANE_TEST_STORE=postgres and TEST_DATABASE_URL it runs on PostgreSQL.
 */
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { after, describe, test } from 'node:test';
import fc from 'fast-check';
import { insertKey } from '../src/keys/keys.repository.js';
import { insertSession } from '../src/sessions/sessions.repository.js';
import { hashPassword } from '../src/team/passwords.js';
import { upsertMember } from '../src/team/teams.repository.js';
import { setPasswordHash } from '../src/team/users.repository.js';
import { describeRequest, requestArb, toRawRequest, type FuzzContext, type FuzzRequest } from './fuzz/requests.js';
import { Ref } from './fuzz/values.js';
import { expectStatus, startTestServer, TEST_STORE, type TestServer } from './harness.js';
import { upload } from './attachments/support.js';
import { exportsSettled } from './exports/support.js';
import { FIXED_TEXTS } from './fixed-errors.js';
import { errorBodyProblem, rawRequest, showRaw, type RawResponse } from './raw-request.js';
import { managersOnly } from './route-requests.js';
import { loadRouteTable, type ApiRoute } from './route-table.js';
import { tokenOf } from './team/support.js';
import { differences, snapshotDatabase } from './snapshot.js';
import {
  commentNotification,
  createWorld,
  WORLD_PASSWORD,
  WORLD_REDIRECT_URI,
  WORLD_WEBHOOK_URL,
  type World,
} from './world.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 20);
const SEED = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : randomInt(2 ** 31);
const ONLY = process.env.FUZZ_ONLY;
const PATH = process.env.FUZZ_PATH;

/**
 * Each successful change adds rows, and every case reads the whole database twice: a fresh
 * database every RECYCLE_AFTER cases keeps long runs from slowing down as it grows.
 */
const RECYCLE_AFTER = Number(process.env.FUZZ_RECYCLE_AFTER ?? 400);
let server = await startTestServer();
let casesOnServer = 0;
after(() => server.close());
const table = await loadRouteTable(server);

/** Each route its own stream of cases (archive and unarchive would otherwise get the same ones), all from FUZZ_SEED. */
function routeSeed(route: ApiRoute): number {
  let hash = SEED;
  for (const char of route.name) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0;
  return hash;
}

async function freshServerIfGrown(): Promise<TestServer> {
  if (casesOnServer >= RECYCLE_AFTER) {
    await server.close();
    server = await startTestServer();
    casesOnServer = 0;
  }
  return server;
}

/**
 * The objects requests name. A successful change may consume them (a deleted task, a revoked
 * key, a signed-out session), so after one the fixture gets fresh objects before the next case.
 */
class Fixture {
  private world: World | undefined;
  private context: FuzzContext | undefined;

  constructor(readonly server: TestServer) {}

  async current(): Promise<FuzzContext> {
    this.world ??= await createWorld(this.server);
    this.context ??= await this.renew(this.world);
    return this.context;
  }

  /** The last request changed something: give the next one fresh objects. */
  spoil(): void {
    this.context = undefined;
  }

  /** The markers of the current world: who may not see the owner's objects must never read them. */
  get markers(): { listMarker: string; teamMarker: string } {
    return this.world!;
  }

  private async renew(world: World): Promise<FuzzContext> {
    const { db } = this.server.store;
    const { owner, mate } = world;
    await setPasswordHash(db, owner.userId, await (passwordHash ??= hashPassword(WORLD_PASSWORD)));
    // A fuzzed success may have removed the teammate from the team, or changed their role or the owner's.
    await upsertMember(db, world.teamId, mate.userId, 'member');
    await upsertMember(db, world.teamId, owner.userId, 'owner');
    // Scoped, as the world's spare key: /v1/agent-access revokes only keys with limits.
    const spare = await insertKey(db, {
      teamId: world.teamId,
      userId: owner.userId,
      name: 'spare',
      scopes: ['tasks:read'],
    });
    const list = expectStatus(await owner.api.post('/v1/lists', { name: `Fuzzed list ${world.listMarker}` }), 201);
    expectStatus(await owner.api.post(`/v1/lists/${list.id}/members`, { userId: mate.userId }), 201);
    const task = expectStatus(
      await owner.api.post('/v1/tasks', {
        title: `Fuzzed task ${world.listMarker}`,
        taskListIds: [list.id],
        assigneeIds: [mate.userId],
      }),
      201,
    );
    const comment = expectStatus(
      await owner.api.post(`/v1/tasks/${task.id}/comments`, { body: `Fuzzed comment ${world.listMarker}` }),
      201,
    );
    const [entry] = expectStatus(await owner.api.get(`/v1/tasks/${task.id}/activity?limit=1`), 200);
    const attachment = expectStatus(await upload(owner.api, task.id, Buffer.from('fuzzed file'), 'fuzzed.txt'), 201);
    const webhook = await freshWebhook(this.server, world);
    // The owner's newest export (a fuzzed POST may have started one still being written), else a new one.
    const [newestExport = expectStatus(await owner.api.post('/v1/exports'), 202)] = expectStatus(
      await owner.api.get('/v1/exports'),
      200,
    );
    const status = expectStatus(await owner.api.post('/v1/task-statuses', { name: 'Fuzzed status' }), 201);
    // A label the fuzzed requests left, or a new one: the team's labels are bounded, so they are reused.
    const [label = expectStatus(await owner.api.post('/v1/labels', { name: 'Fuzzed label' }), 201)] = expectStatus(
      await owner.api.get('/v1/labels'),
      200,
    );
    const invitation = expectStatus(await owner.api.post('/v1/invitations', { role: 'member' }), 201);
    const delivery = expectStatus(await owner.api.post(`/v1/webhooks/${webhook.id}/test`), 202);
    const view = await freshView(this.server, world);
    // The owner's notification about the fresh task, as the mate's comment on it would leave it.
    const notification = await commentNotification(db, {
      teamId: world.teamId,
      to: owner.userId,
      from: mate.userId,
      taskId: task.id,
    });
    // Fresh sessions: a fuzzed sign-out or password change may have ended the last ones.
    const credentials = {} as FuzzContext['credentials'];
    for (const sender of ['owner', 'outsider', 'stranger'] as const) {
      const actor = world[sender];
      credentials[sender] = { key: actor.key, session: await insertSession(db, actor.userId, actor.teamId) };
    }
    const values: Record<Ref['kind'], string | number> = {
      list: list.id,
      task: task.id,
      comment: comment.id,
      entry: entry.id,
      status: status.id,
      label: label.id,
      moveTo: world.defaultStatusId,
      invitation: invitation.id,
      invitationToken: tokenOf(invitation.link),
      user: mate.userId,
      team: world.teamId,
      key: spare.record.id,
      email: owner.email,
      password: WORLD_PASSWORD,
      webhook: webhook.id,
      delivery: delivery.id,
      view: view.id,
      notification: notification.id,
      attachment: attachment.id,
      export: newestExport.id,
      import: world.importId,
      url: WORLD_WEBHOOK_URL,
      oauthClient: world.oauthClientId,
      redirectUri: WORLD_REDIRECT_URI,
      mcpResource: world.mcpResource,
    };
    return { credentials, resolve: (ref) => values[ref.kind] };
  }
}
let passwordHash: Promise<string> | undefined;

/** A new webhook of the owner's, after removing the ones fuzzed successes left (a team holds at most 50). */
async function freshWebhook(server: TestServer, world: World): Promise<{ id: string }> {
  await server.store.db.deleteFrom('webhooks').where('team_id', '=', world.teamId).execute();
  return expectStatus(await world.owner.api.post('/v1/webhooks', { url: WORLD_WEBHOOK_URL }), 201);
}

/** A new private view of the owner's, after removing the ones fuzzed successes left (a person holds at most 100). */
async function freshView(server: TestServer, world: World): Promise<{ id: number }> {
  await server.store.db.deleteFrom('views').where('team_id', '=', world.teamId).execute();
  const view = { name: `Fuzzed view ${world.listMarker}`, filters: {}, layout: 'rows' };
  return expectStatus(await world.owner.api.post('/v1/views', view), 201);
}

/** A row added to the idempotency records (see src/http/idempotency.ts). */
const IDEMPOTENCY_RECORD = /^idempotency_keys: \+ /;

/** What is wrong with the answer to one generated request, or undefined when nothing is. */
async function check(
  route: ApiRoute,
  fixture: Fixture,
  request: FuzzRequest,
  statuses: Map<number, number>,
): Promise<void> {
  const context = await fixture.current();
  const raw = toRawRequest(route, request, context);
  const { server } = fixture;
  casesOnServer += 1;
  // An accepted export (the fixture's, or a fuzzed POST's) finishes in the background first.
  await exportsSettled(server.store.db);
  const before = await snapshotDatabase(server.store.db);
  const response = await rawRequest(server.url, { ...raw, timeoutMs: 10_000 });
  statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
  const fail = (problem: string) => {
    throw new Error(`${problem}\n  request: ${describeRequest(raw)}\n  response: ${showRaw(response)}`);
  };

  if (response.status >= 500) fail(`a server error (${response.status})`);
  const { listMarker, teamMarker } = fixture.markers;
  const hidden =
    request.sender === 'owner' ? [] : request.sender === 'outsider' ? [listMarker] : [listMarker, teamMarker];
  if (hidden.some((marker) => response.text.includes(marker))) {
    fail(`the ${request.sender} read the owner's objects`);
  }
  const namesGuardedObject = Object.values(request.path).some(
    (value) =>
      value instanceof Ref &&
      ['list', 'task', 'comment', 'entry', 'key', 'webhook', 'view', 'delivery', 'invitation'].includes(value.kind),
  );
  if (request.sender !== 'owner' && namesGuardedObject && response.status < 300) {
    fail(`the ${request.sender} succeeded on the owner's object`);
  }
  if (request.sender === 'outsider' && managersOnly(route) && response.status < 300) {
    fail('a plain member succeeded where only owners and admins may');
  }
  if (response.status < 200 || (response.status >= 300 && response.status < 400)) {
    fail(`an unexpected status ${response.status}`);
  }
  const detailProblem = errorDetailProblem(route, response);
  if (detailProblem) fail(detailProblem);
  const declared = new Set(route.queryParams.map((p) => p.name));
  const unknown = request.query.filter((entry) => !declared.has(entry.name)).map((entry) => entry.name);
  if (unknown.length > 0 && response.status < 400) fail(`unknown query parameters (${unknown.join(', ')}) were taken`);
  if (response.status >= 400) {
    const problem = errorBodyProblem(response);
    if (problem) fail(`a ${response.status} whose body is not exactly {"error": "<message>"}: ${problem}`);
    const changes = differences(before, await snapshotDatabase(server.store.db)).filter(
      // A keyed POST records its answer, a refusal too, so that a retry gets the same answer:
      // that record of the request is the one row a refused request may add.
      (line) => !(IDEMPOTENCY_RECORD.test(line) && raw.headers?.['idempotency-key'] !== undefined),
    );
    if (changes.length > 0) {
      fail(`a refused request (${response.status}) changed stored data:\n    ${changes.slice(0, 8).join('\n    ')}`);
    }
    return;
  }
  if (!route.successStatuses.includes(response.status)) {
    fail(`a success status the route does not document (${route.successStatuses.join('/')})`);
  }
  if (!response.stream && !route.binary && response.body === undefined) fail('a success whose body is not JSON');
  if (route.method !== 'GET') fixture.spoil();
}

/** A refusal of an unknown query parameter: what it may say, and which names it may suggest. */
const UNKNOWN_QUERY_REFUSAL =
  /^Unknown query parameter [^]*?\. (?:Did you mean ([\w-]+(?: or [\w-]+)*)\?|This endpoint takes ([\w, -]+)\.|Send it as the [\w-]+ header instead\.)$/;

/**
 * What is wrong with the response's Error-Detail header: it goes with every 400 whose body is the
 * spec's fixed text, on exactly the routes that declare it, in printable ASCII; a refused
 * unknown query parameter is named, and only declared parameters are suggested.
 */
function errorDetailProblem(route: ApiRoute, response: RawResponse): string | undefined {
  const header = response.headers['error-detail'];
  const detail = Array.isArray(header) ? header.join(', ') : header;
  const declares = route.errorDetailStatuses.includes(response.status);
  if (detail !== undefined && !declares) return `Error-Detail on a ${response.status} that does not declare it`;
  if (declares && FIXED_TEXTS.has(response.body?.error) && !detail) return 'a fixed 400 body without Error-Detail';
  if (detail !== undefined && !/^[\x20-\x7e]+$/.test(detail)) return 'Error-Detail is not printable ASCII';
  const reason = detail ?? (response.status === 400 ? String(response.body?.error) : '');
  if (!reason.startsWith('Unknown query parameter ')) return undefined;
  const match = UNKNOWN_QUERY_REFUSAL.exec(reason);
  if (!match) return `an unknown query parameter refused in unexpected words: ${reason}`;
  const named = (match[1]?.split(' or ') ?? []).concat(
    match[2] === 'no query parameters' ? [] : (match[2]?.split(', ') ?? []),
  );
  const declared = new Set(route.queryParams.map((p) => p.name));
  const strangers = named.filter((name) => !declared.has(name));
  return strangers.length > 0
    ? `the refusal names parameters the route does not take: ${strangers.join(', ')}`
    : undefined;
}

describe('requests the fuzzer found mishandled, kept as fixed cases', () => {
  test('a malformed percent-encoding in the path (GET /v1/tasks/%) is a 400 {"error"}, not Fastify\'s own body', async () => {
    const key = (await new Fixture(server).current()).credentials.owner.key;
    for (const path of ['/v1/tasks/%', '/v1/lists/%zz/archive', '/v1/%E0%A4%A']) {
      const response = await rawRequest(server.url, { method: 'GET', path, headers: { 'x-api-key': key } });
      assert.equal(response.status, 400, showRaw(response));
      assert.equal(errorBodyProblem(response), undefined, showRaw(response));
      assert.equal(response.body.error, 'The URL is malformed.');
    }
  });

  test('a deeply nested JSON body sent with an Idempotency-Key is a 4xx like without the key, not a 500', async () => {
    const key = (await new Fixture(server).current()).credentials.owner.key;
    const body = `{"title":"Nested","parentId":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const headers = { 'x-api-key': key, 'content-type': 'application/json' };
    const plain = await rawRequest(server.url, { method: 'POST', path: '/v1/tasks', headers, body });
    assert.equal(plain.status, 400, showRaw(plain));
    const keyed = await rawRequest(server.url, {
      method: 'POST',
      path: '/v1/tasks',
      headers: { ...headers, 'idempotency-key': 'nested-body' },
      body,
    });
    assert.ok(keyed.status >= 400 && keyed.status < 500, showRaw(keyed));
    assert.equal(errorBodyProblem(keyed), undefined, showRaw(keyed));
  });

  test('a malformed session cookie is a 401 {"error"} on every kind of route, never a 500', async () => {
    for (const cookie of ['tasklane_session=%', 'tasklane_session=%E0%A4%A', '__Host-tasklane_session=%']) {
      for (const [method, path] of [
        ['GET', '/v1/me'],
        ['GET', '/v1/lists'],
        ['POST', '/v1/tasks'],
        ['GET', '/auth/session'],
      ] as const) {
        const response = await rawRequest(server.url, { method, path, headers: { cookie } });
        assert.equal(response.status, 401, showRaw(response));
        assert.equal(errorBodyProblem(response), undefined, showRaw(response));
      }
    }
  });

  test('HEAD /v1/events answers its head at once instead of holding the connection open', async () => {
    const key = (await new Fixture(server).current()).credentials.owner.key;
    const response = await rawRequest(server.url, {
      method: 'HEAD',
      path: '/v1/events',
      headers: { 'x-api-key': key },
      timeoutMs: 3000,
    });
    assert.equal(response.status, 200);
  });
});

describe(`fuzzing every endpoint from its OpenAPI schema (${TEST_STORE}, ${RUNS} cases each, FUZZ_SEED=${SEED})`, () => {
  test('the fuzzer sees every registered /v1 and /auth route (none hidden from OpenAPI)', () => {
    assert.deepEqual(table.problems, [], table.problems.join('\n'));
  });

  // HEAD routes are their GET without a body: fuzzing the GET covers them.
  const routes = table.routes.filter((r) => r.method !== 'HEAD' && (!ONLY || r.name === ONLY));
  if (ONLY) assert.ok(routes.length > 0, `FUZZ_ONLY="${ONLY}" names no route`);

  for (const route of routes) {
    test(`${route.name}: never a 5xx; every 4xx is exactly {"error"} and changes nothing`, async (t) => {
      const fixture = new Fixture(await freshServerIfGrown());
      // How far the cases got (validation, authorization, success), to see that the fuzzer explores.
      const statuses = new Map<number, number>();
      t.after(() => {
        const counts = [...statuses].sort(([a], [b]) => a - b).map(([status, n]) => `${status}×${n}`);
        t.diagnostic(`answers: ${counts.join(', ')}`);
      });
      try {
        await fc.assert(
          fc.asyncProperty(requestArb(route), (request) => check(route, fixture, request, statuses)),
          {
            numRuns: RUNS,
            seed: routeSeed(route),
            path: PATH,
            // Each shrinking step is a real request and snapshot: shrinking can take minutes, so only on demand.
            endOnFailure: process.env.FUZZ_SHRINK !== '1',
            includeErrorInReport: true,
          },
        );
      } catch (error) {
        const replay = `FUZZ_SEED=${SEED} FUZZ_ONLY="${route.name}" npm run test:one -- ${TEST_STORE === 'postgres' ? '--pg ' : ''}test/fuzz.test.ts`;
        throw new Error(
          `${(error as Error).message}\n\nReplay: ${replay} (add FUZZ_PATH=<path above> to run only the failing case)`,
        );
      }
    });
  }
});
