/**
 * /mcp (issue 33), driven by the official MCP SDK's client against the real server on the store
 * under test: the tools, their annotations and scopes, idempotent writes, versioned descriptions,
 * activity marked as an agent's, and the transport's authentication and Origin checks.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { FastifyRequest } from 'fastify';
import diagnostics from 'node:diagnostics_channel';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { KeyScope } from '../../src/contract/keys.js';
import { createTestTeam, type Team } from '../factories.js';
import { expectError, expectStatus, show, startTestServer, type TestServer } from '../harness.js';
import { insertKey, revokeKey } from '../../src/keys/keys.repository.js';
import { call, connect, namedKey, refused } from './support.js';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

const TOOLS = [
  'add_comment',
  'create_task',
  'find_tasks',
  'get_task',
  'list_labels',
  'list_lists',
  'list_members',
  'list_statuses',
  'my_tasks',
  'update_task',
];

/** An MCP session of the team's owner through a key named `Claude`. */
async function agentOf(team: Team): Promise<Client> {
  return connect(server, await namedKey(server, team.owner, 'Claude'));
}

describe('tools', () => {
  test('lists every tool with its annotations and scope', async () => {
    const team = await createTestTeam(server);
    const client = await agentOf(team);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), TOOLS);
    for (const tool of tools) {
      const hints = tool.annotations ?? {};
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint'] as const) {
        assert.equal(typeof hints[hint], 'boolean', `${tool.name} lacks ${hint}: ${JSON.stringify(tool)}`);
      }
      assert.match(tool.description ?? '', /Scope: (tasks|comments|lists|team):(read|write)\./);
    }
    const byName = new Map(tools.map((t) => [t.name, t]));
    assert.equal(byName.get('find_tasks')!.annotations!.readOnlyHint, true);
    assert.equal(byName.get('create_task')!.annotations!.readOnlyHint, false);
    assert.equal(byName.get('update_task')!.annotations!.destructiveHint, true);
    assert.ok('idempotencyKey' in (byName.get('create_task')!.inputSchema.properties ?? {}));
    await client.close();
  });

  test('every tool answers, as the API would, and states the access', async () => {
    const team = await createTestTeam(server);
    const client = await agentOf(team);
    const { lists } = await call(client, 'list_lists');
    assert.deepEqual(lists, []);
    const list = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Launch' }), 201);
    const { statuses } = await call(client, 'list_statuses');
    const done = statuses.find((s: { isCompleted: boolean }) => s.isCompleted);
    const { members } = await call(client, 'list_members');
    assert.deepEqual(
      members.map((m: { name: string }) => m.name),
      [team.owner.name],
    );
    const label = expectStatus(await team.owner.api.post('/v1/labels', { name: 'bug', color: 'Red' }), 201);
    const { labels } = await call(client, 'list_labels');
    assert.deepEqual(labels, [{ id: label.id, name: 'bug' }]);

    const created = await call(client, 'create_task', {
      title: 'Write the zebrafish announcement',
      description: 'Draft first',
      listIds: [list.id],
      assigneeIds: [team.owner.userId],
      labelIds: [label.id],
      dueDate: '2030-01-15',
      priority: 'high',
      idempotencyKey: randomUUID(),
    });
    assert.match(created.access, /^as Olivia Owner \(owner\) in .*, key 'Claude' with the full access of its user$/);
    const taskId = created.task.id;

    const mine = await call(client, 'my_tasks');
    assert.deepEqual(
      mine.tasks.map((t: { id: number }) => t.id),
      [taskId],
    );
    const found = await call(client, 'find_tasks', { listId: list.id, dueFrom: '2030-01-01', dueTo: '2030-01-31' });
    assert.deepEqual(
      found.tasks.map((t: { id: number; lists: string[] }) => [t.id, t.lists]),
      [[taskId, ['Launch']]],
    );
    const assigned = await call(client, 'find_tasks', { assigneeId: 'me', statusId: created.task.taskStatusId });
    assert.deepEqual(
      assigned.tasks.map((t: { id: number }) => t.id),
      [taskId],
    );
    const none = await call(client, 'find_tasks', { completed: true });
    assert.deepEqual(none.tasks, []);
    const searched = await call(client, 'find_tasks', { query: 'zebrafish' });
    assert.deepEqual(
      searched.matches.map((m: { id: number; matched: string }) => [m.id, m.matched]),
      [[taskId, 'title']],
    );

    await call(client, 'add_comment', { taskId, body: 'First thoughts', idempotencyKey: randomUUID() });
    const updated = await call(client, 'update_task', { taskId, statusId: done.id, title: 'Announce it' });
    assert.equal(updated.task.title, 'Announce it');

    const { task, comments, activity } = await call(client, 'get_task', { taskId });
    assert.equal(task.status, done.name);
    assert.equal(task.description, 'Draft first');
    assert.equal(typeof task.version, 'number');
    assert.deepEqual(
      comments.map((c: { body: string }) => c.body),
      ['First thoughts'],
    );
    assert.deepEqual(
      activity.map((a: { kind: string }) => a.kind),
      ['task.updated', 'comment.created', 'task.created'],
    );
    await client.close();
  });

  test('a service refusal is a tool error with its message; bad arguments are refused too', async () => {
    const team = await createTestTeam(server);
    const client = await agentOf(team);
    const missing = await refused(client, 'get_task', { taskId: 999999 });
    assert.equal(missing.text, 'Task 999999 not found.');
    const badDate = await refused(client, 'create_task', { title: 'x', dueDate: '2030-13-45' });
    assert.match(badDate.text, /dueDate/);
    const wrongType = await refused(client, 'create_task', { title: 42 });
    assert.match(wrongType.text, /title/);
    const unknownTool = await refused(client, 'drop_tables', {});
    assert.match(unknownTool.text, /drop_tables/);
    await client.close();
  });
});

