/**
 * Due-date reminders (issue 30) over HTTP, on the store under test: whom they remind and when,
 * what re-plans and cancels them, exactly once across a restart, late after a stop, their
 * webhooks, and each person's settings and time zone. Each server's clock is set at its start
 * (support.ts): the tasks are made on a server at the real time, then a server on the same
 * database starts just before a reminder's minute.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { createTestTeam, type Actor } from '../factories.js';
import { expectError, expectStatus, TEST_STORE, tempDatabase, type TempDatabase, type TestServer } from '../harness.js';
import { createWebhook, startReceiver, waitFor, type Receiver } from '../webhooks/support.js';
import { dayAhead, kindsAbout, noticesAbout, on, startAt, utc } from './support.js';

describe(`due-date reminders (${TEST_STORE})`, { timeout: 60_000 }, () => {
  let database: TempDatabase;
  let receiver: Receiver;
  before(async () => {
    database = await tempDatabase();
    receiver = await startReceiver();
  });
  /** The one server running: a restart stops it first (afterEach too, so a failing test leaves none). */
  let current: TestServer | undefined;
  const restart = async (instant: Date | null, env: Record<string, string> = {}) => {
    await current?.close();
    current = undefined;
    return (current = await startAt(database.url, instant, env));
  };
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  after(async () => {
    await receiver.close();
    await database.remove();
  });

  test('a reminder fires once at its minute for the task’s people, and what changes the task re-plans or cancels it', async () => {
    const due = dayAhead(20);
    const webhooksOn = { WEBHOOK_DELIVERY: 'on' };
    let server = await restart(null, webhooksOn);
    const team = await createTestTeam(server);
    const ann = await team.member({ name: 'Ann' });
    const bob = await team.member({ name: 'Bob' });
    const owner = team.owner;
    const statuses: { id: number; isCompleted: boolean }[] = expectStatus(
      await owner.api.get('/v1/task-statuses'),
      200,
    );
    const done = statuses.find((s) => s.isCompleted)!.id;
    const open = statuses.find((s) => !s.isCompleted)!.id;
    await createWebhook(owner.api, receiver.url, { eventTypes: ['task.dueSoon', 'task.overdue'] });
    const task = async (actor: Actor, body: Record<string, unknown>) =>
      expectStatus(await actor.api.post('/v1/tasks', { title: 'A task', ...body }), 201) as { id: number };
    const patch = async (id: number, body: Record<string, unknown>) =>
      expectStatus(await owner.api.patch(`/v1/tasks/${id}`, body), 200);

    const kept = await task(owner, { title: 'Kept', dueDate: due, assigneeIds: [ann.userId] });
    const unassigned = await task(owner, { title: 'Nobody assigned', dueDate: due });
    const moved = await task(owner, { title: 'Moved', dueDate: due, assigneeIds: [ann.userId] });
    await patch(moved.id, { dueDate: dayAhead(22) });
    const completed = await task(owner, { title: 'Completed', dueDate: due, assigneeIds: [ann.userId] });
    await patch(completed.id, { taskStatusId: done });
    const reopened = await task(owner, {
      title: 'Reopened',
      dueDate: due,
      assigneeIds: [ann.userId],
      taskStatusId: done,
    });
    await patch(reopened.id, { taskStatusId: open });
    const deleted = await task(owner, { title: 'Deleted', dueDate: due, assigneeIds: [ann.userId] });
    expectStatus(await owner.api.delete(`/v1/tasks/${deleted.id}`), 200);
    const undated = await task(owner, { title: 'Undated', dueDate: due, assigneeIds: [ann.userId] });
    await patch(undated.id, { dueDate: null });
    const past = await task(owner, { title: 'Due long ago', dueDate: dayAhead(-30), assigneeIds: [ann.userId] });
    const handedOver = await task(owner, { title: 'Handed over', dueDate: due, assigneeIds: [ann.userId] });
    await patch(handedOver.id, { assigneeIds: [bob.userId] });

    // Just before 9:00 UTC on the due day (everyone's default reminder time).
    server = await restart(utc(due, '08:59:59.500'), webhooksOn);
    const annApi = on(server, ann);
    const bobApi = on(server, bob);
    const ownerApi = on(server, owner);
    // The last reminder planned for 9:00: all of that minute's are claimed and fired in order before it.
    await waitFor('bob reminded of the task handed to him', async () =>
      (await kindsAbout(bobApi, handedOver.id)).includes('dueSoon'),
    );
    assert.deepEqual(await kindsAbout(annApi, kept.id), ['dueSoon', 'assigned']);
    assert.deepEqual(await kindsAbout(annApi, reopened.id), ['dueSoon', 'statusChanged', 'assigned']);
    assert.deepEqual(
      await kindsAbout(ownerApi, unassigned.id),
      ['dueSoon'],
      'nobody assigned: its creator is reminded',
    );
    assert.deepEqual(await kindsAbout(ownerApi, kept.id), [], 'the creator of an assigned task is not reminded');
    for (const quiet of [moved, completed, undated, past, handedOver]) {
      assert.ok(!(await kindsAbout(annApi, quiet.id)).includes('dueSoon'), `no reminder of task ${quiet.id} for ann`);
    }
    const [reminder] = await noticesAbout(annApi, kept.id);
    assert.equal(reminder!.actor, null);
    assert.equal(reminder!.late, false);

    const hooks = await waitFor(
      'the reminders’ webhooks',
      () => receiver.ofType('task.dueSoon').length >= 4 && receiver.ofType('task.dueSoon'),
    );
    assert.deepEqual(
      hooks.map((hook) => `${hook.json.data.id} ${hook.json.remindedUserId}`).sort(),
      [
        `${kept.id} ${ann.userId}`,
        `${reopened.id} ${ann.userId}`,
        `${unassigned.id} ${owner.userId}`,
        `${handedOver.id} ${bob.userId}`,
      ].sort(),
    );
    assert.equal(hooks[0]!.json.data.dueDate, due, 'a reminder’s webhook carries the task as its owner reads it');

    // Every process was down the day after (overdue at 9:00); it starts again at 9:00 two days after.
    server = await restart(utc(dayAhead(22), '09:00:00.500'), webhooksOn);
    const annAgain = on(server, ann);
    await waitFor('ann reminded of the moved task on its new date', async () =>
      (await kindsAbout(annAgain, moved.id)).includes('dueSoon'),
    );
    const keptNotices = await noticesAbout(annAgain, kept.id);
    assert.deepEqual(
      keptNotices.map((n) => n.kind),
      ['overdue', 'dueSoon', 'assigned'],
      'each reminder exactly once',
    );
    assert.equal(keptNotices[0]!.late, true, 'the overdue reminder fired a day late, and says so');
    assert.equal((await noticesAbout(annAgain, moved.id))[0]!.late, false);
  });

  test('each person’s settings and time zone choose their minute; changing them moves what is planned', async () => {
    const due = dayAhead(40);
    let server = await restart(null);
    const team = await createTestTeam(server);
    const ann = await team.member({ name: 'Ann' });
    const bob = await team.member({ name: 'Bob' });
    assert.deepEqual(expectStatus(await ann.api.get('/v1/me/reminder-settings'), 200), {
      timeZone: 'UTC',
      daysBefore: 0,
      time: '09:00',
    });
    const task = expectStatus(
      await team.owner.api.post('/v1/tasks', { title: 'Both', dueDate: due, assigneeIds: [ann.userId, bob.userId] }),
      201,
    );
    // After the task: ann's planned reminder moves to 8:30 in Kolkata (UTC+5:30) the day before.
    const settings = { timeZone: 'Asia/Kolkata', daysBefore: 1, time: '08:30' };
    assert.deepEqual(expectStatus(await ann.api.patch('/v1/me/reminder-settings', settings), 200), {
      ...settings,
    });
    for (const [body, message] of [
      [{ timeZone: 'Mars/Olympus' }, /timeZone must be an IANA time zone name/],
      [{ daysBefore: 8 }, undefined],
      [{ time: '9:00' }, undefined],
      [{ time: '24:00' }, undefined],
    ] as const) {
      expectError(await ann.api.patch('/v1/me/reminder-settings', body), 400, message);
    }
    assert.equal(expectStatus(await ann.api.get('/v1/me/reminder-settings'), 200).timeZone, 'Asia/Kolkata');
    assert.equal(expectStatus(await bob.api.get('/v1/me/reminder-settings'), 200).timeZone, 'UTC');

    server = await restart(utc(due, '02:59:59.500', -1));
    const annApi = on(server, ann);
    await waitFor('ann reminded at 8:30 in Kolkata the day before', async () =>
      (await kindsAbout(annApi, task.id)).includes('dueSoon'),
    );
    assert.deepEqual(
      await kindsAbout(on(server, bob), task.id),
      ['assigned'],
      'bob’s reminder is at 9:00 UTC on the day',
    );
  });
});
