/**
 * User, team and key ids are UUIDs, stored in lower case. Every endpoint that takes one accepts
 * it in any case and treats it as the same id (the schema lower-cases it, `x-lowercase`), and
 * the OpenAPI document shows that every id input is lower-cased, so a new endpoint cannot
 * forget it. The admin CLI takes ids in any case too.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PASSWORD, setPassword, signIn } from './browser.js';
import { upsertMember } from '../src/team/teams.repository.js';
import { createTestTeam } from './factories.js';
import { expectStatus, startTestServer, tempDatabase, type TempDatabase, type TestServer } from './harness.js';
import { admin } from './processes.js';
import { loadRouteTable, type JsonSchema } from './route-table.js';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

const upper = (id: string) => id.toUpperCase();

describe('ids in upper case', () => {
  test('POST and DELETE /v1/lists/{listId}/members take an upper-case user id as the same user', async () => {
    const team = await createTestTeam(server);
    const mate = await team.member();
    const list = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Shared' }), 201);
    const added = expectStatus(
      await team.owner.api.post(`/v1/lists/${list.id}/members`, { userId: upper(mate.userId) }),
      201,
    );
    assert.equal(added.id, mate.userId);
    // Adding again in lower case finds the same membership.
    expectStatus(await team.owner.api.post(`/v1/lists/${list.id}/members`, { userId: mate.userId }), 200);
    expectStatus(await mate.api.get(`/v1/lists/${list.id}`), 200);
    expectStatus(await team.owner.api.delete(`/v1/lists/${list.id}/members/${upper(mate.userId)}`), 200);
    assert.equal((await mate.api.get(`/v1/lists/${list.id}`)).status, 403);
  });

  test('assigneeIds in POST and PATCH /v1/tasks, and the assigneeId filter, take upper-case user ids', async () => {
    const team = await createTestTeam(server);
    const mate = await team.member();
    const task = expectStatus(
      await team.owner.api.post('/v1/tasks', { title: 'Upper', assigneeIds: [upper(mate.userId)] }),
      201,
    );
    assert.deepEqual(
      task.assignees.map((a: { id: string }) => a.id),
      [mate.userId],
    );
    // The same person named twice in two cases is one assignee.
    expectStatus(
      await team.owner.api.patch(`/v1/tasks/${task.id}`, {
        assigneeIds: [upper(team.owner.userId), team.owner.userId, mate.userId],
      }),
      200,
    );
    const detail = expectStatus(await team.owner.api.get(`/v1/tasks/${task.id}`), 200);
    assert.deepEqual(detail.assignees.map((a: { id: string }) => a.id).sort(), [mate.userId, team.owner.userId].sort());
    const found = expectStatus(await team.owner.api.get(`/v1/tasks?assigneeId=${upper(mate.userId)}`), 200);
    assert.deepEqual(
      found.map((t: { id: number }) => t.id),
      [task.id],
    );
  });

  test('teamId in POST /auth/sign-in and POST /auth/team, and keyId in DELETE /v1/api-keys/{keyId}, take upper case', async () => {
    const first = await createTestTeam(server);
    const second = await createTestTeam(server);
    await upsertMember(server.store.db, second.id, first.owner.userId, 'member');
    await setPassword(server, first.owner);
    const { browser, info } = await signIn(server, first.owner.email, PASSWORD, upper(second.id));
    assert.equal(info.team.id, second.id);
    assert.equal(
      expectStatus(await browser.post('/auth/team', { teamId: upper(first.id) }, browser.csrf()), 200).team.id,
      first.id,
    );

    const created = expectStatus(await browser.post('/v1/api-keys', { name: 'Upper' }, browser.csrf()), 201);
    const revoked = expectStatus(await browser.delete(`/v1/api-keys/${upper(created.id)}`, browser.csrf()), 200);
    assert.equal(revoked.revoked, true);
    assert.equal((await server.client(created.key).get('/v1/me')).status, 401);
  });

  test('every id input in the OpenAPI document that is not a number is lower-cased by validation', async () => {
    const { routes } = await loadRouteTable(server);
    const missing: string[] = [];
    const visit = (where: string, name: string, schema: JsonSchema | undefined) => {
      if (!schema) return;
      if (schema.type === 'array') return visit(where, name, schema.items);
      if (schema.type === 'object') {
        for (const [property, child] of Object.entries<JsonSchema>(schema.properties ?? {})) {
          visit(where, property, child);
        }
        return;
      }
      const namesAnId = /(?:^|[a-z])Ids?$/.test(name) || name === 'id';
      const types = [schema.type].flat();
      const numeric = types.includes('integer') || types.includes('number') || schema.pattern === '^\\d+$';
      if ((schema.format === 'uuid' || namesAnId) && !numeric && schema['x-lowercase'] !== true) {
        missing.push(`${where}: ${name}`);
      }
    };
    for (const route of routes) {
      for (const param of [...route.pathParams, ...route.queryParams]) visit(route.name, param.name, param.schema);
      visit(route.name, 'body', route.body?.schema);
    }
    assert.deepEqual(missing, [], 'id inputs that a client may send in upper case but are compared as sent');
  });
});

describe('ids in upper case in the admin CLI', () => {
  let database: TempDatabase;
  before(async () => {
    database = await tempDatabase();
  });
  after(() => database.remove());

  test('admin member add, key create and key revoke take --org, --user and --id in upper case', async () => {
    // One after the other: only org create may create the (SQLite) database.
    const org = await admin(database.url, 'org', 'create', '--name', 'Upper');
    const user = await admin(database.url, 'user', 'create', '--email', 'upper@example.test', '--name', 'Upper');
    const member = await admin(database.url, 'member', 'add', '--org', upper(org.id), '--user', upper(user.id));
    assert.deepEqual(member, { orgId: org.id, userId: user.id, role: 'member' });
    const key = await admin(database.url, 'key', 'create', '--org', upper(org.id), '--user', upper(user.id));
    assert.deepEqual(await admin(database.url, 'key', 'revoke', '--id', upper(key.id)), { revoked: true });
  });
});
