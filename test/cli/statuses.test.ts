/**
 * Workflow statuses changed with `tasklane admin status …` (and the service an HTTP route will
 * call): order ties make room, exactly one default at all times, and a deleted status's tasks
 * move in the same transaction with their completion, list filters included. The races at the
 * end are the PostgreSQL ones (SQLite runs writers one at a time): task writers pointing tasks at
 * a status while it is deleted or changes isCompleted.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { TaskStatus } from '../../src/contract/statuses.js';
import { AppError } from '../../src/http/errors.js';
import { createStatus, deleteStatus, updateStatus } from '../../src/statuses/statuses.service.js';
import { createTestTeam, type Actor } from '../factories.js';
import { expectError, expectStatus } from '../harness.js';
import { TIMEOUT } from '../processes.js';
import { adminOk, adminRefuses, serverOnTempDatabase } from './support.js';

const live = serverOnTempDatabase();

const admin = async (...args: string[]) => (await adminOk(live.db.url, args)).value;
const statusesOf = async (actor: Actor): Promise<TaskStatus[]> =>
  expectStatus(await actor.api.get('/v1/task-statuses'), 200);
const named = (statuses: TaskStatus[]) => statuses.map((s) => `${s.order} ${s.name}`);
const byName = (statuses: TaskStatus[], name: string) => statuses.find((s) => s.name === name)!;

/** A new team (owner with a key) and a list of its, from the factories. */
async function team() {
  const created = await createTestTeam(live.server);
  const owner = created.owner;
  const list = expectStatus(await owner.api.post('/v1/lists', { name: 'Board' }), 201);
  return { id: created.id, owner, list };
}

/** Ids of the list's tasks with that isCompleted, as the list filter (the completion copies) answers. */
async function listFilter(owner: Actor, listId: number, isCompleted: boolean): Promise<number[]> {
  const page = expectStatus(await owner.api.get(`/v1/tasks?taskListId=${listId}&isCompleted=${isCompleted}`), 200);
  return page.map((t: { id: number }) => t.id).sort((a: number, b: number) => a - b);
}

describe('admin status: order', { timeout: 4 * TIMEOUT }, () => {
  test('status create --order 2 takes the place of Done at 2, and Done (with every later status) moves down by one', async () => {
    const { id, owner } = await team();
    const review = await admin('status', 'create', '--org', id, '--name', 'Review', '--order', '2');
    assert.equal(review.order, 2);
    assert.deepEqual(named(await statusesOf(owner)), ['0 To do', '1 In progress', '2 Review', '3 Done']);
  });

  test('status create at an order no status holds moves nothing', async () => {
    const { id, owner } = await team();
    await admin('status', 'create', '--org', id, '--name', 'Later', '--order', '7');
    await admin('status', 'create', '--org', id, '--name', 'First', '--order=-1');
    assert.deepEqual(named(await statusesOf(owner)), ['-1 First', '0 To do', '1 In progress', '2 Done', '7 Later']);
  });

  test('status update --order puts the status at that order the same way; its own order is no tie', async () => {
    const { owner } = await team();
    const done = byName(await statusesOf(owner), 'Done');
    const moved = await admin('status', 'update', '--id', String(done.id), '--order', '0');
    assert.deepEqual({ ...moved }, { ...done, order: 0 });
    assert.deepEqual(named(await statusesOf(owner)), ['0 Done', '1 To do', '2 In progress']);
    await admin('status', 'update', '--id', String(done.id), '--order', '0');
    assert.deepEqual(named(await statusesOf(owner)), ['0 Done', '1 To do', '2 In progress']);
  });

  test('an order that is not a whole number within ±1,000,000 is refused', async () => {
    const { id, owner } = await team();
    const before = await statusesOf(owner);
    const lines = await Promise.all([
      adminRefuses(live.db.url, ['status', 'create', '--org', id, '--name', 'X', '--order', '1.5']),
      adminRefuses(live.db.url, ['status', 'create', '--org', id, '--name', 'X', '--order', '99999999999']),
      adminRefuses(live.db.url, ['status', 'update', '--id', String(before[0]!.id), '--order=-1000001']),
    ]);
    assert.match(lines[0]!, /^--order must be a whole number/);
    assert.match(lines[1]!, /^order must be a whole number from -1000000 to 1000000\./);
    assert.match(lines[2]!, /^order must be a whole number from -1000000 to 1000000\./);
    assert.deepEqual(await statusesOf(owner), before);
  });
});

