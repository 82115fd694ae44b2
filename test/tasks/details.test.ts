/**
 * `findDetails` (a page of task details at once, for exports) reads exactly what `findDetail`
 * reads for each task: the same row, the same parts in the same order, under the same access
 * rules and list limits. Exports show tasks through it; GET /v1/tasks/{id} through findDetail.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Caller } from '../../src/caller.js';
import { findDetail, findDetails } from '../../src/tasks/tasks.repository.js';
import { upload } from '../attachments/support.js';
import { createTestTeam, type Actor, type Team } from '../factories.js';
import { expectStatus, startTestServer, type TestServer } from '../harness.js';

const callerOf = (team: Team, actor: Actor, listIds?: number[]): Caller => ({
  userId: actor.userId,
  teamId: team.id,
  role: 'member',
  credential: { kind: 'key', id: 'details-test' },
  ...(listIds && { limits: { scopes: null, listIds, name: 'limited' } }),
});

describe('task details read a page at a time', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  test('findDetails gives each task exactly what findDetail gives it, for a member, a list-limited key and an outsider', async () => {
    const team = await createTestTeam(server);
    const { owner } = team;
    // Two people of the same name: the assignees' order falls to their ids.
    const [ann, bea, ann2] = [
      await team.member({ name: 'Ann' }),
      await team.member({ name: 'Bea' }),
      await team.member({ name: 'Ann' }),
    ];
    const post = async (path: string, body: object) => expectStatus(await owner.api.post(path, body), 201);
    const shared = await post('/v1/lists', { name: 'Shared' });
    const hidden = await post('/v1/lists', { name: 'Owner only' });
    const other = await post('/v1/lists', { name: 'Other' });
    for (const member of [ann, bea, ann2]) {
      for (const list of [shared, other]) await post(`/v1/lists/${list.id}/members`, { userId: member.userId });
    }
    const labels = [await post('/v1/labels', { name: 'zeta' }), await post('/v1/labels', { name: 'Alpha' })];
    const epic = await post('/v1/tasks', { title: 'Epic', taskListIds: [hidden.id] });
    const ids = [epic.id];
    for (let i = 0; i < 6; i++) {
      const task = await post('/v1/tasks', {
        title: `Task ${i}`,
        taskListIds: i % 2 ? [shared.id, hidden.id] : [other.id, shared.id],
        assigneeIds: [bea.userId, ann2.userId, ann.userId].slice(i % 3),
        labelIds: labels.map((label) => label.id),
        ...(i < 3 && { parentId: epic.id }),
      });
      ids.push(task.id);
      if (i < 2)
        ids.push((await post('/v1/tasks', { title: `Sub ${i}`, parentId: task.id, taskListIds: [other.id] })).id);
    }
    expectStatus(await upload(owner.api, ids[1]!, Buffer.from('file'), 'a.txt'), 201);
    const outsider = (await createTestTeam(server)).owner;

    const db = server.store.db;
    for (const caller of [
      callerOf(team, owner),
      callerOf(team, ann),
      callerOf(team, ann, [shared.id]),
      { ...callerOf(team, outsider) },
    ]) {
      const many = await findDetails(db, caller, [...ids, 999_999]);
      assert.equal(many.has(999_999), false, 'a missing task is absent');
      for (const id of ids) {
        assert.deepEqual(many.get(id), await findDetail(db, caller, id), `task ${id} for ${caller.userId}`);
      }
    }
  });
});