describe('writes', () => {
  test('a retried create with the same idempotency key creates one task', async () => {
    const team = await createTestTeam(server);
    const client = await agentOf(team);
    const idempotencyKey = randomUUID();
    const args = { title: 'Only once', idempotencyKey };
    const first = await call(client, 'create_task', args);
    const again = await call(client, 'create_task', args);
    assert.equal(again.task.id, first.task.id);
    assert.equal(again.replayed, true);
    const tasks = expectStatus(await team.owner.api.get('/v1/tasks'), 200);
    assert.deepEqual(
      tasks.map((t: { title: string }) => t.title),
      ['Only once'],
    );
    // The same key for another change is refused, and writes nothing.
    const reused = await refused(client, 'create_task', { title: 'Something else', idempotencyKey });
    assert.match(reused.text, /already used for a different call/);
    assert.equal(expectStatus(await team.owner.api.get('/v1/tasks'), 200).length, 1);
    // A comment retried likewise is written once.
    const commentKey = randomUUID();
    await call(client, 'add_comment', { taskId: first.task.id, body: 'Once', idempotencyKey: commentKey });
    await call(client, 'add_comment', { taskId: first.task.id, body: 'Once', idempotencyKey: commentKey });
    const comments = expectStatus(await team.owner.api.get(`/v1/tasks/${first.task.id}/comments`), 200);
    assert.equal(comments.length, 1, JSON.stringify(comments));
    await client.close();
  });

  test('a description is changed only against the version read; a stale one gets the newer text', async () => {
    const team = await createTestTeam(server);
    const client = await agentOf(team);
    const { task } = await call(client, 'create_task', { title: 'Spec', description: 'v1 text' });
    const needsVersion = await refused(client, 'update_task', { taskId: task.id, description: 'mine' });
    assert.match(needsVersion.text, /expectedVersion/);
    // A teammate changes the description meanwhile, through the API.
    expectStatus(await team.owner.api.patch(`/v1/tasks/${task.id}`, { description: 'teammate text' }), 200);
    const stale = await refused(client, 'update_task', {
      taskId: task.id,
      description: 'agent text',
      expectedVersion: task.version,
    });
    assert.match(stale.text, /teammate text/);
    assert.equal(stale.data.description, 'teammate text');
    assert.ok(stale.data.currentVersion > task.version);
    const now = expectStatus(await team.owner.api.get(`/v1/tasks/${task.id}`), 200);
    assert.equal(now.description, 'teammate text');
    // With the newer version, it goes through.
    const merged = await call(client, 'update_task', {
      taskId: task.id,
      description: 'teammate text + agent text',
      expectedVersion: stale.data.currentVersion,
    });
    assert.equal(merged.task.version, stale.data.currentVersion + 1);
    await client.close();
  });

  test('activity shows changes made through MCP as an agent’s, with the key’s name', async () => {
    const team = await createTestTeam(server);
    const client = await agentOf(team);
    const { task } = await call(client, 'create_task', { title: 'Tracked', idempotencyKey: randomUUID() });
    await call(client, 'add_comment', { taskId: task.id, body: 'noted' });
    expectStatus(await team.owner.api.patch(`/v1/tasks/${task.id}`, { title: 'Tracked by hand' }), 200);
    const page = expectStatus(await team.owner.api.get(`/v1/tasks/${task.id}/activity`), 200);
    const entries = page.map((e: { kind: string; via?: unknown }) => [e.kind, e.via]);
    assert.deepEqual(entries, [
      ['task.updated', undefined],
      ['comment.created', { kind: 'agent', keyName: 'Claude' }],
      ['task.created', { kind: 'agent', keyName: 'Claude' }],
    ]);
    // The API's own entries keep their published shape: no via key at all.
    assert.ok(!('via' in page[0]));
    await client.close();
  });
});

