import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { issueKey as insertKey } from '../../src/keys/keys.service.js';
import { upsertMember } from '../../src/team/teams.repository.js';
import { createTestTeam, type Actor } from '../factories.js';
import { expectError, expectStatus, startTestServer, type TestServer } from '../harness.js';

const NO_ACCESS = 'You do not have access to this task.';

interface Ref {
  id: number;
  name: string;
}

/** A list created by `creator`, with `members` added through the members endpoint. */
async function newList(creator: Actor, name: string, members: Actor[] = []): Promise<Ref> {
  const list = expectStatus(await creator.api.post('/v1/lists', { name }), 201);
  for (const member of members) {
    expectStatus(await creator.api.post(`/v1/lists/${list.id}/members`, { userId: member.userId }), 201);
  }
  return list;
}

async function newTask(creator: Actor, body: Record<string, unknown> = {}): Promise<number> {
  return expectStatus(await creator.api.post('/v1/tasks', { title: 'A task', ...body }), 201).id;
}

/** Ids of GET /v1/tasks for this caller. */
async function visibleIds(actor: Actor): Promise<number[]> {
  return expectStatus(await actor.api.get('/v1/tasks'), 200).map((t: { id: number }) => t.id);
}

/** The caller can read the task by id, sees it in the collection and may patch it. */
async function expectAccess(actor: Actor, taskId: number): Promise<void> {
  assert.equal(expectStatus(await actor.api.get(`/v1/tasks/${taskId}`), 200).id, taskId);
  assert.ok((await visibleIds(actor)).includes(taskId), `task ${taskId} missing from GET /v1/tasks of ${actor.name}`);
  expectStatus(await actor.api.patch(`/v1/tasks/${taskId}`, { description: `touched by ${actor.name}` }), 200);
}

/** GET, PATCH and DELETE answer 403 and the collection leaves the task out; nothing changes. */
async function expectNoAccess(actor: Actor, taskId: number, owner: Actor): Promise<void> {
  const before = expectStatus(await owner.api.get(`/v1/tasks/${taskId}`), 200);
  expectError(await actor.api.get(`/v1/tasks/${taskId}`), 403, NO_ACCESS);
  expectError(await actor.api.patch(`/v1/tasks/${taskId}`, { title: 'Hijacked' }), 403, NO_ACCESS);
  expectError(await actor.api.delete(`/v1/tasks/${taskId}`), 403, NO_ACCESS);
  assert.ok(!(await visibleIds(actor)).includes(taskId), `task ${taskId} listed for ${actor.name}`);
  assert.deepEqual(expectStatus(await owner.api.get(`/v1/tasks/${taskId}`), 200), before);
}

/** GET, PATCH and DELETE answer 404 "Task <id> not found." and the collection leaves the task out. */
async function expectNotFound(actor: Actor, taskId: number): Promise<void> {
  const message = `Task ${taskId} not found.`;
  expectError(await actor.api.get(`/v1/tasks/${taskId}`), 404, message);
  expectError(await actor.api.patch(`/v1/tasks/${taskId}`, { title: 'Hijacked' }), 404, message);
  expectError(await actor.api.delete(`/v1/tasks/${taskId}`), 404, message);
  assert.ok(!(await visibleIds(actor)).includes(taskId), `task ${taskId} listed for ${actor.name}`);
}

