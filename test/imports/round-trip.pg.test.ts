/**
 * The round trip (issue 32): a team with every kind of object is exported from a server on SQLite
 * and imported into an empty team on a server on PostgreSQL; field by field, nothing is lost but
 * what the format or the import leaves out by design (secrets; activity, which the importing
 * server writes anew; ids, creators and dates, which are the import's). Applying the same file
 * again changes nothing.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTestTeam, type Actor, type Team } from '../factories.js';
import { expectStatus, startTestServer, type Client, type TestServer } from '../harness.js';
import { downloadExport, readyExport } from '../exports/support.js';
import { uploadImport, waitForImport } from './support.js';

/** Everything a person sees of the team, without ids, creators or dates: what must come across. */
async function teamAsSeen(api: Client) {
  const emailOf = new Map<string, string>(
    expectStatus(await api.get('/v1/users'), 200).map((u: any) => [u.id, u.email]),
  );
  const lists = [
    ...expectStatus(await api.get('/v1/lists'), 200),
    ...expectStatus(await api.get('/v1/lists?archived=true'), 200),
  ];
  const listsSeen = [];
  for (const list of lists) {
    const members = expectStatus(await api.get(`/v1/lists/${list.id}/members`), 200);
    listsSeen.push({
      name: list.name,
      color: list.color,
      isArchived: list.isArchived,
      members: members.map((m: any) => m.email).sort(),
    });
  }
  const statuses = expectStatus(await api.get('/v1/task-statuses'), 200).map((s: any) => ({
    name: s.name,
    color: s.color,
    isCompleted: s.isCompleted,
  }));
  const labels = expectStatus(await api.get('/v1/labels'), 200).map((l: any) => ({ name: l.name, color: l.color }));
  const tasks = [];
  for (const summary of expectStatus(await api.get('/v1/tasks?limit=1000'), 200)) {
    const task = expectStatus(await api.get(`/v1/tasks/${summary.id}`), 200);
    const comments = expectStatus(await api.get(`/v1/tasks/${task.id}/comments`), 200);
    tasks.push({
      title: task.title,
      description: task.description,
      priority: task.priority,
      dueDate: task.dueDate,
      status: task.status.name,
      isCompleted: task.isCompleted,
      assignees: task.assignees.map((a: any) => a.email).sort(),
      labels: task.labels.map((l: any) => l.name).sort(),
      lists: task.taskLists.map((l: any) => l.name).sort(),
      parent: task.parent?.title ?? null,
      comments: (comments.items ?? comments).map((c: any) => ({
        body: c.body,
        author: emailOf.get(c.author.id) ?? c.author.email,
      })),
    });
  }
  const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
  return {
    lists: listsSeen.sort(byName),
    statuses: statuses.sort(byName),
    labels: labels.sort(byName),
    tasks: tasks.sort((a, b) => a.title.localeCompare(b.title)),
  };
}