describe('admin status update', { timeout: 4 * TIMEOUT }, () => {
  test('changes name and colour; --default makes it the one default and new tasks get it', async () => {
    const { owner } = await team();
    const doing = byName(await statusesOf(owner), 'In progress');
    const changed = await admin(
      'status',
      'update',
      '--id',
      String(doing.id),
      '--name',
      'Doing',
      '--color',
      '#123abc',
      '--default',
    );
    assert.deepEqual(changed, { ...doing, name: 'Doing', color: '#123abc', isDefault: true });
    const statuses = await statusesOf(owner);
    assert.deepEqual(
      statuses.filter((s) => s.isDefault).map((s) => s.id),
      [doing.id],
    );
    assert.equal(byName(statuses, 'To do').isDefault, false);
    const task = expectStatus(await owner.api.post('/v1/tasks', { title: 'Starts in Doing' }), 201);
    assert.equal(task.status.id, doing.id);
  });

  test('--completed and --not-completed change isCompleted of its tasks, in the list filters too', async () => {
    const { owner, list } = await team();
    const doing = byName(await statusesOf(owner), 'In progress');
    const task = expectStatus(
      await owner.api.post('/v1/tasks', { title: 'Half done', taskListIds: [list.id], taskStatusId: doing.id }),
      201,
    );
    assert.deepEqual(await listFilter(owner, list.id, true), []);

    assert.equal((await admin('status', 'update', '--id', String(doing.id), '--completed')).isCompleted, true);
    assert.equal(expectStatus(await owner.api.get(`/v1/tasks/${task.id}`), 200).isCompleted, true);
    assert.deepEqual(await listFilter(owner, list.id, true), [task.id]);
    assert.deepEqual(await listFilter(owner, list.id, false), []);

    assert.equal((await admin('status', 'update', '--id', String(doing.id), '--not-completed')).isCompleted, false);
    assert.deepEqual(await listFilter(owner, list.id, true), []);
    assert.deepEqual(await listFilter(owner, list.id, false), [task.id]);
  });

  test('nothing to change, --completed with --not-completed, a bad colour, an empty name or an unknown id is refused', async () => {
    const { owner } = await team();
    const before = await statusesOf(owner);
    const id = String(before[1]!.id);
    const lines = await Promise.all([
      adminRefuses(live.db.url, ['status', 'update', '--id', id]),
      adminRefuses(live.db.url, ['status', 'update', '--id', id, '--completed', '--not-completed']),
      adminRefuses(live.db.url, ['status', 'update', '--id', id, '--color', 'teal']),
      adminRefuses(live.db.url, ['status', 'update', '--id', id, '--name', ' ']),
      adminRefuses(live.db.url, ['status', 'update', '--id', '99999999', '--name', 'Ghost']),
      adminRefuses(live.db.url, ['status', 'update', '--id', 'three', '--name', 'Ghost']),
    ]);
    assert.match(
      lines[0]!,
      /^nothing to change: give --name, --color, --order, --default, --completed or --not-completed/,
    );
    assert.match(lines[1]!, /^give --completed or --not-completed, not both/);
    assert.match(lines[2]!, /^color must be a hex colour such as #22C55E\./);
    assert.match(lines[3]!, /^--name must not be empty/);
    assert.match(lines[4]!, /^status 99999999 not found/);
    assert.match(lines[5]!, /^--id must be a numeric id/);
    assert.deepEqual(await statusesOf(owner), before);
  });

  test('the service keeps one default: the default cannot be unset, only replaced by another', async () => {
    const { id, owner } = await team();
    const toDo = byName(await statusesOf(owner), 'To do');
    await assert.rejects(updateStatus(live.server.store, id, toDo.id, { isDefault: false }), (error: unknown) => {
      assert.ok(error instanceof AppError && error.status === 400, String(error));
      assert.match(error.message, /is the default, and a team always has one/);
      return true;
    });
    // Unsetting it on a status that is not the default changes nothing.
    const doing = byName(await statusesOf(owner), 'In progress');
    assert.deepEqual(await updateStatus(live.server.store, id, doing.id, { isDefault: false }), doing);
    assert.equal((await statusesOf(owner)).filter((s) => s.isDefault).length, 1);
  });
});

describe('admin status delete', { timeout: 4 * TIMEOUT }, () => {
  test('moves its tasks to --move-to in one step: their status, isCompleted, list filters and ETags change; the status is gone', async () => {
    const { id, owner, list } = await team();
    const review = await admin('status', 'create', '--org', id, '--name', 'Review');
    const done = byName(await statusesOf(owner), 'Done');
    const tasks = [];
    for (const title of ['One', 'Two']) {
      tasks.push(
        expectStatus(
          await owner.api.post('/v1/tasks', { title, taskListIds: [list.id], taskStatusId: review.id }),
          201,
        ),
      );
    }
    const untouched = expectStatus(await owner.api.post('/v1/tasks', { title: 'Stays', taskListIds: [list.id] }), 201);
    const etag = (await owner.api.get(`/v1/tasks/${tasks[0]!.id}`)).headers.get('etag')!;

    const result = await admin('status', 'delete', '--id', String(review.id), '--move-to', String(done.id));
    assert.deepEqual(result, { deleted: true, movedTo: done.id, movedTasks: 2 });

    assert.ok(!(await statusesOf(owner)).some((s) => s.id === review.id));
    for (const task of tasks) {
      const read = expectStatus(await owner.api.get(`/v1/tasks/${task.id}`), 200);
      assert.equal(read.taskStatusId, done.id);
      assert.equal(read.isCompleted, true);
    }
    assert.deepEqual(
      await listFilter(owner, list.id, true),
      tasks.map((t) => t.id).sort((a, b) => a - b),
    );
    assert.deepEqual(await listFilter(owner, list.id, false), [untouched.id]);
    expectError(await owner.api.patch(`/v1/tasks/${tasks[0]!.id}`, { title: 'Stale' }, { 'if-match': etag }), 412);
    expectError(await owner.api.patch(`/v1/tasks/${untouched.id}`, { taskStatusId: review.id }), 400);
  });

  test('refuses the default, moving onto itself, a status of another team or an unknown one; nothing changes', async () => {
    const { id, owner, list } = await team();
    const other = await team();
    const review = await admin('status', 'create', '--org', id, '--name', 'Review');
    const task = expectStatus(
      await owner.api.post('/v1/tasks', { title: 'Kept', taskListIds: [list.id], taskStatusId: review.id }),
      201,
    );
    const before = await statusesOf(owner);
    const toDo = byName(before, 'To do');
    const otherDone = byName(await statusesOf(other.owner), 'Done');
    const del = (statusId: number, moveTo: number | string) =>
      adminRefuses(live.db.url, ['status', 'delete', '--id', String(statusId), '--move-to', String(moveTo)]);
    const lines = await Promise.all([
      del(toDo.id, review.id),
      del(review.id, review.id),
      del(review.id, otherDone.id),
      del(review.id, 99999999),
      del(99999999, toDo.id),
      adminRefuses(live.db.url, ['status', 'delete', '--id', String(review.id)]),
    ]);
    assert.match(lines[0]!, /is the default and cannot be deleted\. Make another status the default first\./);
    assert.match(lines[1]!, /cannot move to the status being deleted/);
    assert.match(
      lines[2]!,
      new RegExp(`^Task status ${otherDone.id}, to move the tasks to, is not a status of this team\\.`),
    );
    assert.match(lines[3]!, /^Task status 99999999, to move the tasks to, is not a status of this team\./);
    assert.match(lines[4]!, /^status 99999999 not found/);
    assert.match(lines[5]!, /^missing --move-to/);
    assert.deepEqual(await statusesOf(owner), before);
    assert.equal(expectStatus(await owner.api.get(`/v1/tasks/${task.id}`), 200).taskStatusId, review.id);
  });

  test('after making another status the default, the former default can be deleted', async () => {
    const { owner } = await team();
    const [toDo, doing] = await statusesOf(owner);
    await admin('status', 'update', '--id', String(doing!.id), '--default');
    await admin('status', 'delete', '--id', String(toDo!.id), '--move-to', String(doing!.id));
    assert.deepEqual(named(await statusesOf(owner)), ['1 In progress', '2 Done']);
  });
});

describe('status changes racing task writers', { timeout: 6 * TIMEOUT }, () => {
  const ROUNDS = 8;

  /** Asserts each task's isCompleted and its answer in the list filter agree (the copies are right). */
  async function copiesMatch(owner: Actor, listId: number, taskIds: number[], context: string) {
    const completed = new Set(await listFilter(owner, listId, true));
    const open = new Set(await listFilter(owner, listId, false));
    for (const taskId of taskIds) {
      const task = expectStatus(await owner.api.get(`/v1/tasks/${taskId}`), 200);
      assert.equal(completed.has(taskId), task.isCompleted, `${context}: task ${taskId} in the wrong filter`);
      assert.equal(open.has(taskId), !task.isCompleted, `${context}: task ${taskId} in the wrong filter`);
    }
  }

  /**
   * Four new tasks of the list, PATCHed into the status a few milliseconds apart while `change`
   * runs (a status change made as the operator makes it); resolves to the tasks and the answers.
   */
  async function patchIntoStatus(owner: Actor, listId: number, statusId: number, change: () => Promise<unknown>) {
    const tasks = await Promise.all(
      [1, 2, 3, 4].map(async (n) =>
        expectStatus(await owner.api.post('/v1/tasks', { title: `task ${n}`, taskListIds: [listId] }), 201),
      ),
    );
    const patches = tasks.map((task, i) =>
      new Promise((resolve) => setTimeout(resolve, i * 2)).then(() =>
        owner.api.patch(`/v1/tasks/${task.id}`, { taskStatusId: statusId }),
      ),
    );
    const [answers] = await Promise.all([Promise.all(patches), change()]);
    return { taskIds: tasks.map((t: { id: number }) => t.id), answers };
  }

  test('tasks moved into a status while it is deleted: each PATCH answers 200 or 400, none keeps the deleted status, copies stay right', async () => {
    const { id, owner, list } = await team();
    const done = byName(await statusesOf(owner), 'Done');
    for (let round = 0; round < ROUNDS; round++) {
      const doomed = await createStatus(live.server.store, id, {
        name: `Doomed ${round}`,
        color: null,
        isDefault: false,
        isCompleted: false,
      });
      const { taskIds, answers } = await patchIntoStatus(owner, list.id, doomed.id, () =>
        deleteStatus(live.server.store, id, doomed.id, done.id),
      );
      for (const answer of answers) {
        assert.ok([200, 400].includes(answer.status), `round ${round}: ${answer.status} ${answer.text}`);
      }
      for (const taskId of taskIds) {
        const read = expectStatus(await owner.api.get(`/v1/tasks/${taskId}`), 200);
        assert.notEqual(read.taskStatusId, doomed.id, `round ${round}: task ${taskId} kept the deleted status`);
      }
      await copiesMatch(owner, list.id, taskIds, `round ${round}`);
    }
  });

  test('tasks moved into a status while its isCompleted changes: the copies follow whichever came last', async () => {
    const { id, owner, list } = await team();
    const flip = await createStatus(live.server.store, id, {
      name: 'Flip',
      color: null,
      isDefault: false,
      isCompleted: false,
    });
    for (let round = 0; round < ROUNDS; round++) {
      const { taskIds, answers } = await patchIntoStatus(owner, list.id, flip.id, () =>
        updateStatus(live.server.store, id, flip.id, { isCompleted: round % 2 === 0 }),
      );
      for (const answer of answers) expectStatus(answer, 200);
      await copiesMatch(owner, list.id, taskIds, `round ${round}`);
    }
  });

  test('statuses created and made default at the same moment leave one default, and ties at one order each make room', async () => {
    const { id, owner } = await team();
    for (let round = 0; round < ROUNDS; round++) {
      const current = await statusesOf(owner);
      await Promise.all([
        createStatus(live.server.store, id, {
          name: `A${round}`,
          color: null,
          isDefault: true,
          isCompleted: false,
          order: 1,
        }),
        createStatus(live.server.store, id, {
          name: `B${round}`,
          color: null,
          isDefault: false,
          isCompleted: false,
          order: 1,
        }),
        updateStatus(live.server.store, id, current.at(-1)!.id, { isDefault: true, order: 1 }),
      ]);
      const statuses = await statusesOf(owner);
      assert.equal(statuses.filter((s) => s.isDefault).length, 1, `round ${round}: ${JSON.stringify(statuses)}`);
      const orders = statuses.map((s) => s.order);
      assert.equal(new Set(orders).size, orders.length, `round ${round}: orders ${orders}`);
    }
  });
});
