/** Team exports (issue 32): what an owner's export holds, read back from the gzip'd JSON Lines file. */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createTestTeam, type Actor, type Team } from '../factories.js';
import { expectStatus, startTestServer, type TestServer } from '../harness.js';
import { upload } from '../attachments/support.js';
import { downloadExport, linesOf, parseExport, readyExport, shapeOf } from './support.js';

/** A list with `members` on it, a task with a subtask, comments, labels and two attachments (one over a chunk). */
async function populate(team: Team, mate: Actor) {
  const { owner } = team;
  const label = expectStatus(await owner.api.post('/v1/labels', { name: 'Urgent' }), 201);
  const list = expectStatus(await owner.api.post('/v1/lists', { name: 'Roadmap' }), 201);
  expectStatus(await owner.api.post(`/v1/lists/${list.id}/members`, { userId: mate.userId }), 201);
  const task = expectStatus(
    await owner.api.post('/v1/tasks', {
      title: 'Ship the export',
      description: 'All of it',
      taskListIds: [list.id],
      assigneeIds: [mate.userId],
      labelIds: [label.id],
      dueDate: '2030-01-15',
    }),
    201,
  );
  const subtask = expectStatus(
    await owner.api.post('/v1/tasks', { title: 'Write the format', parentId: task.id }),
    201,
  );
  // More entries than the export reads of a task's history at once (50): its pages join up.
  for (let i = 1; i <= 55; i++) {
    expectStatus(await owner.api.patch(`/v1/tasks/${task.id}`, { title: `Draft ${i}` }), 200);
  }
  expectStatus(await owner.api.patch(`/v1/tasks/${task.id}`, { title: 'Ship the team export' }), 200);
  const comments = [
    expectStatus(await owner.api.post(`/v1/tasks/${task.id}/comments`, { body: 'First' }), 201),
    expectStatus(await mate.api.post(`/v1/tasks/${task.id}/comments`, { body: 'Second' }), 201),
  ];
  const small = Buffer.from('small file\n');
  const large = randomBytes(256 * 1024 + 1000);
  const files = [
    expectStatus(await upload(owner.api, task.id, small, 'small.txt'), 201),
    expectStatus(await upload(owner.api, subtask.id, large, 'large.bin'), 201),
  ];
  return { label, list, task, subtask, comments, files, bytes: [small, large] };
}