describe('round trip: exported on SQLite, imported on PostgreSQL', () => {
  let source: TestServer;
  let target: TestServer;
  let folder: string;
  let from: Team;
  let to: Team;
  let fromMate: Actor;

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'tasklane-round-trip-'));
    source = await startTestServer({ DATABASE_URL: `sqlite:${join(folder, 'source.db')}` });
    target = await startTestServer({ SCHEDULED_JOBS: 'on', JOBS_POLL_MS: '200' });
    from = await createTestTeam(source);
    fromMate = await from.member({ name: 'Mara Mate', email: 'mara@example.test' });
    // The target team: its own owner imports; the source's people are its members by email.
    to = await createTestTeam(target);
    await to.member({ name: 'Olivia, there', email: from.owner.email, role: 'admin' });
    await to.member({ name: 'Mara, there', email: fromMate.email });
  });
  after(async () => {
    await source.close();
    await target.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('brings every list, status, label, task, subtask, assignment and comment across, field by field', async () => {
    const api = from.owner.api;
    const status = expectStatus(await api.post('/v1/task-statuses', { name: 'Blocked', color: '#EF4444' }), 201);
    const label = expectStatus(await api.post('/v1/labels', { name: 'Customer', color: 'Purple' }), 201);
    expectStatus(await api.post('/v1/labels', { name: 'Unused', color: 'Teal' }), 201);
    const roadmap = expectStatus(await api.post('/v1/lists', { name: 'Roadmap', color: 'Blue' }), 201);
    expectStatus(await api.post(`/v1/lists/${roadmap.id}/members`, { userId: fromMate.userId }), 201);
    const old = expectStatus(await api.post('/v1/lists', { name: 'Old plans', color: 'Gray' }), 201);
    const parent = expectStatus(
      await api.post('/v1/tasks', {
        title: 'Ship the importer',
        description: 'With a **plan** first.\n\n- [ ] undo',
        priority: 'urgent',
        dueDate: '2027-02-01',
        taskStatusId: status.id,
        taskListIds: [roadmap.id],
        assigneeIds: [fromMate.userId, from.owner.userId],
        labelIds: [label.id],
      }),
      201,
    );
    expectStatus(
      await api.post('/v1/tasks', { title: 'Write the docs', parentId: parent.id, taskListIds: [roadmap.id] }),
      201,
    );
    expectStatus(await api.post('/v1/tasks', { title: 'Old idea', taskListIds: [old.id], priority: 'low' }), 201);
    expectStatus(await api.post('/v1/tasks', { title: 'Nowhere in particular' }), 201);
    expectStatus(await api.post(`/v1/tasks/${parent.id}/comments`, { body: 'First: the format.' }), 201);
    expectStatus(await fromMate.api.post(`/v1/tasks/${parent.id}/comments`, { body: 'Then *the plan*.' }), 201);
    expectStatus(await api.post(`/v1/lists/${old.id}/archive`), 200);

    const exported = await readyExport(api);
    const { bytes } = await downloadExport(api, exported.id);
    const planned = expectStatus(
      await uploadImport(to.owner.api, bytes, { source: 'tasklane' }, { fileName: 'team.jsonl.gz' }),
      201,
    );
    assert.equal(planned.plan.people.unknown.length, 0, JSON.stringify(planned.plan.people));
    assert.equal(planned.plan.kinds.task.create, 4);
    assert.equal(planned.plan.kinds.comment.create, 2);
    assert.ok(
      planned.plan.problems.every((p: any) => /activity entries are not imported/.test(p.message)),
      JSON.stringify(planned.plan.problems),
    );
    expectStatus(await to.owner.api.post(`/v1/imports/${planned.id}/apply`), 200);
    const ended = await waitForImport(to.owner.api, planned.id);
    assert.equal(ended.status, 'applied', JSON.stringify(ended));
    assert.equal(ended.result.problemCount, 0, JSON.stringify(ended.result.problems));

    const there = await teamAsSeen(to.owner.api);
    const here = await teamAsSeen(api);
    // The target's owner, who imported, is a member of every list the import made.
    for (const list of there.lists) list.members = list.members.filter((email: string) => email !== to.owner.email);
    assert.deepEqual(there.tasks, here.tasks);
    assert.deepEqual(there.lists, here.lists);
    assert.deepEqual(there.labels, here.labels);
    for (const status of here.statuses)
      assert.ok(
        there.statuses.some((s: any) => s.name === status.name && s.isCompleted === status.isCompleted),
        status.name,
      );
    assert.deepEqual(
      there.statuses.find((s: any) => s.name === 'Blocked'),
      { name: 'Blocked', color: '#EF4444', isCompleted: false },
    );

    // The same file again: nothing to do.
    const again = expectStatus(await uploadImport(to.owner.api, bytes, { source: 'tasklane' }), 201);
    for (const kind of ['status', 'label', 'list', 'task', 'comment']) {
      assert.equal(
        again.plan.kinds[kind].create + again.plan.kinds[kind].update,
        0,
        `${kind}: ${JSON.stringify(again.plan.kinds[kind])}`,
      );
    }
    expectStatus(await to.owner.api.post(`/v1/imports/${again.id}/apply`), 200);
    assert.equal((await waitForImport(to.owner.api, again.id)).status, 'applied');
    assert.deepEqual(await teamAsSeen(to.owner.api), { ...there, lists: (await teamAsSeen(to.owner.api)).lists });
  });
});
