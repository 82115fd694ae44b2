/**
 * Labels (issue 29) over HTTP, on the store under test: the team's labels (GET, and POST, PATCH,
 * DELETE by owners and admins), a task's `labelIds` and `labels`, the label filter and
 * `include=labels` of GET /v1/tasks, and what each change leaves: activity entries and events.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { insertLabel } from '../src/labels/labels.repository.js';
import { live } from './events/support.js';
import { createTestTeam, type Actor, type Team } from './factories.js';
import { expectError, expectStatus, startTestServer, TEST_STORE, type TestServer } from './harness.js';
import { closeAllStreams, show } from './sse/stream.js';
import { together } from './together.js';

let server: TestServer;
before(async () => {
  server = await startTestServer({ EVENTS_HEARTBEAT_SECONDS: '1' });
});
after(async () => {
  await closeAllStreams();
  await server.close();
});

const MANAGERS_ONLY = "Only the team's owners and admins can manage labels.";

interface Label {
  id: number;
  name: string;
  color: string;
}

const labelsOf = async (actor: Actor): Promise<Label[]> => expectStatus(await actor.api.get('/v1/labels'), 200);
const createLabel = async (actor: Actor, name: string, color?: string): Promise<Label> =>
  expectStatus(await actor.api.post('/v1/labels', { name, ...(color && { color }) }), 201);
const detailOf = async (actor: Actor, taskId: number) => expectStatus(await actor.api.get(`/v1/tasks/${taskId}`), 200);
const ids = (items: { id: number }[]) => items.map((item) => item.id);

describe(`labels of the team (${TEST_STORE})`, () => {
  test('every member sees the team’s labels by name ignoring case, and no other team’s', async () => {
    const team = await createTestTeam(server);
    const other = await createTestTeam(server);
    const member = await team.member();
    const bug = await createLabel(team.owner, 'bug', 'Red');
    const api = await createLabel(team.owner, 'API');
    const chore = await createLabel(team.owner, 'Chore', 'Teal');
    await createLabel(other.owner, 'Secret');
    assert.deepEqual(await labelsOf(member), [api, bug, chore]);
    assert.deepEqual(api, { id: api.id, name: 'API', color: 'Gray' }, 'a new label is Gray unless a colour is given');
  });

  test('owners and admins create; a plain member gets 403; bad fields are a 400 naming them; nothing is added', async () => {
    const team = await createTestTeam(server);
    const admin = await team.member({ role: 'admin' });
    const member = await team.member();
    await createLabel(admin, 'By an admin', 'Purple');
    expectError(await member.api.post('/v1/labels', { name: 'By a member' }), 403, MANAGERS_ONLY);
    for (const [body, message] of [
      [{}, 'name is required.'],
      [{ name: '  ' }, 'name must be 1 to 50 characters with at least one non-whitespace character.'],
      [{ name: 'x'.repeat(51) }, /name must be/],
      [{ name: 'Hue', color: 'purple' }, /^color must be one of: Gray, Red/],
    ] as const) {
      expectError(await team.owner.api.post('/v1/labels', body), 400, message);
    }
    assert.deepEqual(
      (await labelsOf(team.owner)).map((l) => l.name),
      ['By an admin'],
    );
  });

  test('a name is unique in the team ignoring case: a second one is a 409, also when two are created at once', async () => {
    const team = await createTestTeam(server);
    const other = await createTestTeam(server);
    await createLabel(team.owner, 'Urgent');
    expectError(
      await team.owner.api.post('/v1/labels', { name: 'uRGENT' }),
      409,
      'A label named "uRGENT" already exists in this team.',
    );
    await createLabel(other.owner, 'Urgent'); // another team's names are its own
    const answers = await together(server.url, [
      { method: 'POST', path: '/v1/labels', key: team.owner.key, body: { name: 'Twice' } },
      { method: 'POST', path: '/v1/labels', key: team.owner.key, body: { name: 'TWICE' } },
    ]);
    assert.deepEqual(answers.map((a) => a.status).sort(), [201, 409], answers.map((a) => a.text).join(' | '));
    assert.deepEqual(
      (await labelsOf(team.owner)).map((l) => l.name.toLowerCase()),
      ['twice', 'urgent'],
    );
  });

  test('a team has at most 100 labels: the 101st is a 400 that says so, and is not added', async () => {
    const team = await createTestTeam(server);
    for (let i = 0; i < 99; i++) await insertLabel(server.store.db, team.id, { name: `Label ${i}`, color: 'Gray' });
    await createLabel(team.owner, 'The hundredth');
    expectError(
      await team.owner.api.post('/v1/labels', { name: 'One too many' }),
      400,
      'A team can have at most 100 labels; delete one before adding another.',
    );
    assert.equal((await labelsOf(team.owner)).length, 100);
  });

  test("renaming or recolouring answers the label as it now is and changes its tasks' answers and ETags; a clash is a 409", async () => {
    const team = await createTestTeam(server);
    const label = await createLabel(team.owner, 'bug');
    const other = await createLabel(team.owner, 'Feature');
    const task = expectStatus(await team.owner.api.post('/v1/tasks', { title: 'Tagged', labelIds: [label.id] }), 201);
    const etagOf = async () => (await team.owner.api.get(`/v1/tasks/${task.id}`)).headers.get('etag');
    const first = await etagOf();
    const renamed = expectStatus(await team.owner.api.patch(`/v1/labels/${label.id}`, { name: 'Bug' }), 200);
    assert.deepEqual(renamed, { id: label.id, name: 'Bug', color: 'Gray' }, 'its own name in another case is free');
    assert.deepEqual((await detailOf(team.owner, task.id)).labels, [renamed]);
    assert.notEqual(await etagOf(), first);
    const second = await etagOf();
    const recoloured = expectStatus(await team.owner.api.patch(`/v1/labels/${label.id}`, { color: 'Red' }), 200);
    assert.equal(recoloured.color, 'Red');
    assert.notEqual(await etagOf(), second);
    expectError(
      await team.owner.api.patch(`/v1/labels/${label.id}`, { name: 'FEATURE' }),
      409,
      'A label named "FEATURE" already exists in this team.',
    );
    assert.deepEqual(await labelsOf(team.owner), [recoloured, other]);
  });

  test('PATCH and DELETE: a member gets 403; an unknown or another team’s label 404; bad fields 400; nothing changes', async () => {
    const team = await createTestTeam(server);
    const other = await createTestTeam(server);
    const member = await team.member();
    const mine = await createLabel(team.owner, 'Mine');
    const theirs = await createLabel(other.owner, 'Theirs');
    expectError(await member.api.patch(`/v1/labels/${mine.id}`, { name: 'Taken' }), 403, MANAGERS_ONLY);
    expectError(await member.api.delete(`/v1/labels/${mine.id}`), 403, MANAGERS_ONLY);
    for (const path of [`/v1/labels/${theirs.id}`, '/v1/labels/2147480001']) {
      const id = path.split('/').at(-1);
      expectError(await team.owner.api.patch(path, { name: 'Nobody' }), 404, `Label ${id} not found.`);
      expectError(await team.owner.api.delete(path), 404, `Label ${id} not found.`);
    }
    expectError(await team.owner.api.patch(`/v1/labels/${mine.id}`, { color: 'Mauve' }), 400, /^color must be one of/);
    expectError(await team.owner.api.patch('/v1/labels/abc', { name: 'x' }), 400, 'labelId must be a number.');
    assert.deepEqual(await labelsOf(team.owner), [mine]);
    assert.deepEqual(await labelsOf(other.owner), [theirs]);
  });

  test("deleting a label takes it off its tasks in the same step: their labels, ETags and activity (by the caller) change; others' don't", async () => {
    const team = await createTestTeam(server);
    const admin = await team.member({ role: 'admin' });
    const doomed = await createLabel(team.owner, 'Doomed', 'Red');
    const kept = await createLabel(team.owner, 'Kept');
    const tagged = expectStatus(
      await team.owner.api.post('/v1/tasks', { title: 'Both', labelIds: [doomed.id, kept.id] }),
      201,
    );
    const untouched = expectStatus(
      await team.owner.api.post('/v1/tasks', { title: 'Kept only', labelIds: [kept.id] }),
      201,
    );
    const etag = (await team.owner.api.get(`/v1/tasks/${tagged.id}`)).headers.get('etag');
    const answer = expectStatus(await admin.api.delete(`/v1/labels/${doomed.id}`), 200);
    assert.deepEqual(answer, { id: doomed.id, deleted: true, untaggedTasks: 1 });
    assert.deepEqual(await labelsOf(team.owner), [kept]);
    assert.deepEqual((await detailOf(team.owner, tagged.id)).labels, [kept]);
    assert.notEqual((await team.owner.api.get(`/v1/tasks/${tagged.id}`)).headers.get('etag'), etag);
    const [entry] = expectStatus(await team.owner.api.get(`/v1/tasks/${tagged.id}/activity`), 200);
    assert.equal(entry.actor.id, admin.userId);
    assert.deepEqual(entry.changes, {
      labels: {
        from: [
          { id: doomed.id, name: 'Doomed' },
          { id: kept.id, name: 'Kept' },
        ],
        to: [{ id: kept.id, name: 'Kept' }],
      },
    });
    assert.equal(expectStatus(await team.owner.api.get(`/v1/tasks/${untouched.id}/activity`), 200).length, 1);
    expectError(await admin.api.delete(`/v1/labels/${doomed.id}`), 404, `Label ${doomed.id} not found.`);
  });
});

describe(`a task's labels (${TEST_STORE})`, () => {
  async function labelled(): Promise<{ team: Team; a: Label; b: Label; c: Label }> {
    const team = await createTestTeam(server);
    const c = await createLabel(team.owner, 'c-label');
    const a = await createLabel(team.owner, 'A-label', 'Blue');
    const b = await createLabel(team.owner, 'b-label');
    return { team, a, b, c };
  }

  test('POST /v1/tasks with labelIds answers, and the detail shows, labels {id, name, color} by name; none is []', async () => {
    const { team, a, c } = await labelled();
    const task = expectStatus(
      await team.owner.api.post('/v1/tasks', { title: 'T', labelIds: [c.id, a.id, a.id] }),
      201,
    );
    assert.deepEqual(task.labels, [a, c]);
    assert.deepEqual((await detailOf(team.owner, task.id)).labels, [a, c]);
    const bare = expectStatus(await team.owner.api.post('/v1/tasks', { title: 'Bare' }), 201);
    assert.deepEqual(bare.labels, []);
    assert.deepEqual((await detailOf(team.owner, bare.id)).labels, []);
  });

  test('PATCH labelIds replaces the set, recorded in the activity from/to; a PATCH without labelIds keeps them', async () => {
    const { team, a, b, c } = await labelled();
    const task = expectStatus(await team.owner.api.post('/v1/tasks', { title: 'T', labelIds: [a.id, b.id] }), 201);
    expectStatus(await team.owner.api.patch(`/v1/tasks/${task.id}`, { labelIds: [c.id, b.id] }), 200);
    assert.deepEqual((await detailOf(team.owner, task.id)).labels, [b, c]);
    const [entry] = expectStatus(await team.owner.api.get(`/v1/tasks/${task.id}/activity`), 200);
    assert.deepEqual(entry.changes, {
      labels: {
        from: [
          { id: a.id, name: a.name },
          { id: b.id, name: b.name },
        ],
        to: [
          { id: b.id, name: b.name },
          { id: c.id, name: c.name },
        ],
      },
    });
    expectStatus(await team.owner.api.patch(`/v1/tasks/${task.id}`, { title: 'Renamed' }), 200);
    assert.deepEqual((await detailOf(team.owner, task.id)).labels, [b, c]);
    expectStatus(await team.owner.api.patch(`/v1/tasks/${task.id}`, { labelIds: [] }), 200);
    assert.deepEqual((await detailOf(team.owner, task.id)).labels, []);
  });

  test("a label id not of the team is a 400 naming it (as assigneeIds'), more than 20 labels a 400; nothing changes", async () => {
    const { team, a } = await labelled();
    const other = await createTestTeam(server);
    const theirs = await createLabel(other.owner, 'Theirs');
    const task = expectStatus(await team.owner.api.post('/v1/tasks', { title: 'T', labelIds: [a.id] }), 201);
    expectError(
      await team.owner.api.patch(`/v1/tasks/${task.id}`, { title: 'Changed', labelIds: [a.id, theirs.id] }),
      400,
      `labelIds: ${theirs.id} is not a label of this team.`,
    );
    expectError(
      await team.owner.api.patch(`/v1/tasks/${task.id}`, { labelIds: [theirs.id, 2147480001] }),
      400,
      `labelIds: ${theirs.id}, 2147480001 are not labels of this team.`,
    );
    const many = [];
    for (let i = 0; i < 21; i++) many.push((await createLabel(team.owner, `Many ${i}`)).id);
    expectError(
      await team.owner.api.patch(`/v1/tasks/${task.id}`, { labelIds: many }),
      400,
      'labelIds: a task can carry at most 20 labels; 21 were given.',
    );
    expectError(await team.owner.api.patch(`/v1/tasks/${task.id}`, { labelIds: ['x'] }), 400, /^labelIds/);
    const detail = await detailOf(team.owner, task.id);
    assert.equal(detail.title, 'T');
    assert.deepEqual(ids(detail.labels), [a.id]);
    // POST /v1/tasks answers the spec's fixed text; nothing is created.
    const before = expectStatus(await team.owner.api.get('/v1/tasks'), 200).length;
    expectError(await team.owner.api.post('/v1/tasks', { title: 'New', labelIds: [theirs.id] }), 400);
    assert.equal(expectStatus(await team.owner.api.get('/v1/tasks'), 200).length, before);
  });

  test('GET /v1/tasks?labelId= keeps tasks with any of the labels, ANDed with the other filters; an unknown label matches nothing', async () => {
    const { team, a, b, c } = await labelled();
    const other = await createTestTeam(server);
    const theirs = await createLabel(other.owner, 'Theirs');
    expectStatus(await other.owner.api.post('/v1/tasks', { title: 'Theirs', labelIds: [theirs.id] }), 201);
    const post = async (body: object) => expectStatus(await team.owner.api.post('/v1/tasks', body), 201).id as number;
    const onlyA = await post({ title: 'A', labelIds: [a.id] });
    const aAndB = await post({ title: 'AB', labelIds: [a.id, b.id], priority: 'high' });
    const onlyB = await post({ title: 'B', labelIds: [b.id], priority: 'high' });
    await post({ title: 'None' });
    const found = async (query: string) => ids(expectStatus(await team.owner.api.get(`/v1/tasks?${query}`), 200));
    assert.deepEqual(await found(`labelId=${a.id}`), [aAndB, onlyA]);
    assert.deepEqual(await found(`labelId=${a.id}&labelId=${b.id}`), [onlyB, aAndB, onlyA]);
    assert.deepEqual(await found(`labelId=${a.id}&priority=high`), [aAndB]);
    assert.deepEqual(await found(`labelId=${c.id}`), []);
    assert.deepEqual(await found(`labelId=${theirs.id}`), []);
    assert.deepEqual(await found('labelId=2147480001'), []);
    expectError(await team.owner.api.get('/v1/tasks?labelId=x'), 400, 'labelId must be a number.');
  });

  test('include=labels adds labels to each row, as the detail has them; without it the rows are the published summary', async () => {
    const { team, a, c } = await labelled();
    const list = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Board' }), 201);
    const tagged = expectStatus(
      await team.owner.api.post('/v1/tasks', { title: 'Tagged', labelIds: [c.id, a.id], taskListIds: [list.id] }),
      201,
    );
    const bare = expectStatus(await team.owner.api.post('/v1/tasks', { title: 'Bare', taskListIds: [list.id] }), 201);
    const plain = expectStatus(await team.owner.api.get('/v1/tasks'), 200);
    for (const row of plain) assert.ok(!('labels' in row), 'no labels key unless asked for');
    for (const query of ['include=labels', `include=labels&taskListId=${list.id}`]) {
      const rows = expectStatus(await team.owner.api.get(`/v1/tasks?${query}`), 200);
      assert.deepEqual(
        rows.map((row: { id: number; labels: Label[] }) => [row.id, row.labels]),
        [
          [bare.id, []],
          [tagged.id, [a, c]],
        ],
      );
      assert.deepEqual(
        { ...rows[1], labels: undefined },
        { ...plain[1], labels: undefined },
        'the rest is the summary',
      );
    }
    expectError(await team.owner.api.get('/v1/tasks?include=everything'), 400, 'include must be labels.');
  });
});

describe(`labels under concurrency (${TEST_STORE})`, () => {
  test('a label deleted while a PATCH gives it to a task: no 5xx, and the task never keeps a deleted label', async () => {
    for (let round = 0; round < 8; round++) {
      const team = await createTestTeam(server);
      const label = await createLabel(team.owner, 'Racing');
      // Every other round the task carries the label already, so the deletion holds the task too.
      const task = expectStatus(
        await team.owner.api.post('/v1/tasks', { title: 'Raced', labelIds: round % 2 ? [label.id] : [] }),
        201,
      );
      const answers = await together(server.url, [
        { method: 'PATCH', path: `/v1/tasks/${task.id}`, key: team.owner.key, body: { labelIds: [label.id] } },
        { method: 'DELETE', path: `/v1/labels/${label.id}`, key: team.owner.key },
      ]);
      const context = `round ${round}: ${answers.map((a) => `${a.status} ${a.text}`).join(' | ')}`;
      assert.ok([200, 400].includes(answers[0]!.status), context);
      assert.equal(answers[1]!.status, 200, context);
      assert.deepEqual((await detailOf(team.owner, task.id)).labels, [], context);
    }
  });
});

describe(`label events (${TEST_STORE})`, () => {
  test('every member hears label.created, .updated and .deleted with {"labelId"}', async () => {
    const team = await createTestTeam(server);
    const member = await team.member();
    const stream = await live(server, member, 'member');
    const label = await createLabel(team.owner, 'Live');
    assert.equal(show(await stream.next()), `label.created ${label.id}`);
    expectStatus(await team.owner.api.patch(`/v1/labels/${label.id}`, { name: 'Alive' }), 200);
    assert.equal(show(await stream.next()), `label.updated ${label.id}`);
    expectStatus(await team.owner.api.delete(`/v1/labels/${label.id}`), 200);
    const deleted = await stream.next();
    assert.equal(show(deleted), `label.deleted ${label.id}`);
    assert.deepEqual(JSON.parse(deleted.data), { labelId: label.id });
    stream.close();
  });

  test("a task whose labels change (a PATCH, or its label's deletion) sends task.updated to its readers, and only them", async () => {
    const team = await createTestTeam(server);
    const reader = await team.member();
    const outsider = await team.member();
    const label = await createLabel(team.owner, 'Watched');
    const task = expectStatus(
      await team.owner.api.post('/v1/tasks', { title: 'Assigned', assigneeIds: [reader.userId] }),
      201,
    );
    const readerStream = await live(server, reader, 'reader');
    const outsiderStream = await live(server, outsider, 'outsider');
    expectStatus(await team.owner.api.patch(`/v1/tasks/${task.id}`, { labelIds: [label.id] }), 200);
    expectStatus(await team.owner.api.delete(`/v1/labels/${label.id}`), 200);
    assert.deepEqual(
      [show(await readerStream.next()), show(await readerStream.next()), show(await readerStream.next())],
      [`task.updated ${task.id}`, `task.updated ${task.id}`, `label.deleted ${label.id}`],
    );
    assert.equal(show(await outsiderStream.next()), `label.deleted ${label.id}`);
    readerStream.close();
    outsiderStream.close();
  });
});
