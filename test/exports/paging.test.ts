/**
 * Team exports (issue 32) read the comments, activity and attachments of a page of tasks
 * together: their lines must still come task by task (task id order, then row id), whole, when
 * the rows were made interleaved across tasks and one task's rows pass a read's limit.
 */
import assert from 'node:assert/strict';
import { before, after, describe, it } from 'node:test';
import { createTestTeam, type Team } from '../factories.js';
import { expectStatus, startTestServer, type TestServer } from '../harness.js';
import { upload } from '../attachments/support.js';
import { downloadExport, linesOf, parseExport, readyExport, shapeOf } from './support.js';

/** Comments of 20,000 characters: 60 pass the 1 MiB a read of comments holds, so one task's span two reads. */
const LONG_COMMENTS = 60;
/** More than a read of activity holds (50), spread over two tasks: a read ends inside the second. */
const EDITS_EACH = 30;

describe('exports read a page of tasks at once', () => {
  let server: TestServer;
  let team: Team;
  let taskIds: number[];

  before(async () => {
    server = await startTestServer();
    team = await createTestTeam(server);
    const { api } = team.owner;
    taskIds = [];
    for (const title of ['A', 'B', 'C']) {
      taskIds.push(expectStatus(await api.post('/v1/tasks', { title }), 201).id);
    }
    const [a, b, c] = taskIds as [number, number, number];
    // Made in an order other than the tasks': the export's order is by task, not by row id.
    const comment = (task: number, body: string) => api.post(`/v1/tasks/${task}/comments`, { body });
    expectStatus(await comment(c, 'c first'), 201);
    expectStatus(await comment(a, 'a first'), 201);
    for (let i = 0; i < LONG_COMMENTS; i++) expectStatus(await comment(b, `${i} `.padEnd(20_000, 'b')), 201);
    expectStatus(await comment(a, 'a second'), 201);
    expectStatus(await comment(c, 'c second'), 201);
    for (let i = 1; i <= EDITS_EACH; i++) {
      expectStatus(await api.patch(`/v1/tasks/${b}`, { title: `B ${i}` }), 200);
      expectStatus(await api.patch(`/v1/tasks/${a}`, { title: `A ${i}` }), 200);
    }
    for (const task of [c, a, b, a])
      expectStatus(await upload(api, task, Buffer.from(`file of ${task}\n`), 'f.txt'), 201);
  });
  after(() => server.close());

  it('comments, activity and attachments come by task id, then id, each once and whole', async () => {
    const { api } = team.owner;
    const shown = await readyExport(api);
    const lines = parseExport((await downloadExport(api, shown.id)).bytes);
    const byTaskThenId = (x: { taskId: number; id: number }, y: { taskId: number; id: number }) =>
      x.taskId - y.taskId || x.id - y.id;

    const comments = linesOf(lines, 'comment');
    assert.equal(comments.length, LONG_COMMENTS + 4);
    assert.deepEqual(comments, [...comments].sort(byTaskThenId));
    assert.equal(new Set(comments.map((c) => c.id)).size, comments.length);
    for (const line of comments) {
      const answer = expectStatus(await api.get(`/v1/tasks/${line.taskId}/comments/${line.id}`), 200);
      assert.deepEqual(shapeOf(line), answer);
    }

    const activity = linesOf(lines, 'activity');
    for (const task of taskIds) {
      const page = expectStatus(await api.get(`/v1/tasks/${task}/activity?limit=100`), 200);
      assert.deepEqual(
        activity.filter((e) => e.taskId === task).map((e) => e.id),
        page.map((e: { id: number }) => e.id).reverse(),
      );
    }
    assert.deepEqual(activity, [...activity].sort(byTaskThenId));
    assert.ok(activity.length > 2 * EDITS_EACH);
    for (const line of activity) {
      assert.deepEqual(shapeOf(line), expectStatus(await api.get(`/v1/tasks/${line.taskId}/activity/${line.id}`), 200));
    }

    const attachments = linesOf(lines, 'attachment');
    assert.equal(attachments.length, 4);
    assert.deepEqual(attachments, [...attachments].sort(byTaskThenId));
    // Each attachment's bytes follow its own line.
    const order = lines
      .filter((l) => l.type === 'attachment' || l.type === 'attachmentData')
      .map((l) => (l.type === 'attachment' ? l.id : l.attachmentId));
    assert.deepEqual(
      order,
      attachments.flatMap((a) => [a.id, a.id]),
    );
    for (const line of attachments) {
      const data = linesOf(lines, 'attachmentData').find((d) => d.attachmentId === line.id);
      assert.equal(Buffer.from(data.data, 'base64').toString(), `file of ${line.taskId}\n`);
    }
  });
});
