/**
 * Who may export what, and who may read an export (issue 32): a member's export holds only the
 * tasks they can read; an export is its requester's alone, checked again on every request; no
 * export holds a secret.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { insertExport } from '../../src/exports/exports.repository.js';
import { insertSession } from '../../src/sessions/sessions.repository.js';
import { hashPassword } from '../../src/team/passwords.js';
import { setPasswordHash } from '../../src/team/users.repository.js';
import { createTestTeam, type Actor, type Team } from '../factories.js';
import { expectError, expectStatus, startTestServer, type TestServer } from '../harness.js';
import { upload } from '../attachments/support.js';
import { tokenOf } from '../team/support.js';
import { WORLD_WEBHOOK_URL } from '../world.js';
import { downloadExport, linesOf, parseExport, readyExport, shapeOf } from './support.js';

describe('export access', () => {
  let server: TestServer;
  let team: Team;
  let member: Actor;

  before(async () => {
    server = await startTestServer();
    team = await createTestTeam(server);
    member = await team.member({ name: 'Max Member' });
  });
  after(() => server.close());

  it("a member's export holds only the tasks they can read, and only those tasks' comments, activity and files", async () => {
    const { owner } = team;
    const shared = expectStatus(await owner.api.post('/v1/lists', { name: 'Shared list' }), 201);
    expectStatus(await owner.api.post(`/v1/lists/${shared.id}/members`, { userId: member.userId }), 201);
    const hidden = expectStatus(await owner.api.post('/v1/lists', { name: 'Hidden list' }), 201);
    const readable = expectStatus(
      await owner.api.post('/v1/tasks', { title: 'Readable', taskListIds: [shared.id] }),
      201,
    );
    const assigned = expectStatus(
      await owner.api.post('/v1/tasks', { title: 'Assigned', taskListIds: [hidden.id], assigneeIds: [member.userId] }),
      201,
    );
    const secret = expectStatus(
      await owner.api.post('/v1/tasks', {
        title: 'Secret plans',
        description: 'hidden words',
        taskListIds: [hidden.id],
      }),
      201,
    );
    expectStatus(await owner.api.post(`/v1/tasks/${secret.id}/comments`, { body: 'a hidden comment' }), 201);
    expectStatus(await upload(owner.api, secret.id, Buffer.from('hidden file'), 'hidden.txt'), 201);
    expectStatus(await owner.api.post(`/v1/tasks/${readable.id}/comments`, { body: 'a visible comment' }), 201);

    const shown = await readyExport(member.api);
    assert.equal(shown.scope, 'readable');
    const { bytes } = await downloadExport(member.api, shown.id);
    const lines = parseExport(bytes);
    assert.equal(lines[0].scope, 'readable');
    assert.deepEqual(
      linesOf(lines, 'task')
        .map((t) => t.id)
        .sort(),
      [readable.id, assigned.id].sort(),
    );
    const taskIds = new Set([readable.id, assigned.id]);
    for (const type of ['comment', 'activity', 'attachment']) {
      for (const line of linesOf(lines, type)) assert.ok(taskIds.has(line.taskId), `${type} of task ${line.taskId}`);
    }
    assert.deepEqual(
      linesOf(lines, 'list').map((l) => l.id),
      [shared.id],
      'only the lists they are a member of',
    );
    // The assigned task is on the hidden list: its name stays hidden, as GET /v1/tasks/{id} hides it.
    const text = gunzipSync(bytes).toString('utf8');
    for (const word of ['Secret plans', 'hidden words', 'a hidden comment', 'hidden.txt', 'Hidden list']) {
      assert.ok(!text.includes(word), `the member's export holds "${word}"`);
    }
    for (const task of linesOf(lines, 'task')) {
      assert.deepEqual(shapeOf(task), expectStatus(await member.api.get(`/v1/tasks/${task.id}`), 200));
    }
  });

  it('no export holds a password hash, an API key or its hash, a session token, a webhook secret or an invitation token', async () => {
    const { owner } = team;
    const db = server.store.db;
    await setPasswordHash(db, owner.userId, await hashPassword('a password never exported'));
    await setPasswordHash(db, member.userId, await hashPassword('another password never exported'));
    const session = await insertSession(db, owner.userId, team.id);
    const webhook = expectStatus(await owner.api.post('/v1/webhooks', { url: WORLD_WEBHOOK_URL }), 201);
    const invitation = expectStatus(await owner.api.post('/v1/invitations', { role: 'member' }), 201);

    const users = await db.selectFrom('users').select('password_hash').where('password_hash', 'is not', null).execute();
    const keys = await db.selectFrom('api_keys').select('secret_hash').where('team_id', '=', team.id).execute();
    const sessions = await db.selectFrom('sessions').select(['id', 'csrf_token']).execute();
    const webhooks = await db.selectFrom('webhooks').select('secret').execute();
    const invitations = await db.selectFrom('invitations').select('token_hash').execute();
    const secrets = [
      ...users.map((u) => u.password_hash!),
      owner.key,
      member.key,
      ...keys.map((k) => k.secret_hash),
      session.token,
      session.csrfToken,
      ...sessions.flatMap((s) => [s.id, s.csrf_token]),
      webhook.secret,
      webhook.secret.replace(/^whsec_/, ''),
      ...webhooks.map((w) => w.secret),
      tokenOf(invitation.link),
      ...invitations.map((i) => i.token_hash),
    ];
    assert.ok(users.length >= 2 && keys.length >= 2 && sessions.length >= 1 && invitations.length >= 1);

    for (const actor of [owner, member]) {
      const shown = await readyExport(actor.api);
      const text = gunzipSync((await downloadExport(actor.api, shown.id)).bytes).toString('utf8');
      for (const secret of secrets)
        assert.ok(!text.includes(secret), `an export holds a secret: ${secret.slice(0, 12)}…`);
      const fields = new Set([...text.matchAll(/"(\w+)":/g)].map((m) => m[1]!));
      assert.deepEqual(
        [...fields].filter((f) => /password|secret|token|hash/i.test(f)),
        [],
        'no field names a secret',
      );
    }
  });

  it("another member's export is as missing as one that never was (404), and so is another team's", async () => {
    const shown = await readyExport(team.owner.api);
    const other = await team.member({ name: 'Otto Other', role: 'admin' });
    expectError(await other.api.get(`/v1/exports/${shown.id}`), 404, `Export ${shown.id} not found.`);
    expectError(await other.api.get(`/v1/exports/${shown.id}/file`), 404, `Export ${shown.id} not found.`);
    const stranger = (await createTestTeam(server)).owner;
    expectError(await stranger.api.get(`/v1/exports/${shown.id}`), 404, `Export ${shown.id} not found.`);
    expectError(await stranger.api.get(`/v1/exports/${shown.id}/file`), 404, `Export ${shown.id} not found.`);
    expectError(await team.owner.api.get('/v1/exports/2147480001'), 404, 'Export 2147480001 not found.');
  });

  it('the file before the export is ready is a 409, and so is a second export while one is being written', async () => {
    const waiting = await team.member({ name: 'Wendy Waiting' });
    const pending = await insertExport(server.store.db, {
      teamId: team.id,
      requestedBy: waiting.userId,
      scope: 'readable',
      now: new Date().toISOString(),
    });
    assert.equal(expectStatus(await waiting.api.get(`/v1/exports/${pending.id}`), 200).status, 'pending');
    expectError(await waiting.api.get(`/v1/exports/${pending.id}/file`), 409, `Export ${pending.id} is not ready yet.`);
    expectError(
      await waiting.api.post('/v1/exports'),
      409,
      new RegExp(`^Your export ${pending.id} is still being written`),
    );
  });

  it('of several exports started at once by one person, one is accepted and the others are refused (409)', async () => {
    const eager = await team.member({ name: 'Eve Eager' });
    const answers = await Promise.all(Array.from({ length: 4 }, () => eager.api.post('/v1/exports')));
    const accepted = answers.filter((answer) => answer.status === 202);
    assert.equal(accepted.length, 1, answers.map((answer) => `${answer.status} ${answer.text}`).join(' / '));
    for (const refused of answers.filter((answer) => answer.status !== 202)) {
      expectError(refused, 409, /^Your export \d+ is still being written/);
    }
    assert.equal(expectStatus(await eager.api.get('/v1/exports'), 200).length, 1);
  });

  it('an export left unfinished by a process that died reads as failed, and another may be started', async () => {
    const orphaned = await team.member({ name: 'Oscar Orphaned' });
    const longAgo = new Date(Date.now() - 5 * 60 * 1000).toISOString();
    const stale = await insertExport(server.store.db, {
      teamId: team.id,
      requestedBy: orphaned.userId,
      scope: 'readable',
      now: longAgo,
    });
    const shown = expectStatus(await orphaned.api.get(`/v1/exports/${stale.id}`), 200);
    assert.equal(shown.status, 'failed');
    assert.equal(shown.error, 'The export was interrupted; start another.');
    expectError(
      await orphaned.api.get(`/v1/exports/${stale.id}/file`),
      409,
      `Export ${stale.id} failed; start another.`,
    );
    await readyExport(orphaned.api);
  });

  it('an admin demoted to member may no longer read their whole-team export (403)', async () => {
    const admin = await team.member({ name: 'Ada Admin', role: 'admin' });
    const shown = await readyExport(admin.api);
    assert.equal(shown.scope, 'team');
    expectStatus(await team.owner.api.patch(`/v1/members/${admin.userId}`, { role: 'member' }), 200);
    const message = "This export holds the whole team; only the team's owners and admins may read it.";
    expectError(await admin.api.get(`/v1/exports/${shown.id}`), 403, message);
    expectError(await admin.api.get(`/v1/exports/${shown.id}/file`), 403, message);
    assert.deepEqual(expectStatus(await admin.api.get('/v1/exports'), 200), []);
    // Their own export now is of what they can read.
    assert.equal(expectStatus(await admin.api.post('/v1/exports'), 202).scope, 'readable');
  });

  it('a member removed from the team may no longer read their export', async () => {
    const leaving = await team.member({ name: 'Lee Leaving' });
    const shown = await readyExport(leaving.api);
    expectStatus(await team.owner.api.delete(`/v1/members/${leaving.userId}`), 200);
    for (const path of [`/v1/exports/${shown.id}`, `/v1/exports/${shown.id}/file`]) {
      const response = await leaving.api.get(path);
      assert.ok(
        response.status === 401 || response.status === 403 || response.status === 404,
        `${path}: ${response.status}`,
      );
      expectError(response, response.status);
    }
  });
});
