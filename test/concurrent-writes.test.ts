/**
 * Writes that arrive at the same moment on the store under test. Each request that reads, checks
 * and then writes must behave as if the requests had come one after the other: a conditional
 * write (If-Match) lets exactly one of two racing writers through, and the audit's other
 * read-check-write paths (list membership, archiving, parents, assignees, statuses) keep their
 * rules. Requests are fired together over connections opened beforehand, so both reach the
 * server at once; each race runs for several rounds.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { insertStatus, listStatuses } from '../src/statuses/statuses.repository.js';
import { deleteMember } from '../src/team/teams.repository.js';
import { insertSession } from '../src/sessions/sessions.repository.js';
import { verifyPassword } from '../src/team/passwords.js';
import { findUser } from '../src/team/users.repository.js';
import { setPassword } from './browser.js';
import { createTestTeam, type Actor } from './factories.js';
import { expectStatus, startTestServer, TEST_STORE, type TestServer } from './harness.js';
import { show, statuses, together, type Sent } from './together.js';

const ROUNDS = 20;

describe(`${TEST_STORE}: writes racing each other`, () => {
  let server: TestServer;
  before(async () => {
    // A pool large enough that both racing requests run at once on PostgreSQL.
    server = await startTestServer({ DATABASE_POOL_SIZE: '8' });
  });
  after(() => server.close());

  /** Event rows of one type recorded for a team: what streams and replays would deliver. */
  async function eventCount(teamId: string, type: string): Promise<number> {
    const row = await server.store.db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('team_id', '=', teamId)
      .where('type', '=', type)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  test('two PATCHes of one task with the same If-Match: exactly one 200, the other 412, and the task keeps the winner’s change', async () => {
    const { owner } = await createTestTeam(server);
    for (let round = 0; round < ROUNDS; round++) {
      const created = await owner.api.post('/v1/tasks', { title: `task ${round}` });
      const task = expectStatus(created, 201);
      const etag = created.headers.get('etag')!;
      const sent: Sent[] = ['first', 'second'].map((who) => ({
        method: 'PATCH',
        path: `/v1/tasks/${task.id}`,
        key: owner.key,
        body: { title: `${who} writer`, description: who },
        headers: { 'if-match': etag },
      }));
      const answers = await together(server.url, sent);
      const context = `round ${round}: ${answers.map((a, i) => show(sent[i]!, a)).join(' | ')}`;
      assert.deepEqual(statuses(answers), [200, 412], context);
      const winner = answers.find((a) => a.status === 200)!;
      const stored = await owner.api.get(`/v1/tasks/${task.id}`);
      assert.equal(expectStatus(stored, 200).title, winner.body.title, context);
      assert.equal(stored.body.description, winner.body.title.split(' ')[0], context);
      assert.equal(stored.headers.get('etag'), winner.etag, `the winner's ETag is current; ${context}`);
    }
  });

  test('two PATCHes of one list with the same If-Match: exactly one 200, the other 412, and the list keeps the winner’s change', async () => {
    const { owner } = await createTestTeam(server);
    for (let round = 0; round < ROUNDS; round++) {
      const created = await owner.api.post('/v1/lists', { name: `list ${round}` });
      const list = expectStatus(created, 201);
      const etag = created.headers.get('etag')!;
      const sent: Sent[] = [
        ['first', 'Red'],
        ['second', 'Blue'],
      ].map(([name, color]) => ({
        method: 'PATCH',
        path: `/v1/lists/${list.id}`,
        key: owner.key,
        body: { name, color },
        headers: { 'if-match': etag },
      }));
      const answers = await together(server.url, sent);
      const context = `round ${round}: ${answers.map((a, i) => show(sent[i]!, a)).join(' | ')}`;
      assert.deepEqual(statuses(answers), [200, 412], context);
      const winner = answers.find((a) => a.status === 200)!;
      const stored = await owner.api.get(`/v1/lists/${list.id}`);
      assert.deepEqual(
        [expectStatus(stored, 200).name, stored.body.color],
        [winner.body.name, winner.body.color],
        context,
      );
      assert.equal(stored.headers.get('etag'), winner.etag, `the winner's ETag is current; ${context}`);
    }
  });

  test('a DELETE and a PATCH of one task with the same If-Match: exactly one succeeds, the other answers as it would second (412 after a PATCH, 404 after the DELETE)', async () => {
    const { owner } = await createTestTeam(server);
    for (let round = 0; round < ROUNDS; round++) {
      const created = await owner.api.post('/v1/tasks', { title: `task ${round}` });
      const task = expectStatus(created, 201);
      const etag = created.headers.get('etag')!;
      const sent: Sent[] = [
        { method: 'DELETE', path: `/v1/tasks/${task.id}`, key: owner.key, headers: { 'if-match': etag } },
        {
          method: 'PATCH',
          path: `/v1/tasks/${task.id}`,
          key: owner.key,
          body: { title: 'patched' },
          headers: { 'if-match': etag },
        },
      ];
      const [deleted, patched] = await together(server.url, sent);
      const context = `round ${round}: ${show(sent[0]!, deleted!)} | ${show(sent[1]!, patched!)}`;
      const stored = await owner.api.get(`/v1/tasks/${task.id}`);
      if (deleted!.status === 200) {
        assert.equal(patched!.status, 404, context);
        assert.equal(stored.status, 404, `the task is gone; ${context}`);
      } else {
        assert.deepEqual([deleted!.status, patched!.status], [412, 200], context);
        assert.equal(expectStatus(stored, 200).title, 'patched', context);
      }
    }
  });

  test('two PATCHes replacing one task’s assignees and lists leave exactly one writer’s sets, never a mix', async () => {
    const team = await createTestTeam(server);
    const { owner } = team;
    const [ann, ben] = [await team.member({ name: 'Ann' }), await team.member({ name: 'Ben' })];
    const [red, blue] = [
      expectStatus(await owner.api.post('/v1/lists', { name: 'Red' }), 201),
      expectStatus(await owner.api.post('/v1/lists', { name: 'Blue' }), 201),
    ];
    const choices = [
      { assigneeIds: [ann.userId], taskListIds: [red.id] },
      { assigneeIds: [ben.userId], taskListIds: [blue.id] },
    ];
    for (let round = 0; round < ROUNDS; round++) {
      const task = expectStatus(await owner.api.post('/v1/tasks', { title: `task ${round}` }), 201);
      const sent: Sent[] = choices.map((body) => ({
        method: 'PATCH',
        path: `/v1/tasks/${task.id}`,
        key: owner.key,
        body,
      }));
      const answers = await together(server.url, sent);
      const context = `round ${round}: ${answers.map((a, i) => show(sent[i]!, a)).join(' | ')}`;
      assert.deepEqual(statuses(answers), [200, 200], context);
      const stored = expectStatus(await owner.api.get(`/v1/tasks/${task.id}`), 200);
      const outcome = {
        assigneeIds: stored.assignees.map((a: { id: string }) => a.id),
        taskListIds: stored.taskLists.map((l: { id: number }) => l.id),
      };
      assert.ok(
        choices.some((choice) => JSON.stringify(choice) === JSON.stringify(outcome)),
        `got ${JSON.stringify(outcome)}; ${context}`,
      );
    }
  });

  test('the last two members of a list leaving at once: one leaves, the other is refused, and the list keeps a member', async () => {
    const team = await createTestTeam(server);
    for (let round = 0; round < ROUNDS; round++) {
      const [ann, ben] = [await team.member({ name: 'Ann' }), await team.member({ name: 'Ben' })];
      const list = expectStatus(await ann.api.post('/v1/lists', { name: `shared ${round}` }), 201);
      expectStatus(await ann.api.post(`/v1/lists/${list.id}/members`, { userId: ben.userId }), 201);
      const leave = (who: Actor): Sent => ({
        method: 'DELETE',
        path: `/v1/lists/${list.id}/members/${who.userId}`,
        key: who.key,
      });
      const sent = [leave(ann), leave(ben)];
      const answers = await together(server.url, sent);
      const context = `round ${round}: ${answers.map((a, i) => show(sent[i]!, a)).join(' | ')}`;
      assert.deepEqual(statuses(answers), [200, 400], context);
      const refused = answers.find((a) => a.status === 400)!;
      assert.deepEqual(refused.body, { error: 'A list must keep at least one member.' }, context);
      const stayer = answers[0]!.status === 400 ? ann : ben;
      const members = expectStatus(await stayer.api.get(`/v1/lists/${list.id}/members`), 200);
      assert.deepEqual(
        members.map((m: { id: string }) => m.id),
        [stayer.userId],
        context,
      );
    }
  });

  test('two archives (and then two unarchives) of one list at once: both answer the new state, and it is announced once', async () => {
    const { owner, id: teamId } = await createTestTeam(server);
    for (let round = 0; round < ROUNDS; round++) {
      const list = expectStatus(await owner.api.post('/v1/lists', { name: `list ${round}` }), 201);
      for (const [action, type, isArchived] of [
        ['archive', 'taskList.archived', true],
        ['unarchive', 'taskList.unarchived', false],
      ] as const) {
        const before = await eventCount(teamId, type);
        const sent: Sent[] = [1, 2].map(() => ({
          method: 'POST',
          path: `/v1/lists/${list.id}/${action}`,
          key: owner.key,
        }));
        const answers = await together(server.url, sent);
        const context = `round ${round}: ${answers.map((a, i) => show(sent[i]!, a)).join(' | ')}`;
        assert.deepEqual(statuses(answers), [200, 200], context);
        for (const answer of answers) assert.equal(answer.body.isArchived, isArchived, context);
        assert.equal(await eventCount(teamId, type), before + 1, `one ${type} event; ${context}`);
      }
    }
  });

  test('two requests adding the same member to a list at once: one 201, one 200, and one announcement', async () => {
    const team = await createTestTeam(server);
    const { owner, id: teamId } = team;
    for (let round = 0; round < ROUNDS; round++) {
      const newcomer = await team.member({ name: `Newcomer ${round}` });
      const list = expectStatus(await owner.api.post('/v1/lists', { name: `list ${round}` }), 201);
      const before = await eventCount(teamId, 'taskList.updated');
      const sent: Sent[] = [1, 2].map(() => ({
        method: 'POST',
        path: `/v1/lists/${list.id}/members`,
        key: owner.key,
        body: { userId: newcomer.userId },
      }));
      const answers = await together(server.url, sent);
      const context = `round ${round}: ${answers.map((a, i) => show(sent[i]!, a)).join(' | ')}`;
      assert.deepEqual(statuses(answers), [200, 201], context);
      for (const answer of answers) assert.equal(answer.body.id, newcomer.userId, context);
      assert.equal(await eventCount(teamId, 'taskList.updated'), before + 1, context);
    }
  });

  test('a subtask created while its parent is deleted: no 5xx, and a subtask that was created is left top-level with a new version', async () => {
    const { owner } = await createTestTeam(server);
    for (let round = 0; round < ROUNDS; round++) {
      const parent = expectStatus(await owner.api.post('/v1/tasks', { title: `parent ${round}` }), 201);
      const sent: Sent[] = [
        { method: 'POST', path: '/v1/tasks', key: owner.key, body: { title: 'child', parentId: parent.id } },
        { method: 'DELETE', path: `/v1/tasks/${parent.id}`, key: owner.key },
      ];
      const [created, deleted] = await together(server.url, sent);
      const context = `round ${round}: ${show(sent[0]!, created!)} | ${show(sent[1]!, deleted!)}`;
      assert.equal(deleted!.status, 200, context);
      if (created!.status === 400) {
        // The delete came first, so the parent no longer exists (the spec fixes this route's 400 message).
        assert.deepEqual(created!.body, { error: 'Invalid input.' }, context);
        continue;
      }
      assert.equal(created!.status, 201, context);
      const child = await owner.api.get(`/v1/tasks/${created!.body.id}`);
      assert.equal(expectStatus(child, 200).parentId, null, context);
      // Losing its parent is a change: a client holding the create's ETag must refetch first.
      assert.notEqual(child.headers.get('etag'), created!.etag, context);
    }
  });

  test('someone assigned to a task and added to a list while being removed from the team keeps neither', async () => {
    const team = await createTestTeam(server);
    const { owner } = team;
    const list = expectStatus(await owner.api.post('/v1/lists', { name: 'Team list' }), 201);
    for (let round = 0; round < ROUNDS; round++) {
      const leaver = await team.member({ name: `Leaver ${round}` });
      const task = expectStatus(await owner.api.post('/v1/tasks', { title: `task ${round}` }), 201);
      const sent: Sent[] = [
        { method: 'PATCH', path: `/v1/tasks/${task.id}`, key: owner.key, body: { assigneeIds: [leaver.userId] } },
        { method: 'POST', path: `/v1/lists/${list.id}/members`, key: owner.key, body: { userId: leaver.userId } },
      ];
      const answers = await together(server.url, sent, () => deleteMember(server.store.db, team.id, leaver.userId));
      const context = `round ${round}: ${answers.map((a, i) => show(sent[i]!, a)).join(' | ')}`;
      // Each either came first (and the removal took it back) or was refused after the removal.
      assert.ok([200, 400].includes(answers[0]!.status), context);
      assert.ok([201, 400].includes(answers[1]!.status), context);
      const db = server.store.db;
      const [assigned, listed] = await Promise.all([
        db.selectFrom('task_assignees').select('task_id').where('user_id', '=', leaver.userId).execute(),
        db.selectFrom('list_members').select('list_id').where('user_id', '=', leaver.userId).execute(),
      ]);
      assert.deepEqual([assigned, listed], [[], []], `left behind after leaving the team; ${context}`);
    }
  });

  test('statuses created as the default at the same moment leave the team exactly one default', async () => {
    const { id: teamId } = await createTestTeam(server);
    for (let round = 0; round < ROUNDS; round++) {
      await Promise.all(
        ['A', 'B'].map((name) =>
          server.store.transaction((trx) =>
            insertStatus(trx, teamId, { name: `${name}${round}`, color: null, isDefault: true, isCompleted: false }),
          ),
        ),
      );
      const defaults = (await listStatuses(server.store.db, teamId)).filter((s) => s.isDefault);
      assert.equal(defaults.length, 1, `round ${round}: ${JSON.stringify(defaults)}`);
      const orders = (await listStatuses(server.store.db, teamId)).map((s) => s.order);
      assert.equal(new Set(orders).size, orders.length, `each status after the last; round ${round}: ${orders}`);
    }
  });

  test('two password changes sent at once from two sessions: one 200, the other refused (409, or 401 once the winner ended its session), and the winner’s password is the one kept', async () => {
    const team = await createTestTeam(server);
    await setPassword(server, team.owner, 'the first password');
    let current = 'the first password';
    for (let round = 0; round < 3; round++) {
      const sessions = await Promise.all([0, 1].map(() => insertSession(server.store.db, team.owner.userId, team.id)));
      const sent: Sent[] = sessions.map((session, i) => ({
        method: 'POST',
        path: '/auth/password',
        body: { currentPassword: current, newPassword: `round ${round} writer ${i}` },
        headers: { cookie: `tasklane_session=${session.token}`, 'x-csrf-token': session.csrfToken },
      }));
      const answers = await together(server.url, sent);
      const context = `round ${round}: ${answers.map((a, i) => show(sent[i]!, a)).join(' | ')}`;
      // The winner ends the loser's session: a loser whose change starts after that commit is
      // refused as its session now is (401); one that read the old password before it, with 409.
      const [first, second] = statuses(answers);
      assert.ok(first === 200 && (second === 409 || second === 401), context);
      const winner = answers.findIndex((answer) => answer.status === 200);
      current = `round ${round} writer ${winner}`;
      const stored = (await findUser(server.store.db, team.owner.userId))!.passwordHash!;
      assert.equal((await verifyPassword(current, stored)).ok, true, `the winner's password was not kept; ${context}`);
    }
  });
});
