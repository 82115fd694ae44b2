/**
 * GET /v1/tasks/{id}/activity, and what every change of a task records there: its creation,
 * each changed field with its value before and after, assignees and lists, its comments. Only
 * committed changes leave an entry; a change of nothing leaves none; a list is never named to
 * someone outside it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { deleteStatus } from '../../src/statuses/statuses.service.js';
import { deleteMember } from '../../src/team/teams.repository.js';
import { createTestTeam } from '../factories.js';
import { expectError, expectStatus, startTestServer, TEST_STORE, type TestServer } from '../harness.js';
import { activityOf, ENTRY_KEYS, newestEntry, newList, newTask, person, statusesOf, type Entry } from './support.js';

const isIsoTimestamp = (value: string) => new Date(value).toISOString() === value;

describe(`task activity (${TEST_STORE})`, () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  describe('what is recorded', () => {
    test('creating a task records task.created by its creator, with no changes', async () => {
      const { owner } = await createTestTeam(server);
      const task = await newTask(owner, { title: 'Plan the launch', priority: 'high' });
      const entries = await activityOf(owner, task.id);
      assert.equal(entries.length, 1, JSON.stringify(entries));
      const [entry] = entries as [Entry];
      assert.deepEqual(Object.keys(entry).sort(), ENTRY_KEYS);
      assert.deepEqual(
        { ...entry, id: 0, createdAt: '' },
        {
          id: 0,
          taskId: task.id,
          actor: person(owner),
          kind: 'task.created',
          changes: {},
          createdAt: '',
          shortened: false,
        },
      );
      assert.equal(typeof entry.id, 'number');
      assert.ok(isIsoTimestamp(entry.createdAt), entry.createdAt);
    });

    test('a PATCH records one task.updated entry with each changed field from and to, and the status by id and name', async () => {
      const { owner } = await createTestTeam(server);
      const statuses = await statusesOf(owner);
      const task = await newTask(owner, { title: 'Old', description: 'Before', dueDate: '2030-11-30' });
      expectStatus(
        await owner.api.patch(`/v1/tasks/${task.id}`, {
          title: 'New',
          description: null,
          priority: 'urgent',
          dueDate: '2030-12-05',
          taskStatusId: statuses['Done']!.id,
        }),
        200,
      );
      const entries = await activityOf(owner, task.id);
      assert.deepEqual(
        entries.map((e) => e.kind),
        ['task.updated', 'task.created'],
      );
      assert.equal(entries[0]!.actor?.id, owner.userId);
      assert.deepEqual(entries[0]!.changes, {
        title: { from: 'Old', to: 'New' },
        description: { from: 'Before', to: null },
        priority: { from: null, to: 'urgent' },
        dueDate: { from: '2030-11-30', to: '2030-12-05' },
        status: {
          from: { id: statuses['To do']!.id, name: 'To do' },
          to: { id: statuses['Done']!.id, name: 'Done' },
        },
      });
    });

    test('only fields whose value changes are recorded; a PATCH that changes nothing records nothing', async () => {
      const { owner } = await createTestTeam(server);
      const list = await newList(owner, 'Kept');
      const task = await newTask(owner, { title: 'Same', priority: 'low', taskListIds: [list.id] });
      const before = await activityOf(owner, task.id);
      // The same values again, lists and assignees in another order included, and an empty PATCH.
      const statuses = await statusesOf(owner);
      expectStatus(
        await owner.api.patch(`/v1/tasks/${task.id}`, {
          title: 'Same',
          priority: 'low',
          dueDate: null,
          taskStatusId: statuses['To do']!.id,
          taskListIds: [list.id],
          assigneeIds: [],
        }),
        200,
      );
      expectStatus(await owner.api.patch(`/v1/tasks/${task.id}`, {}), 200);
      assert.deepEqual(await activityOf(owner, task.id), before);
      // One changed field among unchanged ones: only it.
      expectStatus(await owner.api.patch(`/v1/tasks/${task.id}`, { title: 'Same', priority: 'high' }), 200);
      assert.deepEqual((await newestEntry(owner, task.id)).changes, { priority: { from: 'low', to: 'high' } });
    });

    test('assignees and lists are recorded as whole sets before and after, people by name and lists by id', async () => {
      const team = await createTestTeam(server);
      const { owner } = team;
      const ada = await team.member({ name: 'Ada' });
      const bo = await team.member({ name: 'Bo' });
      const first = await newList(owner, 'First');
      const second = await newList(owner, 'Second');
      const task = await newTask(owner, { assigneeIds: [bo.userId], taskListIds: [first.id] });
      expectStatus(
        await owner.api.patch(`/v1/tasks/${task.id}`, {
          assigneeIds: [bo.userId, ada.userId],
          taskListIds: [second.id, first.id],
        }),
        200,
      );
      assert.deepEqual((await newestEntry(owner, task.id)).changes, {
        assignees: { from: [person(bo)], to: [person(ada), person(bo)] },
        taskLists: { from: [first], to: [first, second] },
      });
      expectStatus(await owner.api.patch(`/v1/tasks/${task.id}`, { assigneeIds: [], taskListIds: [] }), 200);
      assert.deepEqual((await newestEntry(owner, task.id)).changes, {
        assignees: { from: [person(ada), person(bo)], to: [] },
        taskLists: { from: [first, second], to: [] },
      });
    });

    test('comments added, edited and deleted are recorded with the comment id', async () => {
      const { owner } = await createTestTeam(server);
      const task = await newTask(owner);
      const comment = expectStatus(await owner.api.post(`/v1/tasks/${task.id}/comments`, { body: 'First' }), 201);
      const path = `/v1/tasks/${task.id}/comments/${comment.id}`;
      expectStatus(await owner.api.patch(path, { body: 'First, edited' }), 200);
      expectStatus(await owner.api.delete(path), 200);
      const entries = (await activityOf(owner, task.id)).slice(0, 3).reverse();
      assert.deepEqual(
        entries.map((e) => [e.kind, e.actor?.id, e.changes]),
        [
          ['comment.created', owner.userId, { commentId: { from: null, to: comment.id } }],
          ['comment.updated', owner.userId, { commentId: { from: comment.id, to: comment.id } }],
          ['comment.deleted', owner.userId, { commentId: { from: comment.id, to: null } }],
        ],
      );
    });

    test('deleting a parent records on each subtask that its parentId went to null, by the deleter', async () => {
      const team = await createTestTeam(server);
      const deleter = await team.member({ name: 'Deleter' });
      const parent = await newTask(team.owner, { assigneeIds: [deleter.userId] });
      const subtask = await newTask(team.owner, { parentId: parent.id, assigneeIds: [deleter.userId] });
      expectStatus(await deleter.api.delete(`/v1/tasks/${parent.id}`), 200);
      const entry = await newestEntry(team.owner, subtask.id);
      assert.equal(entry.kind, 'task.updated');
      assert.deepEqual(entry.actor, person(deleter));
      assert.deepEqual(entry.changes, { parentId: { from: parent.id, to: null } });
    });

    test('deleting a status with --move-to records the move on each of its tasks, with no actor (the operator)', async () => {
      const { owner, id: teamId } = await createTestTeam(server);
      const statuses = await statusesOf(owner);
      const moved = await newTask(owner, { taskStatusId: statuses['In progress']!.id });
      const untouched = await newTask(owner);
      await deleteStatus(server.store, teamId, statuses['In progress']!.id, statuses['Done']!.id);
      const entry = await newestEntry(owner, moved.id);
      assert.equal(entry.actor, null);
      assert.deepEqual(entry.changes, {
        status: {
          from: { id: statuses['In progress']!.id, name: 'In progress' },
          to: { id: statuses['Done']!.id, name: 'Done' },
        },
      });
      assert.equal((await activityOf(owner, untouched.id)).length, 1);
    });

    test('removing a member from the team records, on each task they were assigned to, that they no longer are', async () => {
      const team = await createTestTeam(server);
      const leaver = await team.member({ name: 'Leaver' });
      const stayer = await team.member({ name: 'Stayer' });
      const task = await newTask(team.owner, { assigneeIds: [leaver.userId, stayer.userId] });
      const other = await newTask(team.owner, { assigneeIds: [stayer.userId] });
      assert.equal(await deleteMember(server.store.db, team.id, leaver.userId), true);
      const entry = await newestEntry(team.owner, task.id);
      assert.equal(entry.actor, null);
      assert.deepEqual(entry.changes, { assignees: { from: [person(leaver), person(stayer)], to: [person(stayer)] } });
      assert.equal((await activityOf(team.owner, other.id)).length, 1);
    });
  });

  describe('a list the reader is not a member of is never named', () => {
    test('lists outside the reader are left out of from and to; a change only of them stays as an entry without it', async () => {
      const team = await createTestTeam(server);
      const { owner } = team;
      const mate = await team.member({ name: 'Mate' });
      const hidden = await newList(owner, 'Hidden listsecret42');
      const shared = await newList(owner, 'Shared', [mate]);
      const task = await newTask(owner, { taskListIds: [hidden.id], assigneeIds: [mate.userId] });

      expectStatus(await owner.api.patch(`/v1/tasks/${task.id}`, { taskListIds: [hidden.id, shared.id] }), 200);
      expectStatus(await owner.api.patch(`/v1/tasks/${task.id}`, { taskListIds: [shared.id] }), 200);

      const seenByOwner = await activityOf(owner, task.id);
      assert.deepEqual(
        seenByOwner.slice(0, 2).map((e) => e.changes.taskLists),
        [
          { from: [hidden, shared], to: [shared] },
          { from: [hidden], to: [hidden, shared] },
        ],
      );
      const response = await mate.api.get(`/v1/tasks/${task.id}/activity`);
      const seenByMate: Entry[] = expectStatus(response, 200);
      assert.ok(!response.text.includes('listsecret42'), response.text);
      assert.ok(!response.text.includes(`"id":${hidden.id},`), response.text);
      assert.deepEqual(
        seenByMate.map((e) => [e.kind, e.changes]),
        [
          ['task.updated', {}],
          ['task.updated', { taskLists: { from: [], to: [shared] } }],
          ['task.created', {}],
        ],
      );
      assert.deepEqual(
        seenByMate.map((e) => e.id),
        seenByOwner.map((e) => e.id),
      );
    });
  });

  describe('changes that do not commit leave no entry', () => {
    test('a PATCH refused after its first checks (a list it may not use) records nothing and changes nothing', async () => {
      const team = await createTestTeam(server);
      const other = await team.member();
      const theirs = await newList(other, 'Theirs');
      const task = await newTask(team.owner, { title: 'Kept' });
      const before = await activityOf(team.owner, task.id);
      expectError(
        await team.owner.api.patch(`/v1/tasks/${task.id}`, {
          title: 'Lost',
          assigneeIds: [other.userId],
          taskListIds: [theirs.id],
        }),
        400,
      );
      assert.deepEqual(await activityOf(team.owner, task.id), before);
      assert.equal(expectStatus(await team.owner.api.get(`/v1/tasks/${task.id}`), 200).title, 'Kept');
    });

    test('a PATCH or DELETE with an If-Match that no longer matches records nothing', async () => {
      const { owner } = await createTestTeam(server);
      const created = await owner.api.post('/v1/tasks', { title: 'Versioned' });
      const task = expectStatus(created, 201);
      const stale = created.headers.get('etag')!;
      expectStatus(await owner.api.patch(`/v1/tasks/${task.id}`, { title: 'Second' }), 200);
      const before = await activityOf(owner, task.id);
      expectError(await owner.api.patch(`/v1/tasks/${task.id}`, { title: 'Third' }, { 'if-match': stale }), 412);
      expectError(await owner.api.delete(`/v1/tasks/${task.id}`, { 'if-match': stale }), 412);
      assert.deepEqual(await activityOf(owner, task.id), before);
    });
  });

  describe('paging', () => {
    test('newest first; limit and the before cursor walk the whole history once, in order', async () => {
      const { owner } = await createTestTeam(server);
      const task = await newTask(owner, { title: 'v0' });
      for (let i = 1; i <= 6; i++) expectStatus(await owner.api.patch(`/v1/tasks/${task.id}`, { title: `v${i}` }), 200);
      const all = await activityOf(owner, task.id);
      assert.equal(all.length, 7);
      assert.deepEqual(
        all.map((e) => e.changes.title?.to ?? 'created'),
        ['v6', 'v5', 'v4', 'v3', 'v2', 'v1', 'created'],
      );
      const walked: Entry[] = [];
      let cursor = '';
      for (;;) {
        const page = await activityOf(owner, task.id, `?limit=3${cursor}`);
        walked.push(...page);
        if (page.length < 3) break;
        cursor = `&before=${page.at(-1)!.id}`;
      }
      assert.deepEqual(walked, all);
      assert.equal((await activityOf(owner, task.id)).length, 7, 'the default page holds up to 50');
      // A cursor beyond every id there can be stands after all of them.
      assert.deepEqual(await activityOf(owner, task.id, '?before=9999999999'), all);
      assert.deepEqual(await activityOf(owner, task.id, `?before=${all.at(-1)!.id}`), []);
    });

    test('a malformed limit or before is a 400 naming the parameter', async () => {
      const { owner } = await createTestTeam(server);
      const task = await newTask(owner);
      const path = `/v1/tasks/${task.id}/activity`;
      for (const limit of ['0', '201', 'ten', '-1', '1.5', '']) {
        expectError(await owner.api.get(`${path}?limit=${limit}`), 400, 'limit must be a whole number from 1 to 200.');
      }
      for (const cursor of ['0', 'abc', '-3', '07']) {
        expectError(
          await owner.api.get(`${path}?before=${cursor}`),
          400,
          'before must be the id of an activity entry (a positive whole number).',
        );
      }
      expectError(await owner.api.get(`${path}?before=12345678901`), 400, /before must be at most 10 characters/);
      expectError(await owner.api.get(`${path}?after=1`), 400, /Unknown query parameter after/);
      expectStatus(await owner.api.get(`${path}?limit=200`), 200);
      expectStatus(await owner.api.get(`${path}?limit=1`), 200);
    });
  });

  describe('access: answers exactly as GET /v1/tasks/{id}', () => {
    test('a missing task, another team’s task and a task the caller may not access get the task’s own answers', async () => {
      const team = await createTestTeam(server);
      const outsider = await team.member();
      const stranger = (await createTestTeam(server)).owner;
      const task = await newTask(team.owner);
      const cases = [
        { who: outsider, id: String(task.id), status: 403 },
        { who: stranger, id: String(task.id), status: 404 },
        { who: team.owner, id: '2147480001', status: 404 },
        { who: team.owner, id: '99999999999', status: 404 },
        { who: team.owner, id: 'abc', status: 400 },
      ];
      for (const { who, id, status } of cases) {
        const expected = await who.api.get(`/v1/tasks/${id}`);
        const got = await who.api.get(`/v1/tasks/${id}/activity`);
        expectError(expected, status);
        assert.deepEqual([got.status, got.body], [expected.status, expected.body], `GET …/${id}/activity`);
      }
    });
  });

  describe('deleting a task', () => {
    test('deletes its activity and its comments with it', async () => {
      const { owner } = await createTestTeam(server);
      const task = await newTask(owner);
      const kept = await newTask(owner);
      expectStatus(await owner.api.patch(`/v1/tasks/${task.id}`, { title: 'Changed' }), 200);
      expectStatus(await owner.api.post(`/v1/tasks/${task.id}/comments`, { body: 'Gone soon' }), 201);
      expectStatus(await owner.api.post(`/v1/tasks/${kept.id}/comments`, { body: 'Stays' }), 201);
      expectStatus(await owner.api.delete(`/v1/tasks/${task.id}`), 200);
      const rows = async (table: 'task_activity' | 'task_comments', taskId: number) =>
        (await server.store.db.selectFrom(table).select('id').where('task_id', '=', taskId).execute()).length;
      assert.equal(await rows('task_activity', task.id), 0);
      assert.equal(await rows('task_comments', task.id), 0);
      assert.equal(await rows('task_activity', kept.id), 2);
      assert.equal(await rows('task_comments', kept.id), 1);
      expectError(await owner.api.get(`/v1/tasks/${task.id}/activity`), 404, `Task ${task.id} not found.`);
    });
  });
});
