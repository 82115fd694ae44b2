/**
 * Comments on a task: /v1/tasks/{id}/comments. Access is the task's, with the task's answers;
 * only the author edits, the author or the team's owners and admins delete; the body follows the
 * rules of a description; POST takes Idempotency-Key, PATCH and DELETE take If-Match.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestTeam, type Actor } from '../factories.js';
import { expectError, expectStatus, startTestServer, TEST_STORE, type TestServer } from '../harness.js';
import { activityOf, newTask, person } from './support.js';

const COMMENT_KEYS = ['author', 'body', 'createdAt', 'id', 'taskId', 'updatedAt'];
const BODY_RULE =
  'body must be a string of 1 to 20,000 characters (CommonMark) with at least one non-whitespace character.';

const comment = async (actor: Actor, taskId: number, body: string) =>
  expectStatus(await actor.api.post(`/v1/tasks/${taskId}/comments`, { body }), 201);

const commentsOf = async (actor: Actor, taskId: number, query = '') =>
  expectStatus(await actor.api.get(`/v1/tasks/${taskId}/comments${query}`), 200) as { id: number; body: string }[];

describe(`comments (${TEST_STORE})`, () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  describe('writing and reading', () => {
    test('POST answers 201 with the comment, its author and an ETag; GET lists them oldest first', async () => {
      const team = await createTestTeam(server);
      const mate = await team.member({ name: 'Mate' });
      const task = await newTask(team.owner, { assigneeIds: [mate.userId] });
      const response = await team.owner.api.post(`/v1/tasks/${task.id}/comments`, { body: '**Looks** good' });
      const first = expectStatus(response, 201);
      assert.deepEqual(Object.keys(first).sort(), COMMENT_KEYS);
      assert.equal(first.taskId, task.id);
      assert.deepEqual(first.author, person(team.owner));
      assert.equal(first.body, '**Looks** good');
      assert.equal(first.updatedAt, first.createdAt);
      assert.match(response.headers.get('etag') ?? '', /^"v\d+"$/);
      const second = await comment(mate, task.id, 'Agreed');
      assert.deepEqual(await commentsOf(mate, task.id), [first, second]);
      const single = await mate.api.get(`/v1/tasks/${task.id}/comments/${first.id}`);
      assert.deepEqual(expectStatus(single, 200), first);
      assert.equal(single.headers.get('etag'), response.headers.get('etag'));
    });

    test('limit and the after cursor page through the comments oldest first', async () => {
      const { owner } = await createTestTeam(server);
      const task = await newTask(owner);
      for (let i = 1; i <= 5; i++) await comment(owner, task.id, `c${i}`);
      const walked: string[] = [];
      let cursor = '';
      for (;;) {
        const page = await commentsOf(owner, task.id, `?limit=2${cursor}`);
        walked.push(...page.map((c) => c.body));
        if (page.length < 2) break;
        cursor = `&after=${page.at(-1)!.id}`;
      }
      assert.deepEqual(walked, ['c1', 'c2', 'c3', 'c4', 'c5']);
      assert.deepEqual(await commentsOf(owner, task.id, '?after=9999999999'), []);
      expectError(await owner.api.get(`/v1/tasks/${task.id}/comments?limit=0`), 400, /^limit must be/);
      expectError(
        await owner.api.get(`/v1/tasks/${task.id}/comments?after=x`),
        400,
        'after must be the id of a comment (a positive whole number).',
      );
    });

    test('the body is CommonMark of 1 to 20,000 characters, not blank, under the text rules of descriptions', async () => {
      const { owner } = await createTestTeam(server);
      const task = await newTask(owner);
      const path = `/v1/tasks/${task.id}/comments`;
      for (const body of ['', '   \n\t', 5, null]) {
        expectError(await owner.api.post(path, { body }), 400, BODY_RULE);
      }
      // As for descriptions, a size limit is named with its number.
      expectError(
        await owner.api.post(path, { body: 'x'.repeat(20_001) }),
        400,
        'body must be at most 20,000 characters long.',
      );
      expectError(await owner.api.post(path, {}), 400, 'body is required.');
      expectError(await owner.api.post(path, { body: 'a\u0000b' }), 400, /NUL characters/);
      // The limit counts characters (code points), as for descriptions.
      assert.equal((await comment(owner, task.id, '😀'.repeat(20_000))).body.length, 40_000);
      assert.equal(expectStatus(await owner.api.get(path), 200).length, 1, 'the refused ones left nothing');
    });
  });

  describe('editing and deleting', () => {
    test('the author edits: the body, updatedAt and the ETag change; the same body again changes nothing', async () => {
      const { owner } = await createTestTeam(server);
      const task = await newTask(owner);
      const created = await comment(owner, task.id, 'Draft');
      const path = `/v1/tasks/${task.id}/comments/${created.id}`;
      const edited = await owner.api.patch(path, { body: 'Final' });
      const body = expectStatus(edited, 200);
      assert.equal(body.body, 'Final');
      assert.ok(body.updatedAt > created.updatedAt, `${body.updatedAt} after ${created.updatedAt}`);
      assert.equal(body.createdAt, created.createdAt);
      assert.equal(edited.headers.get('etag'), '"v2"');
      const entries = (await activityOf(owner, task.id)).length;
      const again = await owner.api.patch(path, { body: 'Final' }, { 'if-match': '"v2"' });
      assert.deepEqual(expectStatus(again, 200), body);
      assert.equal(again.headers.get('etag'), '"v2"');
      assert.equal((await activityOf(owner, task.id)).length, entries);
    });

    test('only the author may edit, even an owner may not; only the author, owners and admins may delete', async () => {
      const team = await createTestTeam(server);
      const author = await team.member({ name: 'Author' });
      const peer = await team.member({ name: 'Peer' });
      const admin = await team.member({ name: 'Admin', role: 'admin' });
      const task = await newTask(author, { assigneeIds: [peer.userId, admin.userId, team.owner.userId] });
      const first = await comment(author, task.id, 'Mine');
      const path = (c: { id: number }) => `/v1/tasks/${task.id}/comments/${c.id}`;
      for (const someone of [peer, admin, team.owner]) {
        expectError(
          await someone.api.patch(path(first), { body: 'Theirs' }),
          403,
          'Only its author may edit a comment.',
        );
      }
      expectError(
        await peer.api.delete(path(first)),
        403,
        "Only its author, or the team's owners and admins, may delete a comment.",
      );
      assert.equal((await commentsOf(author, task.id))[0]!.body, 'Mine');
      const second = await comment(author, task.id, 'Second');
      const third = await comment(author, task.id, 'Third');
      assert.deepEqual(expectStatus(await admin.api.delete(path(first)), 200), {
        id: first.id,
        taskId: task.id,
        deleted: true,
      });
      expectStatus(await team.owner.api.delete(path(second)), 200);
      expectStatus(await author.api.delete(path(third)), 200);
      assert.deepEqual(await commentsOf(author, task.id), []);
      expectError(await author.api.delete(path(third)), 404, `Comment ${third.id} not found.`);
    });

    test('If-Match naming an older version: PATCH and DELETE answer 412 and change nothing', async () => {
      const { owner } = await createTestTeam(server);
      const task = await newTask(owner);
      const created = await comment(owner, task.id, 'One');
      const path = `/v1/tasks/${task.id}/comments/${created.id}`;
      expectStatus(await owner.api.patch(path, { body: 'Two' }, { 'if-match': '"v1"' }), 200);
      const entries = await activityOf(owner, task.id);
      expectError(await owner.api.patch(path, { body: 'Three' }, { 'if-match': '"v1"' }), 412, /comment has changed/);
      expectError(await owner.api.delete(path, { 'if-match': '"v1"' }), 412, /comment has changed/);
      assert.equal((await commentsOf(owner, task.id))[0]!.body, 'Two');
      assert.deepEqual(await activityOf(owner, task.id), entries);
      expectStatus(await owner.api.delete(path, { 'if-match': '"v2"' }), 200);
    });

    test('a comment id that is not one of the task’s is 404, whether it exists under another task or nowhere', async () => {
      const { owner } = await createTestTeam(server);
      const task = await newTask(owner);
      const other = await newTask(owner);
      const elsewhere = await comment(owner, other.id, 'Elsewhere');
      for (const id of [String(elsewhere.id), '2147480001', '99999999999']) {
        const path = `/v1/tasks/${task.id}/comments/${id}`;
        expectError(await owner.api.get(path), 404, `Comment ${id} not found.`);
        expectError(await owner.api.patch(path, { body: 'x' }), 404, `Comment ${id} not found.`);
        expectError(await owner.api.delete(path), 404, `Comment ${id} not found.`);
      }
      expectError(await owner.api.get(`/v1/tasks/${task.id}/comments/abc`), 400, 'commentId must be a number.');
    });
  });

  describe('access: the task’s, with the task’s answers', () => {
    test('every comment endpoint answers a missing, another team’s or an inaccessible task as GET /v1/tasks/{id} does', async () => {
      const team = await createTestTeam(server);
      const outsider = await team.member();
      const stranger = (await createTestTeam(server)).owner;
      const task = await newTask(team.owner);
      const existing = await comment(team.owner, task.id, 'Private');
      const cases = [
        { who: outsider, id: String(task.id) },
        { who: stranger, id: String(task.id) },
        { who: team.owner, id: '2147480001' },
      ];
      for (const { who, id } of cases) {
        const expected = await who.api.get(`/v1/tasks/${id}`);
        const answers = [
          await who.api.get(`/v1/tasks/${id}/comments`),
          await who.api.post(`/v1/tasks/${id}/comments`, { body: 'Hello' }),
          await who.api.get(`/v1/tasks/${id}/comments/${existing.id}`),
          await who.api.patch(`/v1/tasks/${id}/comments/${existing.id}`, { body: 'Hello' }),
          await who.api.delete(`/v1/tasks/${id}/comments/${existing.id}`),
        ];
        for (const got of answers) {
          assert.deepEqual([got.status, got.body], [expected.status, expected.body], `task ${id}`);
        }
      }
      assert.deepEqual(
        (await commentsOf(team.owner, task.id)).map((c) => c.body),
        ['Private'],
      );
    });

    test('anyone who may access the task (a list member, an assignee) may comment', async () => {
      const team = await createTestTeam(server);
      const member = await team.member({ name: 'List member' });
      const assignee = await team.member({ name: 'Assignee' });
      const list = expectStatus(await team.owner.api.post('/v1/lists', { name: 'L' }), 201);
      expectStatus(await team.owner.api.post(`/v1/lists/${list.id}/members`, { userId: member.userId }), 201);
      const task = await newTask(team.owner, { taskListIds: [list.id], assigneeIds: [assignee.userId] });
      await comment(member, task.id, 'From the list');
      await comment(assignee, task.id, 'From the assignee');
      assert.equal((await commentsOf(team.owner, task.id)).length, 2);
    });
  });

  describe('Idempotency-Key', () => {
    test('a POST retried with the same key answers the first comment again and adds no second one', async () => {
      const { owner } = await createTestTeam(server);
      const task = await newTask(owner);
      const send = () =>
        owner.api.post(`/v1/tasks/${task.id}/comments`, { body: 'Once' }, { 'idempotency-key': 'comment-1' });
      const first = await send();
      const retry = await send();
      assert.deepEqual(expectStatus(retry, 201), expectStatus(first, 201));
      assert.equal(retry.headers.get('idempotent-replayed'), 'true');
      assert.equal(retry.headers.get('etag'), first.headers.get('etag'));
      assert.equal((await commentsOf(owner, task.id)).length, 1);
      const created = (await activityOf(owner, task.id)).filter((e) => e.kind === 'comment.created');
      assert.equal(created.length, 1);
    });
  });
});
