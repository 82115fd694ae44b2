/**
 * Workflow statuses managed over the API by owners and admins: POST, PATCH and
 * DELETE /v1/task-statuses. Exactly one default at all times (also when two are made default at
 * once); a deleted status's tasks move to `moveTo` in the same step, each with its activity entry
 * and task.updated event; a status's isCompleted carries to its tasks; every change reaches every
 * member live as taskStatus.created|updated|deleted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestTeam, type Actor, type Team } from '../factories.js';
import { expectError, expectStatus, startTestServer, type TestServer } from '../harness.js';
import { live } from '../events/support.js';
import { closeAllStreams, show } from '../sse/stream.js';
import { together } from '../together.js';

let server: TestServer;
before(async () => {
  server = await startTestServer({ EVENTS_HEARTBEAT_SECONDS: '1' });
});
after(async () => {
  await closeAllStreams();
  await server.close();
});

const MANAGERS_ONLY = "Only the team's owners and admins can manage workflow statuses.";

interface Status {
  id: number;
  name: string;
  color: string | null;
  isDefault: boolean;
  isCompleted: boolean;
  order: number;
}

async function statusesOf(actor: Actor): Promise<Status[]> {
  return expectStatus(await actor.api.get('/v1/task-statuses'), 200);
}

async function named(actor: Actor, name: string): Promise<Status> {
  const status = (await statusesOf(actor)).find((s) => s.name === name);
  assert.ok(status, `no status ${name}`);
  return status;
}

describe('POST /v1/task-statuses', () => {
  test('an owner adds a status: 201 with it as GET /v1/task-statuses shows it, after the last unless order says where', async () => {
    const team = await createTestTeam(server);
    const review = expectStatus(
      await team.owner.api.post('/v1/task-statuses', { name: 'Review', color: '#A855F7' }),
      201,
    );
    assert.deepEqual(Object.keys(review).sort(), ['color', 'id', 'isCompleted', 'isDefault', 'name', 'order']);
    assert.deepEqual(
      { ...review, id: 0 },
      { id: 0, name: 'Review', color: '#A855F7', isDefault: false, isCompleted: false, order: 3 },
    );
    assert.deepEqual((await statusesOf(team.owner)).at(-1), review);
    // An order another status holds is made free: Blocked goes right before Done, which moves down.
    const blocked = expectStatus(await team.owner.api.post('/v1/task-statuses', { name: 'Blocked', order: 2 }), 201);
    assert.equal(blocked.color, null);
    assert.deepEqual(
      (await statusesOf(team.owner)).map((s) => `${s.name}:${s.order}`),
      ['To do:0', 'In progress:1', 'Blocked:2', 'Done:3', 'Review:4'],
    );
  });

  test('a new default takes the default from the old one in the same step: exactly one default', async () => {
    const team = await createTestTeam(server);
    const triage = expectStatus(
      await team.owner.api.post('/v1/task-statuses', { name: 'Triage', isDefault: true, order: 0 }),
      201,
    );
    assert.equal(triage.isDefault, true);
    const defaults = (await statusesOf(team.owner)).filter((s) => s.isDefault);
    assert.deepEqual(
      defaults.map((s) => s.id),
      [triage.id],
    );
    const task = expectStatus(await team.owner.api.post('/v1/tasks', { title: 'New work' }), 201);
    assert.equal(task.status.id, triage.id);
  });

  test('admins may; plain members get 403; bad fields are a 400 naming them, and nothing is added', async () => {
    const team = await createTestTeam(server);
    const admin = await team.member({ role: 'admin' });
    const member = await team.member();
    expectStatus(await admin.api.post('/v1/task-statuses', { name: 'By an admin', isCompleted: true }), 201);
    expectError(await member.api.post('/v1/task-statuses', { name: 'By a member' }), 403, MANAGERS_ONLY);
    const count = (await statusesOf(team.owner)).length;
    for (const [body, message] of [
      [{}, 'name is required.'],
      [{ name: '   ' }, 'name must be 1 to 100 characters with at least one non-whitespace character.'],
      [{ name: 'x'.repeat(101) }, 'name must be at most 100 characters long.'],
      [{ name: 'Hue', color: 'purple' }, 'color must be a hex colour such as #22C55E, or null.'],
      [{ name: 'Far', order: 1_000_001 }, 'order must be a whole number from -1000000 to 1000000.'],
      [{ name: 'Half', order: 1.5 }, 'order must be a whole number from -1000000 to 1000000.'],
      [{ name: 'Flag', isDefault: 'yes' }, 'isDefault must be true or false.'],
    ] as const) {
      expectError(await team.owner.api.post('/v1/task-statuses', body), 400, message);
    }
    assert.equal((await statusesOf(team.owner)).length, count);
  });
});

describe('PATCH /v1/task-statuses/{statusId}', () => {
  test('changes the fields given and answers the status as it now is', async () => {
    const team = await createTestTeam(server);
    const doing = await named(team.owner, 'In progress');
    const answer = expectStatus(
      await team.owner.api.patch(`/v1/task-statuses/${doing.id}`, { name: 'Doing', color: null, order: 5 }),
      200,
    );
    assert.deepEqual(answer, { ...doing, name: 'Doing', color: null, order: 5 });
    assert.deepEqual(await named(team.owner, 'Doing'), answer);
  });

  test('isDefault true moves the default; false on the default is a 400 (a team always has one); false elsewhere changes nothing', async () => {
    const team = await createTestTeam(server);
    const toDo = await named(team.owner, 'To do');
    const doing = await named(team.owner, 'In progress');
    expectError(
      await team.owner.api.patch(`/v1/task-statuses/${toDo.id}`, { isDefault: false }),
      400,
      `Task status ${toDo.id} is the default, and a team always has one. Make another status the default instead.`,
    );
    assert.deepEqual(
      expectStatus(await team.owner.api.patch(`/v1/task-statuses/${doing.id}`, { isDefault: false }), 200),
      doing,
    );
    expectStatus(await team.owner.api.patch(`/v1/task-statuses/${doing.id}`, { isDefault: true }), 200);
    const defaults = (await statusesOf(team.owner)).filter((s) => s.isDefault).map((s) => s.name);
    assert.deepEqual(defaults, ['In progress']);
  });

  test("a new isCompleted carries to its tasks at once: their isCompleted, and the lists' isCompleted filter", async () => {
    const team = await createTestTeam(server);
    const doing = await named(team.owner, 'In progress');
    const list = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Board' }), 201);
    const task = expectStatus(
      await team.owner.api.post('/v1/tasks', { title: 'Half way', taskStatusId: doing.id, taskListIds: [list.id] }),
      201,
    );
    const completedIn = async () =>
      expectStatus(await team.owner.api.get(`/v1/tasks?taskListId=${list.id}&isCompleted=true`), 200).map(
        (t: { id: number }) => t.id,
      );
    assert.deepEqual(await completedIn(), []);
    expectStatus(await team.owner.api.patch(`/v1/task-statuses/${doing.id}`, { isCompleted: true }), 200);
    assert.equal(expectStatus(await team.owner.api.get(`/v1/tasks/${task.id}`), 200).isCompleted, true);
    assert.deepEqual(await completedIn(), [task.id]);
    expectStatus(await team.owner.api.patch(`/v1/task-statuses/${doing.id}`, { isCompleted: false }), 200);
    assert.deepEqual(await completedIn(), []);
  });

  test("renaming a status, recolouring it or flipping its isCompleted changes its tasks' answers, so their ETags change too (If-Match from before: 412); a new order does not", async () => {
    const team = await createTestTeam(server);
    const doing = await named(team.owner, 'In progress');
    const task = expectStatus(await team.owner.api.post('/v1/tasks', { title: 'Tagged', taskStatusId: doing.id }), 201);
    const etagOf = async () => (await team.owner.api.get(`/v1/tasks/${task.id}`)).headers.get('etag');
    const first = await etagOf();
    expectStatus(await team.owner.api.patch(`/v1/task-statuses/${doing.id}`, { name: 'Doing' }), 200);
    const renamed = await etagOf();
    assert.notEqual(renamed, first, 'a renamed status is a new status.name in the task');
    expectStatus(await team.owner.api.patch(`/v1/task-statuses/${doing.id}`, { isCompleted: true }), 200);
    assert.notEqual(await etagOf(), renamed, 'a new isCompleted in the task');
    expectError(
      await team.owner.api.patch(`/v1/tasks/${task.id}`, { title: 'Stale' }, { 'if-match': renamed! }),
      412,
      /has changed since you read it/,
    );
    const recoloured = await etagOf();
    expectStatus(await team.owner.api.patch(`/v1/task-statuses/${doing.id}`, { color: '#123456' }), 200);
    assert.notEqual(await etagOf(), recoloured, 'a new status.color in the task');
    const unchanged = await etagOf();
    expectStatus(await team.owner.api.patch(`/v1/task-statuses/${doing.id}`, { order: 0 }), 200);
    assert.equal(await etagOf(), unchanged, "a status's order is not part of the task's answer");
  });

  test('a member gets 403; an unknown or another team’s status 404; bad fields 400', async () => {
    const team = await createTestTeam(server);
    const other = await createTestTeam(server);
    const member = await team.member();
    const doing = await named(team.owner, 'In progress');
    const theirs = await named(other.owner, 'In progress');
    expectError(await member.api.patch(`/v1/task-statuses/${doing.id}`, { name: 'Mine' }), 403, MANAGERS_ONLY);
    expectError(
      await team.owner.api.patch(`/v1/task-statuses/${theirs.id}`, { name: 'Theirs' }),
      404,
      `Task status ${theirs.id} not found.`,
    );
    expectError(
      await team.owner.api.patch('/v1/task-statuses/2147480001', { name: 'Nobody' }),
      404,
      'Task status 2147480001 not found.',
    );
    expectError(await team.owner.api.patch(`/v1/task-statuses/${doing.id}`, { name: '' }), 400);
    expectError(await team.owner.api.patch('/v1/task-statuses/abc', { name: 'x' }), 400, 'statusId must be a number.');
    assert.deepEqual(await named(team.owner, 'In progress'), doing);
    assert.equal((await named(other.owner, 'In progress')).name, 'In progress');
  });
});

describe('DELETE /v1/task-statuses/{statusId}?moveTo=', () => {
  test('moves its tasks to moveTo in the same step: status, isCompleted, ETag; each gets an activity entry by the caller; the status is gone', async () => {
    const team = await createTestTeam(server);
    const admin = await team.member({ role: 'admin' });
    const doing = await named(team.owner, 'In progress');
    const done = await named(team.owner, 'Done');
    const list = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Board' }), 201);
    const moved = [];
    for (const title of ['One', 'Two']) {
      moved.push(
        expectStatus(
          await team.owner.api.post('/v1/tasks', { title, taskStatusId: doing.id, taskListIds: [list.id] }),
          201,
        ),
      );
    }
    const untouched = expectStatus(await team.owner.api.post('/v1/tasks', { title: 'Stays' }), 201);
    const etag = (await team.owner.api.get(`/v1/tasks/${moved[0].id}`)).headers.get('etag');

    const answer = expectStatus(await admin.api.delete(`/v1/task-statuses/${doing.id}?moveTo=${done.id}`), 200);
    assert.deepEqual(answer, { id: doing.id, deleted: true, movedTo: done.id, movedTasks: 2 });
    assert.ok(!(await statusesOf(team.owner)).some((s) => s.id === doing.id));
    for (const task of moved) {
      const read = await team.owner.api.get(`/v1/tasks/${task.id}`);
      const detail = expectStatus(read, 200);
      assert.equal(detail.status.id, done.id);
      assert.equal(detail.isCompleted, true);
      const [entry] = expectStatus(await team.owner.api.get(`/v1/tasks/${task.id}/activity`), 200);
      assert.equal(entry.actor.id, admin.userId);
      assert.deepEqual(entry.changes, {
        status: { from: { id: doing.id, name: 'In progress' }, to: { id: done.id, name: 'Done' } },
      });
    }
    assert.notEqual((await team.owner.api.get(`/v1/tasks/${moved[0].id}`)).headers.get('etag'), etag);
    const completed = expectStatus(await team.owner.api.get(`/v1/tasks?taskListId=${list.id}&isCompleted=true`), 200);
    assert.equal(completed.length, 2);
    assert.equal(expectStatus(await team.owner.api.get(`/v1/tasks/${untouched.id}/activity`), 200).length, 1);
  });

  test('moveTo is required, must be another status of the team; the default cannot be deleted (409); a member gets 403; nothing changes', async () => {
    const team = await createTestTeam(server);
    const other = await createTestTeam(server);
    const member = await team.member();
    const toDo = await named(team.owner, 'To do');
    const doing = await named(team.owner, 'In progress');
    const done = await named(team.owner, 'Done');
    const theirs = await named(other.owner, 'Done');
    const task = expectStatus(await team.owner.api.post('/v1/tasks', { title: 'Held', taskStatusId: doing.id }), 201);
    const before = await statusesOf(team.owner);
    const del = (path: string, by = team.owner) => by.api.delete(`/v1/task-statuses/${path}`);
    expectError(await del(`${doing.id}`), 400, 'moveTo is required.');
    expectError(
      await del(`${doing.id}?moveTo=${doing.id}`),
      400,
      'Its tasks cannot move to the status being deleted; pick another.',
    );
    expectError(
      await del(`${doing.id}?moveTo=${theirs.id}`),
      400,
      `Task status ${theirs.id}, to move the tasks to, is not a status of this team.`,
    );
    expectError(await del(`${doing.id}?moveTo=x`), 400, 'moveTo must be the id of the status its tasks move to.');
    expectError(
      await del(`${toDo.id}?moveTo=${done.id}`),
      409,
      `Task status ${toDo.id} is the default and cannot be deleted. Make another status the default first.`,
    );
    expectError(await del(`${theirs.id}?moveTo=${done.id}`), 404, `Task status ${theirs.id} not found.`);
    expectError(await del(`${doing.id}?moveTo=${done.id}`, member), 403, MANAGERS_ONLY);
    assert.deepEqual(await statusesOf(team.owner), before);
    assert.equal(expectStatus(await team.owner.api.get(`/v1/tasks/${task.id}`), 200).status.id, doing.id);
  });
});

describe('taskStatus events', () => {
  test('every member hears taskStatus.created, .updated (also for the status that stopped being the default) and .deleted, with {"statusId"}', async () => {
    const team: Team = await createTestTeam(server);
    const member = await team.member();
    const stream = await live(server, member, 'member');
    const made = expectStatus(await team.owner.api.post('/v1/task-statuses', { name: 'Live' }), 201);
    assert.equal(show(await stream.next()), `taskStatus.created ${made.id}`);
    const toDo = await named(team.owner, 'To do');
    expectStatus(await team.owner.api.patch(`/v1/task-statuses/${made.id}`, { isDefault: true }), 200);
    assert.deepEqual(
      [show(await stream.next()), show(await stream.next())],
      [`taskStatus.updated ${made.id}`, `taskStatus.updated ${toDo.id}`],
    );
    const done = await named(team.owner, 'Done');
    expectStatus(await team.owner.api.patch(`/v1/task-statuses/${made.id}`, { isDefault: false }), 400);
    expectStatus(await team.owner.api.patch(`/v1/task-statuses/${toDo.id}`, { isDefault: true }), 200);
    await stream.next();
    await stream.next();
    expectStatus(await team.owner.api.delete(`/v1/task-statuses/${made.id}?moveTo=${done.id}`), 200);
    const deleted = await stream.next();
    assert.equal(show(deleted), `taskStatus.deleted ${made.id}`);
    assert.deepEqual(JSON.parse(deleted.data), { statusId: made.id });
    stream.close();
  });

  test("a moved task's task.updated reaches those who may read it, and only them", async () => {
    const team = await createTestTeam(server);
    const reader = await team.member();
    const outsider = await team.member();
    const doing = await named(team.owner, 'In progress');
    const done = await named(team.owner, 'Done');
    const task = expectStatus(
      await team.owner.api.post('/v1/tasks', {
        title: 'Assigned',
        taskStatusId: doing.id,
        assigneeIds: [reader.userId],
      }),
      201,
    );
    const readerStream = await live(server, reader, 'reader');
    const outsiderStream = await live(server, outsider, 'outsider');
    expectStatus(await team.owner.api.delete(`/v1/task-statuses/${doing.id}?moveTo=${done.id}`), 200);
    assert.deepEqual(
      [show(await readerStream.next()), show(await readerStream.next())],
      [`task.updated ${task.id}`, `taskStatus.deleted ${doing.id}`],
    );
    assert.equal(show(await outsiderStream.next()), `taskStatus.deleted ${doing.id}`);
    readerStream.close();
    outsiderStream.close();
  });
});

describe('one default under concurrency', () => {
  test('two statuses made the default at the same moment: exactly one default remains', async () => {
    for (let round = 0; round < 6; round++) {
      const team = await createTestTeam(server);
      const doing = await named(team.owner, 'In progress');
      const done = await named(team.owner, 'Done');
      const answers = await together(server.url, [
        { method: 'PATCH', path: `/v1/task-statuses/${doing.id}`, key: team.owner.key, body: { isDefault: true } },
        { method: 'PATCH', path: `/v1/task-statuses/${done.id}`, key: team.owner.key, body: { isDefault: true } },
        { method: 'POST', path: '/v1/task-statuses', key: team.owner.key, body: { name: 'New', isDefault: true } },
      ]);
      const context = `round ${round}: ${answers.map((a) => `${a.status} ${a.text}`).join(' | ')}`;
      assert.deepEqual(
        answers.map((a) => a.status),
        [200, 200, 201],
        context,
      );
      assert.equal((await statusesOf(team.owner)).filter((s) => s.isDefault).length, 1, context);
    }
  });
});