describe('task access', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  test('the creator alone has access; team role (owner, admin) grants nothing', async () => {
    const team = await createTestTeam(server);
    const creator = await team.member({ name: 'Creator' });
    const admin = await team.member({ role: 'admin', name: 'Admin' });
    const bystander = await team.member({ name: 'Bystander' });
    const taskId = await newTask(creator, { title: 'Private' });

    await expectAccess(creator, taskId);
    for (const other of [team.owner, admin, bystander]) await expectNoAccess(other, taskId, creator);
    expectStatus(await creator.api.delete(`/v1/tasks/${taskId}`), 200);
  });

  test('an assignee who is neither creator nor list member has access, including delete', async () => {
    const team = await createTestTeam(server);
    const assignee = await team.member({ name: 'Assignee' });
    const bystander = await team.member({ name: 'Bystander' });
    const taskId = await newTask(team.owner, { assigneeIds: [assignee.userId] });

    await expectAccess(assignee, taskId);
    await expectNoAccess(bystander, taskId, team.owner);
    expectStatus(await assignee.api.delete(`/v1/tasks/${taskId}`), 200);
    await expectNotFound(team.owner, taskId);
  });

  test('a member of a list the task is attached to has access; a non-member does not', async () => {
    const team = await createTestTeam(server);
    const member = await team.member({ name: 'List member' });
    const bystander = await team.member({ name: 'Bystander' });
    const list = await newList(team.owner, 'Shared', [member]);
    const taskId = await newTask(team.owner, { taskListIds: [list.id] });

    await expectAccess(member, taskId);
    await expectNoAccess(bystander, taskId, team.owner);
    expectStatus(await member.api.delete(`/v1/tasks/${taskId}`), 200);
  });

  test('filtering by a list shows a non-member only the tasks they can reach otherwise (creator or assignee)', async () => {
    const team = await createTestTeam(server);
    const member = await team.member({ name: 'List member' });
    const bystander = await team.member({ name: 'Bystander' });
    const list = await newList(team.owner, 'Shared', [member]);
    const hidden = await newTask(team.owner, { taskListIds: [list.id] });
    const assigned = await newTask(team.owner, { taskListIds: [list.id], assigneeIds: [bystander.userId] });

    const ids = async (actor: Actor) =>
      expectStatus(await actor.api.get(`/v1/tasks?taskListId=${list.id}`), 200).map((t: { id: number }) => t.id);
    assert.deepEqual(await ids(member), [assigned, hidden]);
    assert.deepEqual(await ids(bystander), [assigned]);
  });

  test('archiving the list takes a list member’s access away; unarchiving gives it back', async () => {
    const team = await createTestTeam(server);
    const member = await team.member({ name: 'List member' });
    const list = await newList(team.owner, 'Seasonal', [member]);
    const taskId = await newTask(team.owner, { taskListIds: [list.id] });
    await expectAccess(member, taskId);

    expectStatus(await team.owner.api.post(`/v1/lists/${list.id}/archive`), 200);
    await expectNoAccess(member, taskId, team.owner);
    const filtered = expectStatus(await member.api.get(`/v1/tasks?taskListId=${list.id}`), 200);
    assert.deepEqual(filtered, [], 'filtering by the archived list must not reveal its tasks');

    expectStatus(await team.owner.api.post(`/v1/lists/${list.id}/unarchive`), 200);
    await expectAccess(member, taskId);
  });

  test('a task reachable through one archived and one live list stays accessible', async () => {
    const team = await createTestTeam(server);
    const member = await team.member();
    const archived = await newList(team.owner, 'Old', [member]);
    const live = await newList(team.owner, 'Current', [member]);
    const taskId = await newTask(team.owner, { taskListIds: [archived.id, live.id] });
    expectStatus(await team.owner.api.post(`/v1/lists/${archived.id}/archive`), 200);
    await expectAccess(member, taskId);
  });

  test('the creator and the assignees keep access while the list is archived', async () => {
    const team = await createTestTeam(server);
    const creator = await team.member({ name: 'Creator' });
    const assignee = await team.member({ name: 'Assignee' });
    const list = await newList(creator, 'Archivable', [assignee]);
    const taskId = await newTask(creator, { taskListIds: [list.id], assigneeIds: [assignee.userId] });
    expectStatus(await creator.api.post(`/v1/lists/${list.id}/archive`), 200);

    await expectAccess(creator, taskId);
    await expectAccess(assignee, taskId);
  });

  test('removing an assignee with PATCH assigneeIds removes their access', async () => {
    const team = await createTestTeam(server);
    const kept = await team.member({ name: 'Kept' });
    const dropped = await team.member({ name: 'Dropped' });
    const taskId = await newTask(team.owner, { assigneeIds: [kept.userId, dropped.userId] });
    await expectAccess(dropped, taskId);

    expectStatus(await team.owner.api.patch(`/v1/tasks/${taskId}`, { assigneeIds: [kept.userId] }), 200);
    await expectNoAccess(dropped, taskId, team.owner);
    await expectAccess(kept, taskId);

    expectStatus(await team.owner.api.patch(`/v1/tasks/${taskId}`, { assigneeIds: [] }), 200);
    await expectNoAccess(kept, taskId, team.owner);
  });

  test('being added to a list through POST /v1/lists/{id}/members grants access to its tasks; removal revokes it', async () => {
    const team = await createTestTeam(server);
    const newcomer = await team.member({ name: 'Newcomer' });
    const list = await newList(team.owner, 'Project');
    const taskIds = [
      await newTask(team.owner, { taskListIds: [list.id] }),
      await newTask(team.owner, { taskListIds: [list.id] }),
    ];
    for (const id of taskIds) await expectNoAccess(newcomer, id, team.owner);

    expectStatus(await team.owner.api.post(`/v1/lists/${list.id}/members`, { userId: newcomer.userId }), 201);
    assert.deepEqual(await visibleIds(newcomer), [...taskIds].reverse());
    for (const id of taskIds) await expectAccess(newcomer, id);

    expectStatus(await team.owner.api.delete(`/v1/lists/${list.id}/members/${newcomer.userId}`), 200);
    for (const id of taskIds) await expectNoAccess(newcomer, id, team.owner);
  });

  test('taskLists shows only lists the caller is a member of; other list names never appear', async () => {
    const team = await createTestTeam(server);
    const member = await team.member({ name: 'Member' });
    const assignee = await team.member({ name: 'Assignee' });
    const shared = await newList(team.owner, 'Shared list', [member]);
    const secret = await newList(team.owner, 'Top secret codename');
    const taskId = await newTask(team.owner, { taskListIds: [shared.id, secret.id], assigneeIds: [assignee.userId] });
    const both = [shared, secret].map(({ id, name }) => ({ id, name })).sort((a, b) => a.id - b.id);

    const views: [Actor, Ref[]][] = [
      [team.owner, both],
      [member, [{ id: shared.id, name: shared.name }]],
      [assignee, []],
    ];
    for (const [actor, expected] of views) {
      const detail = await actor.api.get(`/v1/tasks/${taskId}`);
      assert.deepEqual(expectStatus(detail, 200).taskLists, expected, `detail for ${actor.name}`);
      const listed = await actor.api.get('/v1/tasks');
      const summary = expectStatus(listed, 200).find((t: { id: number }) => t.id === taskId);
      assert.deepEqual(summary?.taskLists, expected, `summary for ${actor.name}`);
      if (actor !== team.owner) {
        assert.ok(
          !detail.text.includes(secret.name) && !listed.text.includes(secret.name),
          `${actor.name} saw the secret name`,
        );
      }
    }
  });

  test('deleted tasks never appear again, for creator, assignee or list member', async () => {
    const team = await createTestTeam(server);
    const assignee = await team.member({ name: 'Assignee' });
    const member = await team.member({ name: 'Member' });
    const list = await newList(team.owner, 'Doomed', [member]);
    const kept = await newTask(team.owner, { title: 'Kept', taskListIds: [list.id], assigneeIds: [assignee.userId] });
    const gone = await newTask(team.owner, { title: 'Gone', taskListIds: [list.id], assigneeIds: [assignee.userId] });

    assert.deepEqual(expectStatus(await team.owner.api.delete(`/v1/tasks/${gone}`), 200), {
      id: gone,
      number: 2,
      deleted: true,
    });
    for (const actor of [team.owner, assignee, member]) {
      await expectNotFound(actor, gone);
      assert.deepEqual(await visibleIds(actor), [kept]);
      assert.deepEqual(
        expectStatus(await actor.api.get(`/v1/tasks?taskListId=${list.id}`), 200).map((t: Ref) => t.id),
        [kept],
      );
    }
  });

  test('another team’s task is 404 "Task <id> not found." and never listed, even for its team owner', async () => {
    const home = await createTestTeam(server);
    const away = await createTestTeam(server);
    const list = await newList(home.owner, 'Home list');
    const taskId = await newTask(home.owner, { title: 'Home task', taskListIds: [list.id] });
    const awayTask = await newTask(away.owner, { title: 'Away task' });

    await expectNotFound(away.owner, taskId);
    assert.deepEqual(await visibleIds(away.owner), [awayTask]);
    assert.deepEqual(expectStatus(await away.owner.api.get(`/v1/tasks?taskListId=${list.id}`), 200), []);
    assert.deepEqual(expectStatus(await home.owner.api.get(`/v1/tasks/${taskId}`), 200).title, 'Home task');
    // A missing id and another team's id read the same.
    expectError(await away.owner.api.get('/v1/tasks/99999999'), 404, 'Task 99999999 not found.');
  });

  test('a user in two teams sees each team’s tasks only with that team’s key', async () => {
    const one = await createTestTeam(server);
    const two = await createTestTeam(server);
    const person = await one.member({ name: 'Two hats' });
    await upsertMember(server.store.db, two.id, person.userId, 'member');
    const { key } = await insertKey(server.store.db, { teamId: two.id, userId: person.userId, name: 'second' });
    const inTwo: Actor = { ...person, teamId: two.id, key, api: server.client(key) };

    const createdInOne = await newTask(person, { title: 'Made in one' });
    const assignedInTwo = await newTask(two.owner, { title: 'Assigned in two', assigneeIds: [person.userId] });

    assert.deepEqual(await visibleIds(person), [createdInOne]);
    assert.deepEqual(await visibleIds(inTwo), [assignedInTwo]);
    await expectNotFound(inTwo, createdInOne);
    await expectNotFound(person, assignedInTwo);
  });
});