describe('exports', () => {
  let server: TestServer;
  let team: Team;
  let mate: Actor;
  let made: Awaited<ReturnType<typeof populate>>;

  before(async () => {
    server = await startTestServer();
    team = await createTestTeam(server);
    mate = await team.member({ name: 'Mia Mate' });
    made = await populate(team, mate);
  });
  after(() => server.close());

  it("an owner's export holds every kind of object, as the API presents it, with counts that match its lines", async () => {
    const { owner } = team;
    const shown = await readyExport(owner.api);
    assert.equal(shown.scope, 'team');
    const { bytes, headers } = await downloadExport(owner.api, shown.id);
    assert.equal(headers.get('content-type'), 'application/gzip');
    assert.match(
      headers.get('content-disposition') ?? '',
      /^attachment; filename="tasklane-export-\d{4}-\d{2}-\d{2}\.jsonl\.gz"$/,
    );
    assert.equal(bytes.length, shown.size);
    assert.equal(createHash('sha256').update(bytes).digest('hex'), shown.sha256);

    const lines = parseExport(bytes);
    const [header] = lines;
    assert.equal(header.type, 'tasklane.export');
    assert.equal(header.version, 1);
    assert.equal(header.scope, 'team');
    assert.deepEqual(header.team, { id: team.id, name: team.name });
    assert.deepEqual(header.exportedBy, { id: owner.userId, name: owner.name, email: owner.email });
    const end = lines[lines.length - 1];
    assert.equal(end.type, 'end');

    // The order of the format: each type's lines together, in this order.
    const order = [
      'tasklane.export',
      'member',
      'status',
      'label',
      'list',
      'task',
      'comment',
      'activity',
      'attachment',
      'end',
    ];
    const seen = lines.map((l) => (l.type === 'attachmentData' ? 'attachment' : l.type));
    const firsts = [...new Set(seen)];
    assert.deepEqual(firsts, order);

    // The end line counts every line between header and end, by type; the row's counts are the same.
    const counted: Record<string, number> = {};
    for (const line of lines.slice(1, -1)) counted[line.type] = (counted[line.type] ?? 0) + 1;
    for (const [type, n] of Object.entries(end.counts)) assert.equal(counted[type] ?? 0, n, type);
    assert.deepEqual(shown.counts, end.counts);

    const members = linesOf(lines, 'member');
    assert.deepEqual(members.map((m) => m.id).sort(), [owner.userId, mate.userId].sort());
    assert.deepEqual(Object.keys(members[0]).sort(), ['email', 'id', 'name', 'role', 'type']);

    const statuses = expectStatus(await owner.api.get('/v1/task-statuses'), 200);
    assert.deepEqual(
      linesOf(lines, 'status').map(({ type: _t, ...s }) => s),
      statuses,
    );
    assert.deepEqual(
      linesOf(lines, 'label').map(({ type: _t, ...l }) => l),
      expectStatus(await owner.api.get('/v1/labels'), 200),
    );

    const [list] = linesOf(lines, 'list');
    assert.deepEqual(
      shapeOf(list, 'type', 'memberIds'),
      expectStatus(await owner.api.get(`/v1/lists/${made.list.id}`), 200),
    );
    assert.deepEqual(list.memberIds, [owner.userId, mate.userId].sort());

    // Tasks as GET /v1/tasks/{id} presents them.
    const tasks = linesOf(lines, 'task');
    assert.deepEqual(
      tasks.map((t) => t.id),
      [made.task.id, made.subtask.id],
    );
    for (const task of tasks) {
      assert.deepEqual(shapeOf(task), expectStatus(await owner.api.get(`/v1/tasks/${task.id}`), 200));
    }
    assert.equal(tasks[1].parentId, made.task.id);

    const comments = linesOf(lines, 'comment');
    assert.deepEqual(
      comments.map(({ type: _ct, ...c }) => c),
      expectStatus(await owner.api.get(`/v1/tasks/${made.task.id}/comments`), 200),
    );

    // Activity: every entry of each task, oldest first, whole, as GET …/activity/{entryId} answers it.
    const activity = linesOf(lines, 'activity');
    for (const task of tasks) {
      const page = expectStatus(await owner.api.get(`/v1/tasks/${task.id}/activity?limit=100`), 200);
      const exported = activity.filter((a) => a.taskId === task.id);
      assert.deepEqual(
        exported.map((a) => a.id),
        page.map((e: { id: number }) => e.id).reverse(),
      );
      for (const entry of exported) {
        assert.deepEqual(
          shapeOf(entry),
          expectStatus(await owner.api.get(`/v1/tasks/${task.id}/activity/${entry.id}`), 200),
        );
      }
    }

    // Attachments: their metadata as GET /v1/attachments/{id}, then their bytes in order.
    const attachments = linesOf(lines, 'attachment');
    assert.deepEqual(
      attachments.map((a) => a.id),
      made.files.map((f) => f.id),
    );
    for (const [i, attachment] of attachments.entries()) {
      assert.deepEqual(shapeOf(attachment), expectStatus(await owner.api.get(`/v1/attachments/${attachment.id}`), 200));
      const chunks = linesOf(lines, 'attachmentData').filter((d) => d.attachmentId === attachment.id);
      assert.deepEqual(
        chunks.map((c) => c.seq),
        chunks.map((_c, n) => n),
      );
      const whole = Buffer.concat(chunks.map((c) => Buffer.from(c.data, 'base64')));
      assert.ok(whole.equals(made.bytes[i]!));
      assert.equal(createHash('sha256').update(whole).digest('hex'), attachment.sha256);
    }
    assert.equal(linesOf(lines, 'attachmentData').length, 3, 'the large file takes two chunks of 256 KiB at most');
  });

  it('lists the caller’s own exports, newest first', async () => {
    const first = await readyExport(mate.api);
    const second = await readyExport(mate.api);
    const listed = expectStatus(await mate.api.get('/v1/exports'), 200);
    assert.deepEqual(
      listed.map((e: { id: number }) => e.id),
      [second.id, first.id],
    );
    assert.ok(
      expectStatus(await team.owner.api.get('/v1/exports'), 200).every((e: { id: number }) => e.id !== first.id),
    );
  });
});
