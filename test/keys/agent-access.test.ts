/**
 * Agents' access (issue 33; docs/api.md, "Scoped API keys"), over HTTP on the store under test:
 * the team's owners and admins list every key with scopes or lists, whoever owns it, and revoke
 * one, which then gets 401 at once; keys without limits, other teams' keys and plain members are
 * refused. (Every route × role: test/authz-matrix.test.ts; × scope: test/scope-matrix.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AGENT_SCOPES, READ_ONLY_SCOPES } from '../../src/contract/keys.js';
import { UNKNOWN_KEY_MESSAGE } from '../../src/keys/key-auth.js';
import { insertKey, type NewKey } from '../../src/keys/keys.repository.js';
import { signedInOwner } from '../browser.js';
import { createTestTeam, type Actor, type Team } from '../factories.js';
import { expectError, expectStatus, startTestServer, TEST_STORE, type TestServer } from '../harness.js';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

const MANAGERS_ONLY = "Only the team's owners and admins can manage agents' access.";

/** A key of `actor` with these limits: its id and its secret. */
async function keyOf(actor: Actor, name: string, limits: Pick<NewKey, 'scopes' | 'listIds'>) {
  const { record, key } = await insertKey(server.store.db, {
    teamId: actor.teamId,
    userId: actor.userId,
    name,
    ...limits,
  });
  return { id: record.id, key, api: server.client(key) };
}

async function teamWithAgents(): Promise<{ team: Team; member: Actor; admin: Actor; listId: number }> {
  const team = await createTestTeam(server);
  const member = await team.member({ name: 'Mia Member' });
  const admin = await team.member({ role: 'admin', name: 'Ada Admin' });
  const list = expectStatus(await member.api.post('/v1/lists', { name: 'Agents' }), 201);
  return { team, member, admin, listId: list.id };
}

