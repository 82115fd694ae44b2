import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestTeam, type Actor } from '../factories.js';
import { expectError, expectStatus, startTestServer, type TestServer } from '../harness.js';

async function newTask(creator: Actor, body: Record<string, unknown> = {}) {
  return expectStatus(await creator.api.post('/v1/tasks', { title: 'A task', ...body }), 201);
}

/** A task's detail, as GET /v1/tasks/{id} answers it (one statement reads it all: tasks.repository.ts). */
async function detail(actor: Actor, taskId: number) {
  return expectStatus(await actor.api.get(`/v1/tasks/${taskId}`), 200);
}

describe('task detail', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  test('parent is shown only to a caller who may access it; subtaskCount counts only accessible subtasks', async () => {
    const team = await createTestTeam(server);
    const owner = team.owner;
    const assignee = await team.member({ name: 'Assignee' });
    const epic = await newTask(owner, { title: 'Epic' });
    const visible = await newTask(owner, { title: 'Story', parentId: epic.id, assigneeIds: [assignee.userId] });
    await newTask(owner, { title: 'Hidden story', parentId: epic.id });
    const ownSubtask = await newTask(assignee, { title: 'Own story', parentId: visible.id });

    // The owner created all but the assignee's own subtask, which it may not access.
    assert.equal((await detail(owner, epic.id)).subtaskCount, 2);
    assert.deepEqual((await detail(owner, visible.id)).parent, { id: epic.id, number: epic.number, title: 'Epic' });
    assert.equal((await detail(owner, visible.id)).subtaskCount, 0);

    // The assignee may read the story (assigned) and its own subtask, but not the epic.
    const story = await detail(assignee, visible.id);
    assert.equal(story.parentId, epic.id);
    assert.equal(story.parent, null);
    assert.equal(story.subtaskCount, 1);
    assert.deepEqual((await detail(assignee, ownSubtask.id)).parent, {
      id: visible.id,
      number: visible.number,
      title: 'Story',
    });
    expectError(await assignee.api.get(`/v1/tasks/${epic.id}`), 403, 'You do not have access to this task.');
  });

  test("assignees are ordered by name, then id, and taskLists by id, as in the create's answer", async () => {
    const team = await createTestTeam(server);
    const zoe = await team.member({ name: 'Zoe' });
    const adam = await team.member({ name: 'Adam' });
    const adam2 = await team.member({ name: 'Adam' });
    const lists = [];
    for (const name of ['C', 'A', 'B']) lists.push(expectStatus(await team.owner.api.post('/v1/lists', { name }), 201));
    const task = await newTask(team.owner, {
      assigneeIds: [zoe.userId, adam2.userId, adam.userId],
      taskListIds: [lists[2].id, lists[0].id, lists[1].id],
    });
    const shown = await detail(team.owner, task.id);
    const adams = [adam.userId, adam2.userId].sort();
    assert.deepEqual(
      shown.assignees.map((p: { id: string }) => p.id),
      [...adams, zoe.userId],
    );
    assert.deepEqual(
      shown.taskLists.map((l: { id: number }) => l.id),
      lists.map((l) => l.id).sort((a, b) => a - b),
    );
    // The create's answer, made from what it checked, is the detail GET reads.
    assert.deepEqual(shown, task);
  });
});
