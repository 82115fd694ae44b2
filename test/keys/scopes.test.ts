/**
 * Scoped API keys (issue 33; docs/api.md, "Scoped API keys"), over HTTP on the store under test:
 *
 * - creating one in settings: scopes, the presets, lists; every refusal with its message;
 *   listings show scopes and listIds (null for a key without them)
 * - a scoped key is refused, naming the scope, where it lacks one, and on the routes that need a
 *   key without scopes (the whole route × scope table: test/scope-matrix.test.ts)
 * - a key limited to lists never sees a task outside them, in a list, a detail, a filter, a
 *   search, a CSV, comments or activity; it cannot put a task outside them, nor create a list;
 *   the event stream refuses it
 * - `missingScope`, which /mcp calls for each tool
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Caller } from '../../src/caller.js';
import { AGENT_SCOPES, KEY_SCOPES, READ_ONLY_SCOPES, type KeyScope } from '../../src/contract/keys.js';
import { insertKey } from '../../src/keys/keys.repository.js';
import {
  FULL_ROUTE_MESSAGE,
  LIST_LIMITED_FULL_ROUTE_MESSAGE,
  lacksScopeMessage,
  missingScope,
  outsideListLimitMessage,
} from '../../src/keys/scopes.js';
import { LIST_LIMITED_EVENTS_MESSAGE } from '../../src/realtime/events.routes.js';
import { signedInOwner } from '../browser.js';
import { createTestTeam, type Team } from '../factories.js';
import { expectError, expectStatus, startTestServer, TEST_STORE, type Client, type TestServer } from '../harness.js';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

/** A key of `team`'s owner with these limits, as a client. */
async function keyOf(
  team: Team,
  limits: { scopes?: readonly KeyScope[]; listIds?: readonly number[] },
  userId = team.owner.userId,
): Promise<Client> {
  const { key } = await insertKey(server.store.db, { teamId: team.id, userId, name: 'agent', ...limits });
  return server.client(key);
}

const callerWith = (limits?: Caller['limits']): Caller => ({
  userId: 'u',
  teamId: 't',
  role: 'owner',
  credential: { kind: 'key', id: 'k' },
  ...(limits && { limits }),
});