describe('scopes', () => {
  /** Until scoped keys land on this branch, their limits are put on the caller as authentication would. */
  function limitKey(keyId: string, scopes: KeyScope[]): () => void {
    const channel = diagnostics.channel('tasklane:request-authenticated');
    const limit = (message: unknown) => {
      const { request } = message as { request: FastifyRequest };
      if (request.caller.credential.id === keyId) {
        Object.assign(request.caller, { limits: { scopes, listIds: null, name: 'Reader' } });
      }
    };
    channel.subscribe(limit);
    return () => channel.unsubscribe(limit);
  }

  test('an out-of-scope tool call is refused and changes nothing', async () => {
    const team = await createTestTeam(server);
    const key = await namedKey(server, team.owner, 'Reader');
    const keyId = (
      await server.store.db
        .selectFrom('api_keys')
        .select('id')
        .where('name', '=', 'Reader')
        .where('team_id', '=', team.id)
        .executeTakeFirstOrThrow()
    ).id;
    const stop = limitKey(keyId, ['tasks:read']);
    try {
      const client = await connect(server, key);
      const before = expectStatus(await team.owner.api.get('/v1/tasks'), 200);
      const refusal = await refused(client, 'create_task', { title: 'Not allowed', idempotencyKey: randomUUID() });
      assert.equal(refusal.text, 'This API key lacks the scope tasks:write.');
      assert.deepEqual(expectStatus(await team.owner.api.get('/v1/tasks'), 200), before);
      const members = await refused(client, 'list_members');
      assert.equal(members.text, 'This API key lacks the scope team:read.');
      const mine = await call(client, 'my_tasks');
      assert.match(mine.access, /key 'Reader' limited to tasks:read$/);
      await client.close();
    } finally {
      stop();
    }
  });
});

describe('list limits', () => {
  test('a key limited to lists finds, reads and writes only tasks on them, through MCP as through REST', async () => {
    const team = await createTestTeam(server);
    const api = team.owner.api;
    const mine = expectStatus(await api.post('/v1/lists', { name: 'Allowed' }), 201);
    const other = expectStatus(await api.post('/v1/lists', { name: 'Elsewhere' }), 201);
    const inside = expectStatus(await api.post('/v1/tasks', { title: 'Inside okapi', taskListIds: [mine.id] }), 201);
    const outside = expectStatus(await api.post('/v1/tasks', { title: 'Outside okapi', taskListIds: [other.id] }), 201);
    // The owner's own task on no list: readable by the owner, but not on the key's lists.
    expectStatus(await api.post('/v1/tasks', { title: 'Loose okapi', assigneeIds: [team.owner.userId] }), 201);
    const { key } = await insertKey(server.store.db, {
      teamId: team.id,
      userId: team.owner.userId,
      name: 'Scout',
      listIds: [mine.id],
    });
    const client = await connect(server, key);
    const ids = (result: { tasks: { id: number }[] }) => result.tasks.map((t) => t.id);
    assert.deepEqual(ids(await call(client, 'find_tasks', {})), [inside.id]);
    const searched = await call(client, 'find_tasks', { query: 'okapi' });
    assert.deepEqual(
      searched.matches.map((m: { id: number }) => m.id),
      [inside.id],
    );
    assert.deepEqual(ids(await call(client, 'my_tasks')), []);
    const { lists } = await call(client, 'list_lists');
    assert.deepEqual(
      lists.map((l: { id: number }) => l.id),
      [mine.id],
    );
    assert.equal(
      (await refused(client, 'get_task', { taskId: outside.id })).text,
      'You do not have access to this task.',
    );
    const before = expectStatus(await api.get('/v1/tasks'), 200);
    const elsewhere = await refused(client, 'create_task', {
      title: 'Not there',
      listIds: [other.id],
      idempotencyKey: randomUUID(),
    });
    assert.match(elsewhere.text, /limited to lists/);
    assert.deepEqual(expectStatus(await api.get('/v1/tasks'), 200), before, 'a refused create writes nothing');
    await call(client, 'create_task', { title: 'There', listIds: [mine.id], idempotencyKey: randomUUID() });
    await client.close();
    // The same key over REST sees the same.
    const rest = expectStatus(await server.client(key).get('/v1/tasks'), 200);
    assert.deepEqual(rest.map((t: { title: string }) => t.title).sort(), ['Inside okapi', 'There']);
  });
});