describe(`agents' access (${TEST_STORE})`, () => {
  describe('happy', () => {
    test("an owner sees the team's keys with scopes or lists, whoever owns them, newest first", async () => {
      const { team, member, listId } = await teamWithAgents();
      const reader = await keyOf(team.owner, 'reader', { scopes: READ_ONLY_SCOPES });
      const agent = await keyOf(member, 'MCP: Claude', { scopes: AGENT_SCOPES, listIds: [listId] });
      const listsOnly = await keyOf(member, 'lists only', { listIds: [listId] });
      await keyOf(member, 'full power', {});

      const listed = expectStatus(await team.owner.api.get('/v1/agent-access'), 200);
      assert.deepEqual(new Set(listed.map((k: any) => k.id)), new Set([reader.id, agent.id, listsOnly.id]));
      const shown = listed.find((k: any) => k.id === agent.id);
      assert.deepEqual(Object.keys(shown).sort(), [
        'createdAt',
        'expiresAt',
        'id',
        'lastUsedAt',
        'listIds',
        'name',
        'owner',
        'prefix',
        'scopes',
      ]);
      assert.deepEqual(shown.owner, { id: member.userId, name: 'Mia Member', email: member.email });
      assert.deepEqual([shown.name, shown.scopes, shown.listIds], ['MCP: Claude', [...AGENT_SCOPES], [listId]]);
      assert.equal(shown.expiresAt, null);
      // Newest first: createdAt never increases down the list.
      const times = listed.map((k: any) => k.createdAt);
      assert.deepEqual(times, [...times].sort().reverse());
    });

    test('an admin revokes a member’s agent key: it gets 401 at once, and leaves the list', async () => {
      const { member, admin, listId } = await teamWithAgents();
      const agent = await keyOf(member, 'agent', { scopes: AGENT_SCOPES, listIds: [listId] });
      expectStatus(await agent.api.get('/v1/tasks'), 200);

      const revoked = expectStatus(await admin.api.delete(`/v1/agent-access/${agent.id}`), 200);
      assert.deepEqual(revoked, { id: agent.id, revoked: true });
      expectError(await agent.api.get('/v1/tasks'), 401, UNKNOWN_KEY_MESSAGE);
      const listed = expectStatus(await admin.api.get('/v1/agent-access'), 200);
      assert.ok(!listed.some((k: any) => k.id === agent.id), JSON.stringify(listed));
      // Revoked for its owner too: it is gone from their own keys.
      expectError(await admin.api.delete(`/v1/agent-access/${agent.id}`), 404, `API key ${agent.id} not found.`);
    });

    test('a signed-in owner uses it as the web app does, and an upper-case id is the same key', async () => {
      const { team, browser } = await signedInOwner(server);
      const member = await team.member();
      const agent = await keyOf(member, 'agent', { scopes: READ_ONLY_SCOPES });
      const listed = expectStatus(await browser.get('/v1/agent-access'), 200);
      assert.deepEqual(
        listed.map((k: any) => k.id),
        [agent.id],
      );
      const upper = agent.id.toUpperCase();
      expectStatus(await browser.delete(`/v1/agent-access/${upper}`, browser.csrf()), 200);
      expectError(await agent.api.get('/v1/me'), 401, UNKNOWN_KEY_MESSAGE);
    });

    test('a team without agent keys lists none', async () => {
      const team = await createTestTeam(server);
      assert.deepEqual(expectStatus(await team.owner.api.get('/v1/agent-access'), 200), []);
    });
  });

  describe('errors', () => {
    test('a key without limits, an unknown id or a malformed one is 404, and stays usable', async () => {
      const { team, member } = await teamWithAgents();
      const full = await keyOf(member, 'full power', {});
      for (const id of [full.id, member.keyId, '00000000-0000-4000-8000-000000000001', 'not-a-key']) {
        expectError(await team.owner.api.delete(`/v1/agent-access/${id}`), 404, `API key ${id} not found.`);
      }
      expectStatus(await full.api.get('/v1/me'), 200);
    });
  });

  describe('security', () => {
    test('a plain member is refused both, and the key stays usable', async () => {
      const { team, member, listId } = await teamWithAgents();
      const agent = await keyOf(team.owner, 'agent', { scopes: AGENT_SCOPES, listIds: [listId] });
      expectError(await member.api.get('/v1/agent-access'), 403, MANAGERS_ONLY);
      expectError(await member.api.delete(`/v1/agent-access/${agent.id}`), 403, MANAGERS_ONLY);
      // Even a made-up id: the role is checked first, so nothing is learnt of the team's keys.
      expectError(await member.api.delete('/v1/agent-access/00000000-0000-4000-8000-000000000001'), 403, MANAGERS_ONLY);
      expectStatus(await agent.api.get('/v1/tasks'), 200);
    });

    test("another team's agent keys are neither listed nor revocable (404, as missing)", async () => {
      const ours = await createTestTeam(server);
      const { member: theirMember, listId } = await teamWithAgents();
      const theirs = await keyOf(theirMember, 'agent', { scopes: AGENT_SCOPES, listIds: [listId] });
      assert.deepEqual(expectStatus(await ours.owner.api.get('/v1/agent-access'), 200), []);
      expectError(await ours.owner.api.delete(`/v1/agent-access/${theirs.id}`), 404, `API key ${theirs.id} not found.`);
      expectStatus(await theirs.api.get('/v1/tasks'), 200);
    });

    test('a scoped key, even an owner’s, cannot reach agents’ access', async () => {
      const team = await createTestTeam(server);
      const agent = await keyOf(team.owner, 'agent', { scopes: AGENT_SCOPES });
      expectError(
        await agent.api.get('/v1/agent-access'),
        403,
        'This API key is limited to scopes; this route needs a key without scopes.',
      );
      expectError(
        await agent.api.delete(`/v1/agent-access/${agent.id}`),
        403,
        'This API key is limited to scopes; this route needs a key without scopes.',
      );
    });

    test('without a key: 401', async () => {
      const anonymous = server.client();
      assert.equal((await anonymous.get('/v1/agent-access')).status, 401);
      assert.equal((await anonymous.delete('/v1/agent-access/00000000-0000-4000-8000-000000000001')).status, 401);
    });
  });
});