describe(`scoped API keys (${TEST_STORE})`, () => {
  describe('creating one (POST /v1/api-keys, signed-in session)', () => {
    test('scopes, a preset or lists are stored and listed; a key without them lists null for both', async () => {
      const { team, browser } = await signedInOwner(server);
      const list = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Agents' }), 201);
      const readOnly = expectStatus(
        await browser.post('/v1/api-keys', { name: 'reader', preset: 'readOnly' }, browser.csrf()),
        201,
      );
      assert.deepEqual([readOnly.scopes, readOnly.listIds], [[...READ_ONLY_SCOPES], null]);
      const agent = expectStatus(
        await browser.post('/v1/api-keys', { name: 'agent', preset: 'agent', listIds: [list.id] }, browser.csrf()),
        201,
      );
      assert.deepEqual([agent.scopes, agent.listIds], [[...AGENT_SCOPES], [list.id]]);
      // Stored in the contract's order, however they were given.
      const chosen = expectStatus(
        await browser.post('/v1/api-keys', { name: 'chosen', scopes: ['team:read', 'tasks:read'] }, browser.csrf()),
        201,
      );
      assert.deepEqual(chosen.scopes, ['tasks:read', 'team:read']);

      const listed = expectStatus(await browser.get('/v1/api-keys'), 200);
      const byName = new Map(listed.map((k: any) => [k.name, [k.scopes, k.listIds]]));
      assert.deepEqual(byName.get('reader'), [[...READ_ONLY_SCOPES], null]);
      assert.deepEqual(byName.get('agent'), [[...AGENT_SCOPES], [list.id]]);
      assert.deepEqual(byName.get('test'), [null, null], 'the factory key has no limits');

      // The new keys work, within their scopes.
      const reader = server.client(readOnly.key);
      expectStatus(await reader.get('/v1/tasks'), 200);
      expectError(await reader.post('/v1/tasks', { title: 'No' }), 403, lacksScopeMessage('tasks:write'));
    });

    test('refused with a 400 that says why: both, empty, unknown, twice, and lists one may not use', async () => {
      const { team, browser } = await signedInOwner(server);
      const mine = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Mine' }), 201);
      const archived = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Old' }), 201);
      expectStatus(await team.owner.api.post(`/v1/lists/${archived.id}/archive`), 200);
      const mate = await team.member();
      const theirs = expectStatus(await mate.api.post('/v1/lists', { name: 'Theirs' }), 201);
      const other = await createTestTeam(server);
      const elsewhere = expectStatus(await other.owner.api.post('/v1/lists', { name: 'Elsewhere' }), 201);
      const refusals: [Record<string, unknown>, string | RegExp][] = [
        [{ preset: 'agent', scopes: ['tasks:read'] }, 'Give scopes or preset, not both.'],
        [{ scopes: [] }, /^scopes must hold at least one scope/],
        [{ scopes: ['tasks:delete'] }, /^scopes: "tasks:delete" is not a scope; the scopes are tasks:read, /],
        [{ scopes: ['tasks:read', 'tasks:read'] }, 'scopes: tasks:read is given twice.'],
        [{ preset: 'admin' }, /preset/],
        [{ listIds: [] }, /^listIds must name at least one list/],
        [{ listIds: [mine.id, mine.id] }, `listIds: ${mine.id} is given twice.`],
        [
          { listIds: [mine.id, theirs.id] },
          `listIds: ${theirs.id} is not a list you are a member of, or it is archived.`,
        ],
        [{ listIds: [archived.id] }, `listIds: ${archived.id} is not a list you are a member of, or it is archived.`],
        [{ listIds: [elsewhere.id] }, `listIds: ${elsewhere.id} is not a list you are a member of, or it is archived.`],
      ];
      const before = expectStatus(await browser.get('/v1/api-keys'), 200).length;
      for (const [body, message] of refusals) {
        expectError(await browser.post('/v1/api-keys', { name: 'nope', ...body }, browser.csrf()), 400, message);
      }
      assert.equal(expectStatus(await browser.get('/v1/api-keys'), 200).length, before, 'a refused key was made');
    });

    test('a scoped key cannot make keys, webhooks or invitations (routes needing a key without scopes)', async () => {
      const team = await createTestTeam(server);
      const agent = await keyOf(team, { scopes: KEY_SCOPES });
      expectError(await agent.post('/v1/api-keys', { name: 'escalate' }), 403, FULL_ROUTE_MESSAGE);
      expectError(await agent.post('/v1/webhooks', { url: 'http://127.0.0.1:9/x' }), 403, FULL_ROUTE_MESSAGE);
      expectError(await agent.post('/v1/invitations', { role: 'admin' }), 403, FULL_ROUTE_MESSAGE);
      expectError(await agent.post('/v1/exports', {}), 403, FULL_ROUTE_MESSAGE);
      const list = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Only' }), 201);
      const listed = await keyOf(team, { listIds: [list.id] });
      // A key limited to lists alone holds every scope, but not the routes needing a key without limits.
      expectStatus(await listed.get('/v1/me'), 200);
      expectError(await listed.get('/v1/webhooks'), 403, LIST_LIMITED_FULL_ROUTE_MESSAGE);
    });
  });

  describe('a key limited to lists', () => {
    /** The owner's lists A and B (a task on each, one on both, one on neither, one of B assigned to them) and a key limited to A. */
    async function limitedWorld() {
      const team = await createTestTeam(server);
      const api = team.owner.api;
      const a = expectStatus(await api.post('/v1/lists', { name: 'List A' }), 201);
      const b = expectStatus(await api.post('/v1/lists', { name: 'List B' }), 201);
      const task = (title: string, taskListIds: number[], extra: Record<string, unknown> = {}) =>
        api
          .post('/v1/tasks', { title, description: 'needle in it', taskListIds, ...extra })
          .then((r) => expectStatus(r, 201));
      const onA = await task('needle on A', [a.id]);
      const onBoth = await task('needle on both', [a.id, b.id]);
      const onB = await task('needle on B', [b.id], { assigneeIds: [team.owner.userId] });
      const onNone = await task('needle on none', []);
      for (const t of [onA, onB])
        expectStatus(await api.post(`/v1/tasks/${t.id}/comments`, { body: 'needle said' }), 201);
      const agent = await keyOf(team, { scopes: AGENT_SCOPES, listIds: [a.id] });
      return { team, a, b, onA, onBoth, onB, onNone, agent, inside: [onBoth.id, onA.id], outside: [onB.id, onNone.id] };
    }

    test('its lists, pages, filters, search and CSV show only tasks on its lists, and only its lists on them', async () => {
      const w = await limitedWorld();
      const ids = (tasks: { id: number }[]) => tasks.map((t) => t.id);
      assert.deepEqual(ids(expectStatus(await w.agent.get('/v1/tasks'), 200)), w.inside);
      for (const query of [
        `taskListId=${w.b.id}`,
        `assigneeId=${w.team.owner.userId}`,
        'query=needle',
        'sort=number',
        `taskListId=${w.a.id}&taskListId=${w.b.id}`,
        `taskListId=${w.a.id}`,
      ]) {
        const page = expectStatus(await w.agent.get(`/v1/tasks?${query}`), 200);
        for (const id of ids(page))
          assert.ok(w.inside.includes(id), `${query} showed task ${id}, outside the key's lists`);
      }
      const onBoth = expectStatus(await w.agent.get('/v1/tasks'), 200).find((t: any) => t.id === w.onBoth.id);
      assert.deepEqual(onBoth.taskLists, [{ id: w.a.id, name: 'List A' }], 'a list outside the key was named');

      const hits = expectStatus(await w.agent.get('/v1/search?q=needle'), 200).items;
      assert.ok(hits.length > 0);
      for (const hit of hits) assert.ok(w.inside.includes(hit.task.id), `search found task ${hit.task.id}`);

      const csv = await w.agent.get('/v1/tasks.csv');
      expectStatus(csv, 200);
      assert.ok(csv.text.includes('needle on A') && !csv.text.includes('needle on B') && !csv.text.includes('on none'));

      assert.deepEqual(
        expectStatus(await w.agent.get('/v1/lists'), 200).map((l: any) => l.id),
        [w.a.id],
      );
      expectError(await w.agent.get(`/v1/lists/${w.b.id}`), 403, outsideListLimitMessage(w.b.id));
      expectError(await w.agent.get(`/v1/lists/${w.b.id}/members`), 403, outsideListLimitMessage(w.b.id));
      // The owner's own key, without limits, still sees everything.
      assert.equal(expectStatus(await w.team.owner.api.get('/v1/tasks'), 200).length, 4);
    });

    test('a task outside its lists is refused as one without access: detail, comments, activity, attachments, follow', async () => {
      const w = await limitedWorld();
      const detail = expectStatus(await w.agent.get(`/v1/tasks/${w.onBoth.id}`), 200);
      assert.deepEqual(detail.taskLists, [{ id: w.a.id, name: 'List A' }]);
      expectStatus(await w.agent.get(`/v1/tasks/${w.onA.id}/comments`), 200);
      for (const id of w.outside) {
        for (const path of [
          `/v1/tasks/${id}`,
          `/v1/tasks/${id}/comments`,
          `/v1/tasks/${id}/activity`,
          `/v1/tasks/${id}/attachments`,
        ]) {
          expectError(await w.agent.get(path), 403, 'You do not have access to this task.');
        }
        expectError(
          await w.agent.post(`/v1/tasks/${id}/comments`, { body: 'no' }),
          403,
          'You do not have access to this task.',
        );
        expectError(
          await w.agent.patch(`/v1/tasks/${id}`, { title: 'no' }),
          403,
          'You do not have access to this task.',
        );
      }
      // A subtask on A whose parent is outside shows no parent.
      const child = expectStatus(
        await w.team.owner.api.post('/v1/tasks', { title: 'child', taskListIds: [w.a.id], parentId: w.onB.id }),
        201,
      );
      assert.equal(expectStatus(await w.agent.get(`/v1/tasks/${child.id}`), 200).parent, null);
      const refused = await w.agent.post('/v1/tasks', { title: 'x', taskListIds: [w.a.id], parentId: w.onB.id });
      expectError(refused, 400, 'Invalid input.');
      assert.match(refused.headers.get('error-detail') ?? '', /parentId \d+ is not a task you can access/);
    });

    test('a task it writes stays on its lists; it cannot create a list; the event stream refuses it', async () => {
      const w = await limitedWorld();
      const outside = outsideListLimitMessage(w.b.id);
      expectError(await w.agent.post('/v1/tasks', { title: 'x', taskListIds: [w.b.id] }), 403, outside);
      expectError(await w.agent.post('/v1/tasks', { title: 'x', taskListIds: [w.a.id, w.b.id] }), 403, outside);
      const atLeastOne = 'This API key is limited to lists; taskListIds must name at least one of them.';
      expectError(await w.agent.post('/v1/tasks', { title: 'x' }), 403, atLeastOne);
      expectError(await w.agent.post('/v1/tasks', { title: 'x', taskListIds: [] }), 403, atLeastOne);
      expectError(await w.agent.patch(`/v1/tasks/${w.onA.id}`, { taskListIds: [w.b.id] }), 403, outside);
      expectError(await w.agent.patch(`/v1/tasks/${w.onA.id}`, { taskListIds: [] }), 403, atLeastOne);
      const made = expectStatus(
        await w.agent.post('/v1/tasks', { title: 'made by agent', taskListIds: [w.a.id] }),
        201,
      );
      assert.deepEqual(
        made.taskLists.map((l: any) => l.id),
        [w.a.id],
      );
      // Re-listing the task on A keeps it on B, which the key never saw.
      expectStatus(await w.agent.patch(`/v1/tasks/${w.onBoth.id}`, { taskListIds: [w.a.id] }), 200);
      const seenByOwner = expectStatus(await w.team.owner.api.get(`/v1/tasks/${w.onBoth.id}`), 200);
      assert.deepEqual(seenByOwner.taskLists.map((l: any) => l.id).sort(), [w.a.id, w.b.id].sort());

      const listsKey = await keyOf(w.team, { scopes: ['lists:write', 'lists:read'], listIds: [w.a.id] });
      expectError(
        await listsKey.post('/v1/lists', { name: 'New' }),
        403,
        'This API key is limited to lists; it cannot create a list.',
      );
      expectStatus(await listsKey.patch(`/v1/lists/${w.a.id}`, { name: 'List A2' }), 200);
      expectError(await listsKey.patch(`/v1/lists/${w.b.id}`, { name: 'No' }), 403, outside);

      expectError(await w.agent.get('/v1/events'), 403, LIST_LIMITED_EVENTS_MESSAGE);
    });
  });

  test('missingScope: no limits → allowed; a scope held → allowed; else the message; full → a key without limits', () => {
    assert.equal(missingScope(callerWith(), 'full'), undefined);
    assert.equal(missingScope(callerWith(), 'tasks:write'), undefined);
    const reader = callerWith({ scopes: READ_ONLY_SCOPES, listIds: null, name: 'r' });
    assert.equal(missingScope(reader, 'tasks:read'), undefined);
    assert.equal(missingScope(reader, 'tasks:write'), 'This API key lacks the scope tasks:write.');
    assert.equal(missingScope(reader, 'full'), FULL_ROUTE_MESSAGE);
    const listed = callerWith({ scopes: null, listIds: [1], name: 'l' });
    assert.equal(missingScope(listed, 'comments:write'), undefined);
    assert.equal(missingScope(listed, 'full'), LIST_LIMITED_FULL_ROUTE_MESSAGE);
  });
});