describe('transport', () => {
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  };
  const accept = { accept: 'application/json, text/event-stream' };

  test('no key: 401 with WWW-Authenticate: Bearer', async () => {
    const response = await server.client().post('/mcp', initialize, accept);
    expectError(response, 401);
    assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer/);
    const wrong = await server.client().post('/mcp', initialize, { ...accept, authorization: 'Bearer tl_nope' });
    expectError(wrong, 401);
    assert.match(wrong.headers.get('www-authenticate') ?? '', /^Bearer/);
  });

  test('a foreign Origin: 403; the server’s own: answered', async () => {
    const team = await createTestTeam(server);
    const foreign = await team.owner.api.post('/mcp', initialize, { ...accept, origin: 'https://evil.example' });
    expectError(foreign, 403);
    const own = await team.owner.api.post('/mcp', initialize, { ...accept, origin: new URL(server.url).origin });
    assert.equal(own.status, 200, show(own));
    assert.equal(own.body.result.serverInfo.name, 'tasklane');
  });

  test('the x-api-key header works too; GET and DELETE are 405; Fastify’s own 4xx stay {"error"}', async () => {
    const team = await createTestTeam(server);
    const ok = await team.owner.api.post('/mcp', initialize, accept);
    assert.equal(ok.status, 200, show(ok));
    expectError(await team.owner.api.get('/mcp', accept), 405);
    expectError(await team.owner.api.delete('/mcp'), 405);
    expectError(
      await team.owner.api.request('POST', '/mcp', {
        rawBody: '{"jsonrpc":',
        headers: { ...accept, 'content-type': 'application/json' },
      }),
      400,
    );
    expectError(
      await team.owner.api.request('POST', '/mcp', {
        rawBody: 'hello',
        headers: { ...accept, 'content-type': 'text/plain' },
      }),
      415,
    );
  });
});

describe('access that ends, and limits', () => {
  test('a revoked key is refused on its next call', async () => {
    const team = await createTestTeam(server);
    const key = await namedKey(server, team.owner, 'Soon revoked');
    const client = await connect(server, key);
    await call(client, 'my_tasks');
    const { id } = await server.store.db
      .selectFrom('api_keys')
      .select('id')
      .where('name', '=', 'Soon revoked')
      .where('team_id', '=', team.id)
      .executeTakeFirstOrThrow();
    await revokeKey(server.store.db, id);
    await assert.rejects(call(client, 'my_tasks'), /401|Invalid API key/);
    await client.close().catch(() => {});
  });

  test('the API’s rate limit applies to /mcp', async () => {
    const limited = await startTestServer({ RATE_LIMIT_PER_MINUTE: '3' });
    try {
      const team = await createTestTeam(limited);
      const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
      const headers = { accept: 'application/json, text/event-stream' };
      for (let i = 0; i < 3; i++) assert.equal((await team.owner.api.post('/mcp', ping, headers)).status, 200);
      const refusedResponse = await limited.client(team.owner.key).post('/mcp', ping, headers);
      expectError(refusedResponse, 429);
    } finally {
      await limited.close();
    }
  });
});

describe('bugs', () => {
  test('a tool that fails with a bug answers a JSON-RPC internal error, quoting nothing', async () => {
    const team = await createTestTeam(server);
    const channel = diagnostics.channel('tasklane:request-authenticated');
    const breakStore = (message: unknown) => {
      const { request } = message as { request: FastifyRequest };
      if (request.caller.teamId !== team.id) return;
      request.store = new Proxy(request.store, {
        get: (target, name) => {
          if (name === 'db') throw new Error('secret internals');
          return Reflect.get(target, name);
        },
      });
    };
    channel.subscribe(breakStore);
    try {
      const response = await team.owner.api.post(
        '/mcp',
        { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'list_statuses', arguments: {} } },
        { accept: 'application/json, text/event-stream' },
      );
      assert.equal(response.status, 200, show(response));
      assert.deepEqual(response.body.error, { code: -32603, message: 'Internal server error.' }, show(response));
      assert.doesNotMatch(response.text, /secret/);
    } finally {
      channel.unsubscribe(breakStore);
    }
  });
});
