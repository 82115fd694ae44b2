/**
 * Notifications (issue 30): what notifies whom, mentions, following, the inbox and its pages,
 * marking read and archiving, access at read time, and the `notification.created` event. A real
 * server over HTTP on a temp database, on the store under test (TASKLANE_TEST_STORE).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestTeam } from '../factories.js';
import { expectError, expectStatus, TEST_STORE, type TestServer } from '../harness.js';
import { live, startEventsServer, stopEventsServer, TIMEOUT } from '../events/support.js';
import { comment, following, inbox, ITEM_KEYS, kindsAbout, newTask } from './support.js';

describe(`notifications (${TEST_STORE})`, TIMEOUT, () => {
  let server: TestServer;
  before(async () => {
    server = await startEventsServer();
  });
  after(() => stopEventsServer(server));

  const statusesOf = async (actor: { api: TestServer['client'] extends (k: string) => infer C ? C : never }) => {
    const all: { id: number; name: string }[] = expectStatus(await actor.api.get('/v1/task-statuses'), 200);
    return Object.fromEntries(all.map((s) => [s.name, s.id]));
  };

  describe('what notifies whom', () => {
    test('assignment notifies the person assigned and not the actor; unassignment notifies the person unassigned', async () => {
      const team = await createTestTeam(server);
      const ann = await team.member({ name: 'Ann' });
      const task = await newTask(team.owner, {
        title: 'Pay the invoice',
        assigneeIds: [ann.userId, team.owner.userId],
      });
      const [assigned] = (await inbox(ann)).items;
      assert.deepEqual(Object.keys(assigned!).sort(), ITEM_KEYS);
      assert.equal(assigned!.kind, 'assigned');
      assert.deepEqual(assigned!.task, { id: task.id, number: task.number, title: 'Pay the invoice' });
      assert.deepEqual(assigned!.actor, { id: team.owner.userId, name: team.owner.name });
      assert.equal(assigned!.readAt, null);
      assert.deepEqual((await inbox(team.owner)).items, [], 'nobody is notified of their own action');

      expectStatus(await team.owner.api.patch(`/v1/tasks/${task.id}`, { assigneeIds: [team.owner.userId] }), 200);
      // Ann created nothing and is no longer assigned: the task left her view, so it is not shown.
      assert.deepEqual(await kindsAbout(ann, task.id), []);
      const bob = await team.member({ name: 'Bob' });
      const shared = await newTask(bob, { assigneeIds: [ann.userId] });
      expectStatus(await ann.api.patch(`/v1/tasks/${shared.id}`, { assigneeIds: [] }), 200);
      assert.deepEqual(await kindsAbout(bob, shared.id), [], 'ann unassigned herself: bob is not notified');
      expectStatus(await bob.api.patch(`/v1/tasks/${shared.id}`, { assigneeIds: [ann.userId] }), 200);
      const list = expectStatus(await bob.api.post('/v1/lists', { name: 'Shared' }), 201);
      expectStatus(await bob.api.post(`/v1/lists/${list.id}/members`, { userId: ann.userId }), 201);
      expectStatus(await bob.api.patch(`/v1/tasks/${shared.id}`, { taskListIds: [list.id] }), 200);
      expectStatus(await bob.api.patch(`/v1/tasks/${shared.id}`, { assigneeIds: [] }), 200);
      assert.deepEqual(await kindsAbout(ann, shared.id), ['unassigned', 'assigned', 'assigned']);
    });

    test('a mention by email and by name notifies the member, stored by id so a rename keeps it', async () => {
      const team = await createTestTeam(server);
      const ann = await team.member({ name: 'Ann Lee' });
      const cid = await team.member({ name: 'Cid' });
      const list = expectStatus(await team.owner.api.post('/v1/lists', { name: 'All' }), 201);
      for (const m of [ann, cid]) {
        expectStatus(await team.owner.api.post(`/v1/lists/${list.id}/members`, { userId: m.userId }), 201);
      }
      const task = await newTask(team.owner, {
        taskListIds: [list.id],
        description: `Ask @${ann.email.toUpperCase()} first.`,
      });
      assert.deepEqual(await kindsAbout(ann, task.id), ['mentioned']);
      assert.deepEqual(await kindsAbout(cid, task.id), []);
      const c = await comment(team.owner, task.id, 'Thanks @"ann lee" and @Cid.');
      assert.deepEqual(await kindsAbout(cid, task.id), ['mentioned']);
      // Ann is mentioned again and follows the task: one notification, the most direct kind.
      assert.deepEqual(await kindsAbout(ann, task.id), ['mentioned', 'mentioned']);
      // Stored by id: after a rename the mention is still Ann's; the text is published as sent.
      await server.store.db.updateTable('users').set({ name: 'Ann Renamed' }).where('id', '=', ann.userId).execute();
      const stored = await server.store.db
        .selectFrom('mentions')
        .select('user_id')
        .where('comment_id', '=', c.id)
        .orderBy('user_id')
        .execute();
      assert.deepEqual(stored.map((r) => r.user_id).sort(), [ann.userId, cid.userId].sort());
      const read = expectStatus(await ann.api.get(`/v1/tasks/${task.id}/comments/${c.id}`), 200);
      assert.equal(read.body, 'Thanks @"ann lee" and @Cid.');
      // Editing the comment without new names notifies no one again.
      expectStatus(await team.owner.api.patch(`/v1/tasks/${task.id}/comments/${c.id}`, { body: 'Thanks @Cid!' }), 200);
      assert.deepEqual(await kindsAbout(cid, task.id), ['mentioned']);
      // A plain email address is not a mention, and neither is a name two members share.
      const other = await team.member({ name: 'Cid' });
      expectStatus(await team.owner.api.post(`/v1/lists/${list.id}/members`, { userId: other.userId }), 201);
      await comment(team.owner, task.id, `Mail ${other.email} or ping @Cid`);
      assert.deepEqual(await kindsAbout(other, task.id), []);
    });

    test('a mention of a member who cannot read the task notifies nobody', async () => {
      const team = await createTestTeam(server);
      const outsider = await team.member({ name: 'Outsider' });
      const task = await newTask(team.owner, { description: `cc @${outsider.email}` });
      await comment(team.owner, task.id, `@${outsider.email} please look`);
      assert.deepEqual((await inbox(outsider)).items, []);
      expectError(await outsider.api.get(`/v1/tasks/${task.id}/follow`), 403);
    });

    test('a comment notifies the creator, the assignees and the followers, not its author', async () => {
      const team = await createTestTeam(server);
      const [ann, bob, cid, dan] = [
        await team.member({ name: 'Ann' }),
        await team.member({ name: 'Bob' }),
        await team.member({ name: 'Cid' }),
        await team.member({ name: 'Dan' }),
      ];
      const list = expectStatus(await ann.api.post('/v1/lists', { name: 'L' }), 201);
      for (const m of [bob, cid, dan]) {
        expectStatus(await ann.api.post(`/v1/lists/${list.id}/members`, { userId: m.userId }), 201);
      }
      const task = await newTask(ann, { assigneeIds: [bob.userId], taskListIds: [list.id] });
      expectStatus(await cid.api.post(`/v1/tasks/${task.id}/follow`), 200);
      await comment(bob, task.id, 'On it');
      assert.deepEqual(await kindsAbout(ann, task.id), ['commented']);
      assert.deepEqual(await kindsAbout(bob, task.id), ['assigned'], 'not notified of his own comment');
      assert.deepEqual(await kindsAbout(cid, task.id), ['commented']);
      assert.deepEqual(await kindsAbout(dan, task.id), [], 'a list member who does not follow');
      // Commenting makes Dan follow it.
      await comment(dan, task.id, 'Me too');
      assert.equal(await following(dan, task.id), true);
      await comment(ann, task.id, 'Good');
      assert.deepEqual(await kindsAbout(dan, task.id), ['commented']);
    });

    test('a status change notifies the followers, not the actor', async () => {
      const team = await createTestTeam(server);
      const ann = await team.member({ name: 'Ann' });
      const statuses = await statusesOf(team.owner);
      const task = await newTask(ann, { assigneeIds: [team.owner.userId] });
      expectStatus(await team.owner.api.patch(`/v1/tasks/${task.id}`, { taskStatusId: statuses['Done'] }), 200);
      assert.deepEqual(await kindsAbout(ann, task.id), ['statusChanged']);
      assert.deepEqual(await kindsAbout(team.owner, task.id), ['assigned']);
      // A title change notifies no one.
      expectStatus(await team.owner.api.patch(`/v1/tasks/${task.id}`, { title: 'Renamed' }), 200);
      assert.deepEqual(await kindsAbout(ann, task.id), ['statusChanged']);
      assert.equal((await inbox(ann)).items[0]!.task.title, 'Renamed', 'the title as it is now');
    });

    test('follow and unfollow: a creator who unfollows hears no more, being assigned again follows again', async () => {
      const team = await createTestTeam(server);
      const ann = await team.member({ name: 'Ann' });
      const task = await newTask(ann, { assigneeIds: [team.owner.userId] });
      assert.equal(await following(ann, task.id), true, 'the creator follows');
      assert.deepEqual(expectStatus(await ann.api.delete(`/v1/tasks/${task.id}/follow`), 200), {
        taskId: task.id,
        following: false,
      });
      assert.equal(await following(ann, task.id), false);
      await comment(team.owner, task.id, 'Unheard');
      assert.deepEqual(await kindsAbout(ann, task.id), []);
      assert.deepEqual(expectStatus(await ann.api.post(`/v1/tasks/${task.id}/follow`), 200), {
        taskId: task.id,
        following: true,
      });
      await comment(team.owner, task.id, 'Heard');
      assert.deepEqual(await kindsAbout(ann, task.id), ['commented']);

      expectStatus(await team.owner.api.delete(`/v1/tasks/${task.id}/follow`), 200);
      expectStatus(await ann.api.patch(`/v1/tasks/${task.id}`, { assigneeIds: [] }), 200);
      expectStatus(await ann.api.patch(`/v1/tasks/${task.id}`, { assigneeIds: [team.owner.userId] }), 200);
      assert.equal(await following(team.owner, task.id), true, 'being assigned again follows again');
      expectError(await ann.api.post('/v1/tasks/999999/follow'), 404, 'Task 999999 not found.');
    });
  });

  describe('the inbox', () => {
    test('pages newest first with a cursor, and unread=true leaves the read out', async () => {
      const team = await createTestTeam(server);
      const ann = await team.member({ name: 'Ann' });
      const ids: number[] = [];
      for (let i = 0; i < 5; i++)
        ids.push((await newTask(team.owner, { title: `t${i}`, assigneeIds: [ann.userId] })).id);
      const walked: string[] = [];
      let cursor = '';
      for (;;) {
        const page = await inbox(ann, `?limit=2${cursor}`);
        walked.push(...page.items.map((i) => i.task.title));
        if (page.nextCursor === null) break;
        assert.equal(page.items.length, 2);
        cursor = `&cursor=${page.nextCursor}`;
      }
      assert.deepEqual(walked, ['t4', 't3', 't2', 't1', 't0']);
      const all = (await inbox(ann)).items;
      expectStatus(await ann.api.patch(`/v1/notifications/${all[1]!.id}`, { read: true }), 200);
      const unread = await inbox(ann, '?unread=true&limit=2');
      assert.deepEqual(
        unread.items.map((i) => i.task.title),
        ['t4', 't2'],
      );
      const rest = await inbox(ann, `?unread=true&limit=2&cursor=${unread.nextCursor}`);
      assert.deepEqual(
        rest.items.map((i) => i.task.title),
        ['t1', 't0'],
      );
      assert.equal(rest.nextCursor, null);
      expectError(
        await ann.api.get('/v1/notifications?cursor=abc'),
        400,
        'cursor must be the nextCursor of an earlier page.',
      );
      expectError(await ann.api.get('/v1/notifications?unread=yes'), 400, 'unread must be true or false.');
    });

    test('mark one read and unread, mark all read and unread, archive', async () => {
      const team = await createTestTeam(server);
      const ann = await team.member({ name: 'Ann' });
      for (let i = 0; i < 3; i++) await newTask(team.owner, { assigneeIds: [ann.userId] });
      const [first, second] = (await inbox(ann)).items;
      const read = expectStatus(await ann.api.patch(`/v1/notifications/${first!.id}`, { read: true }), 200);
      assert.deepEqual(Object.keys(read).sort(), ITEM_KEYS);
      assert.equal(typeof read.readAt, 'string');
      const again = expectStatus(await ann.api.patch(`/v1/notifications/${first!.id}`, { read: true }), 200);
      assert.equal(again.readAt, read.readAt, 'marking a read one read keeps when it was read');
      assert.equal(
        expectStatus(await ann.api.patch(`/v1/notifications/${first!.id}`, { read: false }), 200).readAt,
        null,
      );
      assert.deepEqual(expectStatus(await ann.api.post('/v1/notifications/mark-all', { read: true }), 200), {
        updated: 3,
      });
      assert.equal((await inbox(ann, '?unread=true')).items.length, 0);
      assert.deepEqual(expectStatus(await ann.api.post('/v1/notifications/mark-all', { read: false }), 200), {
        updated: 3,
      });
      expectStatus(await ann.api.patch(`/v1/notifications/${second!.id}`, { archived: true }), 200);
      assert.deepEqual(
        (await inbox(ann)).items.map((i) => i.id),
        [first!.id, (await inbox(ann)).items[1]!.id],
      );
      assert.equal((await inbox(ann)).items.length, 2);
      assert.equal((await inbox(ann, '?unread=true')).items.length, 2, 'archived: not in the unread either');
      expectStatus(await ann.api.patch(`/v1/notifications/${second!.id}`, { archived: false }), 200);
      assert.equal((await inbox(ann)).items.length, 3);
      expectError(await ann.api.patch(`/v1/notifications/${first!.id}`, {}), 400, 'Give read, archived or both.');
      expectError(await ann.api.patch(`/v1/notifications/${first!.id}`, { read: 'yes' }), 400);
    });

    test('a notification about a task the reader lost access to is not shown, and does not leak its title', async () => {
      const team = await createTestTeam(server);
      const ann = await team.member({ name: 'Ann' });
      const list = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Secret plans' }), 201);
      expectStatus(await team.owner.api.post(`/v1/lists/${list.id}/members`, { userId: ann.userId }), 201);
      const task = await newTask(team.owner, { title: 'Secret title', taskListIds: [list.id] });
      expectStatus(await ann.api.post(`/v1/tasks/${task.id}/follow`), 200);
      await comment(team.owner, task.id, 'Psst');
      const [item] = (await inbox(ann)).items;
      assert.equal(item!.kind, 'commented');
      expectStatus(await team.owner.api.delete(`/v1/lists/${list.id}/members/${ann.userId}`), 200);
      const response = await ann.api.get('/v1/notifications');
      assert.deepEqual(expectStatus(response, 200).items, []);
      assert.doesNotMatch(response.text, /Secret/);
      const patch = await ann.api.patch(`/v1/notifications/${item!.id}`, { read: true });
      expectError(patch, 404, `Notification ${item!.id} not found.`);
      assert.doesNotMatch(patch.text, /Secret/);
      assert.deepEqual(expectStatus(await ann.api.post('/v1/notifications/mark-all', { read: true }), 200), {
        updated: 0,
      });
      // A follower who may not read the task is not notified of it at all.
      await comment(team.owner, task.id, 'Psst again');
      // Back on the list: shown again, the one from before only.
      expectStatus(await team.owner.api.post(`/v1/lists/${list.id}/members`, { userId: ann.userId }), 201);
      assert.equal((await inbox(ann)).items.length, 1);
    });

    test("another person's and another team's notification answers 404, and is never shown", async () => {
      const team = await createTestTeam(server);
      const ann = await team.member({ name: 'Ann' });
      const bob = await team.member({ name: 'Bob' });
      await newTask(team.owner, { assigneeIds: [ann.userId, bob.userId] });
      const [annsItem] = (await inbox(ann)).items;
      const stranger = (await createTestTeam(server)).owner;
      for (const other of [bob, stranger]) {
        expectError(
          await other.api.patch(`/v1/notifications/${annsItem!.id}`, { read: true }),
          404,
          `Notification ${annsItem!.id} not found.`,
        );
        assert.ok(!(await inbox(other)).items.some((i) => i.id === annsItem!.id));
      }
      assert.deepEqual(expectStatus(await stranger.api.post('/v1/notifications/mark-all', { read: true }), 200), {
        updated: 0,
      });
      assert.equal((await inbox(ann, '?unread=true')).items.length, 1, "ann's stays unread");
      expectError(await stranger.api.get(`/v1/tasks/${annsItem!.task.id}/follow`), 404);
    });
  });

  test('the notification.created event reaches only its recipient', async () => {
    const team = await createTestTeam(server);
    const ann = await team.member({ name: 'Ann' });
    const bob = await team.member({ name: 'Bob' });
    const annStream = await live(server, ann, 'ann');
    const bobStream = await live(server, bob, 'bob');
    const ownerStream = await live(server, team.owner, 'owner');
    const task = await newTask(team.owner, { assigneeIds: [ann.userId] });
    const event = await annStream.waitFor((e) => e.type === 'notification.created');
    const [item] = (await inbox(ann)).items;
    assert.deepEqual(JSON.parse(event.data), { notificationId: item!.id });
    // Everyone else hears of the task's creation (the owner) or nothing, never ann's notification.
    await ownerStream.waitFor((e) => e.type === 'task.created' && JSON.parse(e.data).taskId === task.id);
    await bob.api.post(`/v1/tasks/${task.id}/comments`, { body: 'x' }); // 403: bob cannot read it
    await comment(ann, task.id, 'A comment the owner hears of');
    const ownerEvents = await ownerStream.collectUntil((e) => e.type === 'notification.created', 5_000);
    assert.deepEqual(
      ownerEvents.map((e) => e.type),
      ['comment.created', 'notification.created'],
    );
    const ownersItem = (await inbox(team.owner)).items[0]!;
    assert.deepEqual(JSON.parse(ownerEvents[1]!.data), { notificationId: ownersItem.id });
    await bobStream.expectNothingFor(300);
    // The event ids stay one increasing sequence: the change's event, then its notifications'.
    const annNext = await annStream.collectUntil((e) => e.type === 'comment.created');
    assert.ok(Number(annNext.at(-1)!.id) > Number(event.id));
  });

  test('reading, archiving and marking all send notification.updated and notification.markedAll to the reader alone, and only when something changed', async () => {
    const team = await createTestTeam(server);
    const ann = await team.member({ name: 'Ann' });
    await newTask(team.owner, { assigneeIds: [ann.userId] });
    const [item] = (await inbox(ann)).items;
    const annStream = await live(server, ann, 'ann');
    const ownerStream = await live(server, team.owner, 'owner');
    expectStatus(await ann.api.patch(`/v1/notifications/${item!.id}`, { read: true }), 200);
    const read = await annStream.waitFor((e) => e.type === 'notification.updated');
    assert.deepEqual(JSON.parse(read.data), { notificationId: item!.id });
    // Read again: nothing changed, so no event; archiving is a change.
    expectStatus(await ann.api.patch(`/v1/notifications/${item!.id}`, { read: true }), 200);
    expectStatus(await ann.api.patch(`/v1/notifications/${item!.id}`, { archived: true }), 200);
    const archived = await annStream.collectUntil((e) => e.type === 'notification.updated');
    assert.deepEqual(
      archived.map((e) => e.type),
      ['notification.updated'],
    );
    expectStatus(await ann.api.patch(`/v1/notifications/${item!.id}`, { archived: false, read: false }), 200);
    await annStream.waitFor((e) => e.type === 'notification.updated');
    assert.deepEqual(expectStatus(await ann.api.post('/v1/notifications/mark-all', { read: true }), 200), {
      updated: 1,
    });
    const marked = await annStream.waitFor((e) => e.type === 'notification.markedAll');
    assert.deepEqual(JSON.parse(marked.data), { read: true });
    assert.deepEqual(expectStatus(await ann.api.post('/v1/notifications/mark-all', { read: true }), 200), {
      updated: 0,
    });
    await annStream.expectNothingFor(300);
    await ownerStream.expectNothingFor(100);
  });
});
