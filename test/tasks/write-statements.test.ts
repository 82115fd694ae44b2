/**
 * Issue 27's write budget, in statements: a change runs no statement whose work nothing uses.
 * Counted on SQLite, where every statement is its own call (on PostgreSQL the outbox's writes
 * are one statement). The counts include authentication, BEGIN and COMMIT; a team here has no
 * webhook, so no deliveries statement runs (test/webhooks/idle.test.ts holds that rule).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestTeam, type Actor, type Team } from '../factories.js';
import { expectStatus, tempDatabase, TEST_STORE, type TempDatabase } from '../harness.js';
import { declareSending } from '../../src/mail/queue.repository.js';
import { sqliteStatements, startCountedApp, type CountedApp } from '../statement-log.js';

const skip = TEST_STORE === 'postgres' && 'counted on SQLite, where each statement is a call of its own';

/** The statements one request runs, by text. */
async function statementsOf(request: () => Promise<unknown>): Promise<string[]> {
  const recorded = sqliteStatements();
  try {
    await request();
  } finally {
    recorded.stop();
  }
  return recorded.texts;
}

const shown = (texts: string[]) => texts.map((sql, i) => `${i + 1}. ${sql.slice(0, 100)}`).join('\n');

describe(`the statements of a task change (${TEST_STORE})`, { skip }, () => {
  let database: TempDatabase;
  let app: CountedApp;
  let owner: Actor;
  let team: Team;
  let statuses: Record<string, number>;
  let taskId: number;
  let listId: number;

  before(async () => {
    database = await tempDatabase();
    app = await startCountedApp(database.url);
    team = await createTestTeam(app);
    owner = team.owner;
    const all: { id: number; name: string }[] = expectStatus(await owner.api.get('/v1/task-statuses'), 200);
    statuses = Object.fromEntries(all.map((s) => [s.name, s.id]));
    const list = expectStatus(await owner.api.post('/v1/lists', { name: 'Counted' }), 201);
    const task = expectStatus(await owner.api.post('/v1/tasks', { title: 'Counted', taskListIds: [list.id] }), 201);
    taskId = task.id;
    listId = list.id;
  });
  after(async () => {
    await app.close();
    await database.remove();
  });

  test('a PATCH of assignees, lists unchanged, reads the readers once: those after are known from those before', async () => {
    const texts = await statementsOf(async () =>
      expectStatus(await owner.api.patch(`/v1/tasks/${taskId}`, { assigneeIds: [owner.userId] }), 200),
    );
    const readerReads = texts.filter((sql) => /created_by as "user_id"/.test(sql));
    assert.equal(readerReads.length, 1, shown(texts));
  });

  test("a PATCH between two open statuses leaves the list items' completion alone", async () => {
    const texts = await statementsOf(async () =>
      expectStatus(await owner.api.patch(`/v1/tasks/${taskId}`, { taskStatusId: statuses['In progress'] }), 200),
    );
    assert.deepEqual(
      texts.filter((sql) => /^update "task_list_items"/.test(sql)),
      [],
      shown(texts),
    );
  });

  test("a PATCH to a completed status copies the completion to the task's list items", async () => {
    const texts = await statementsOf(async () =>
      expectStatus(await owner.api.patch(`/v1/tasks/${taskId}`, { taskStatusId: statuses['Done'] }), 200),
    );
    assert.equal(texts.filter((sql) => /^update "task_list_items"/.test(sql)).length, 1, shown(texts));
    // The list's filter reads the copy on the list item.
    const done: { id: number }[] = expectStatus(
      await owner.api.get(`/v1/tasks?taskListId=${listId}&isCompleted=true`),
      200,
    );
    assert.deepEqual(
      done.map((t) => t.id),
      [taskId],
    );
  });

  test('a PATCH of status and assignees runs 15 statements (16 before issue 27), authentication, BEGIN and COMMIT included', async () => {
    const texts = await statementsOf(async () =>
      expectStatus(
        await owner.api.patch(`/v1/tasks/${taskId}`, { taskStatusId: statuses['To do'], assigneeIds: [] }),
        200,
      ),
    );
    // Authentication, BEGIN, the caller's re-check, the task, its readers, the status, the
    // assignees' delete (none to insert), the task's update, the list items' completion (Done →
    // To do), the activity entry, the counters, the event, its recipients named one by one
    // (creator and assignees), the snapshot of its list's members it names, COMMIT.
    assert.equal(texts.length, 15, shown(texts));
  });

  test('a create or a PATCH without labelIds runs no statement about labels (issue 29: no cost for a team without them)', async () => {
    const texts = await statementsOf(async () => {
      const task = expectStatus(await owner.api.post('/v1/tasks', { title: 'No labels' }), 201);
      expectStatus(await owner.api.patch(`/v1/tasks/${task.id}`, { title: 'Still none', assigneeIds: [] }), 200);
    });
    assert.deepEqual(
      texts.filter((sql) => /label/.test(sql)),
      [],
      shown(texts),
    );
  });

  /**
   * Statements about notifications, following, mentions, or their preferences and mail (the
   * audience read, which also reads follow choices, aside).
   */
  const aboutNotifications = (texts: string[]) =>
    texts.filter(
      (sql) =>
        /"notifications"|"task_followers"|"mentions"|notification\.created|"v"\."first"|"notification_preferences"|"mail_queue"/.test(
          sql,
        ) && !/created_by as "user_id"/.test(sql),
    );

  test('issue 30: a create assigning and mentioning no one, a PATCH of a title, a comment no one else follows add no statement', async () => {
    const texts = await statementsOf(async () => {
      const task = expectStatus(await owner.api.post('/v1/tasks', { title: 'Quiet', description: 'no one here' }), 201);
      expectStatus(await owner.api.patch(`/v1/tasks/${task.id}`, { title: 'Still quiet' }), 200);
      expectStatus(await owner.api.post(`/v1/tasks/${task.id}/comments`, { body: 'To myself' }), 201);
    });
    assert.deepEqual(aboutNotifications(texts), [], shown(texts));
  });

  test("issue 30: a create that assigns someone adds four statements on SQLite: the recipients' choices, the notifications, their events, their recipients", async () => {
    const mate = await team.member({ name: 'Mate' });
    const texts = await statementsOf(async () =>
      expectStatus(await owner.api.post('/v1/tasks', { title: 'For mate', assigneeIds: [mate.userId] }), 201),
    );
    assert.equal(aboutNotifications(texts).length, 4, shown(texts));
  });

  test('issue 30: while some process sends mail, a notification someone wants by email adds one more: the mail, queued', async () => {
    const mate = await team.member({ name: 'Mailed mate' });
    await declareSending(app.store.db, new Date(), 0);
    const texts = await statementsOf(async () =>
      expectStatus(await owner.api.post('/v1/tasks', { title: 'Mail mate', assigneeIds: [mate.userId] }), 201),
    );
    assert.equal(aboutNotifications(texts).length, 5, shown(texts));
    assert.equal(texts.filter((sql) => /insert into "mail_queue"/.test(sql)).length, 1, shown(texts));
    await app.store.db.deleteFrom('mail_senders').execute();
  });

  test("issue 30: a comment by an assignee adds four: the recipients' choices, the notifications of the task's other followers, their events, their recipients", async () => {
    const mate = await team.member({ name: 'Commenter' });
    const task = expectStatus(
      await owner.api.post('/v1/tasks', { title: 'Discussed', assigneeIds: [mate.userId] }),
      201,
    );
    expectStatus(await owner.api.delete(`/v1/tasks/${task.id}/follow`), 200);
    expectStatus(await owner.api.post(`/v1/tasks/${task.id}/follow`), 200);
    const other = await team.member({ name: 'Other' });
    expectStatus(await owner.api.patch(`/v1/tasks/${task.id}`, { assigneeIds: [mate.userId, other.userId] }), 200);
    const texts = await statementsOf(async () =>
      expectStatus(await other.api.post(`/v1/tasks/${task.id}/comments`, { body: 'Hello' }), 201),
    );
    // Other is an assignee, so follows already: owner's and mate's choices, notifications, their events and recipients.
    assert.equal(aboutNotifications(texts).length, 4, shown(texts));
  });

  test("a PATCH of labelIds adds four statements: the labels kept, the labels before, the old set's delete, the new set's insert", async () => {
    const label = expectStatus(await owner.api.post('/v1/labels', { name: 'Counted' }), 201);
    const texts = await statementsOf(async () =>
      expectStatus(await owner.api.patch(`/v1/tasks/${taskId}`, { labelIds: [label.id] }), 200),
    );
    assert.equal(texts.filter((sql) => /label/.test(sql)).length, 4, shown(texts));
  });
});
