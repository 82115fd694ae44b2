import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { NotificationPreferences } from '../../src/contract/index.js';
import { mailQueueStatus } from '../../src/mail/queue.repository.js';
import type { Store } from '../../src/storage/database.js';
import { createTestTeam, type Actor } from '../factories.js';
import {
  configProblems,
  expectError,
  expectStatus,
  startTestServer,
  tempDatabase,
  type TestServer,
} from '../harness.js';
import { adminOk } from '../cli/support.js';
import { startSmtpServer, type TestSmtpServer } from './smtp-server.js';

const PUBLIC_URL = 'https://tasks.example.test';
const MAIL_FROM = 'tasklane <tasklane@example.test>';

/** Waits until none of the queue's rows is pending, and returns them all. */
async function settled(store: Store) {
  for (;;) {
    const rows = await store.db.selectFrom('mail_queue').selectAll().orderBy('id').execute();
    if (rows.every((row) => row.status !== 'pending')) return rows;
    await sleep(20);
  }
}

async function taskOf(owner: Actor, title: string, assigneeIds: string[] = []): Promise<number> {
  return expectStatus<{ id: number }>(await owner.api.post('/v1/tasks', { title, assigneeIds }), 201).id;
}

/** The rows the queue holds for `who`, oldest first. */
const queuedFor = (store: Store, who: Actor) =>
  store.db.selectFrom('mail_queue').selectAll().where('user_id', '=', who.userId).orderBy('id').execute();

describe('notification email', () => {
  let smtp: TestSmtpServer;
  let server: TestServer;
  before(async () => {
    smtp = await startSmtpServer();
    server = await startTestServer({
      SMTP_URL: smtp.url,
      MAIL_FROM,
      PUBLIC_URL,
      // A second: the changes of one test reach a person within one window, so leave as one mail.
      MAIL_BATCH_SECONDS: '1',
      MAIL_POLL_MS: '20',
      MAIL_RETRY_FIRST_DELAY_MS: '1',
      MAIL_RETRY_MAX_DELAY_MS: '1',
    });
  });
  after(async () => {
    await server.close();
    await smtp.close();
  });
  beforeEach(async () => {
    await settled(server.store);
    await server.store.db.deleteFrom('mail_queue').execute();
    smtp.received.length = 0;
    smtp.refuse = null;
  });

  test('what happens to a person within the batch window leaves as one mail: From MAIL_FROM, a line and a PUBLIC_URL link per notification', async () => {
    const team = await createTestTeam(server);
    const ada = await team.member({ name: 'Ada Lovelace' });
    const started = Date.now();
    const first = await taskOf(team.owner, 'Fix the login page', [ada.userId]);
    const second = await taskOf(team.owner, 'Write the release notes', [ada.userId]);
    const [mail] = await smtp.waitFor(1);
    assert.ok(Date.now() - started >= 1000, 'not before the window closed');
    assert.deepEqual(mail!.to, [ada.email]);
    assert.equal(mail!.from, 'tasklane@example.test');
    assert.equal(mail!.headers.get('subject'), '2 updates on your tasks in tasklane');
    assert.match(
      mail!.text,
      /Olivia Owner assigned you to #\d+ Fix the login page[^]*Olivia Owner assigned you to #\d+ Write the release notes/,
    );
    assert.ok(mail!.text.includes(`${PUBLIC_URL}/tasks/${first}`), mail!.text);
    assert.ok(mail!.text.includes(`${PUBLIC_URL}/tasks/${second}`), mail!.text);
    assert.equal(mail!.headers.get('auto-submitted'), 'auto-generated');
    const rows = await settled(server.store);
    assert.deepEqual(
      rows.map((row) => row.status),
      ['sent', 'sent'],
    );
    // One Message-ID for the mail, kept on its rows: a mail sent again after a crash is the same mail.
    assert.equal(mail!.headers.get('message-id'), rows[0]!.message_id);
    assert.equal(rows[1]!.message_id, rows[0]!.message_id);
    assert.equal(smtp.received.length, 1);
  });

  test("every mail carries a one-click unsubscribe (RFC 8058) that turns all of its reader's email off", async () => {
    const team = await createTestTeam(server);
    const ada = await team.member();
    await taskOf(team.owner, 'Unsubscribe me', [ada.userId]);
    const [mail] = await smtp.waitFor(1);
    assert.equal(mail!.headers.get('subject'), 'Olivia Owner assigned you to #1 Unsubscribe me');
    assert.equal(mail!.headers.get('list-unsubscribe-post'), 'List-Unsubscribe=One-Click');
    const link = /^<(.+)>$/.exec(mail!.headers.get('list-unsubscribe') ?? '')?.[1];
    assert.ok(link?.startsWith(`${PUBLIC_URL}/v1/mail/unsubscribe/`), `List-Unsubscribe: ${link}`);
    // As a mail client sends it: a form POST, no key.
    const response = await fetch(`${server.url}${link!.slice(PUBLIC_URL.length)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    assert.equal(response.status, 200, await response.clone().text());
    assert.deepEqual(await response.json(), { unsubscribed: true });
    const prefs = expectStatus<NotificationPreferences>(await ada.api.get('/v1/me/notification-preferences'), 200);
    assert.ok(
      Object.values(prefs.preferences).every((delivery) => delivery === 'inbox'),
      JSON.stringify(prefs),
    );

    // Now an assignment reaches the inbox only: no mail is even queued.
    await settled(server.store);
    await taskOf(team.owner, 'Inbox only now', [ada.userId]);
    assert.equal((await queuedFor(server.store, ada)).length, 1);
    const inbox = expectStatus<{ items: { task: { title: string } }[] }>(await ada.api.get('/v1/notifications'), 200);
    assert.equal(inbox.items[0]!.task.title, 'Inbox only now');
    assert.equal(smtp.received.length, 1);
  });

  test('an unknown or malformed unsubscribe token is refused with a clear error and changes nothing', async () => {
    const unknown = await fetch(`${server.url}/v1/mail/unsubscribe/${'x'.repeat(32)}`, { method: 'POST' });
    assert.equal(unknown.status, 404);
    assert.deepEqual(await unknown.json(), { error: 'This unsubscribe link is not valid or has expired.' });
    const malformed = await fetch(`${server.url}/v1/mail/unsubscribe/short`, { method: 'POST' });
    assert.equal(malformed.status, 400);
    assert.deepEqual(await malformed.json(), { error: 'This unsubscribe link is not valid.' });
  });

  test('a mail never names a task its reader can no longer read: access is checked when it is sent, and such an item is dropped', async () => {
    const team = await createTestTeam(server);
    const ada = await team.member();
    const hidden = await taskOf(team.owner, 'Secret plans', [ada.userId]);
    const readable = await taskOf(team.owner, 'Still yours', [ada.userId]);
    // Within the window: Ada is taken off the first task, and may no longer read it.
    expectStatus(await team.owner.api.patch(`/v1/tasks/${hidden}`, { assigneeIds: [] }), 200);
    const [mail] = await smtp.waitFor(1);
    assert.doesNotMatch(mail!.raw, /Secret plans/);
    assert.match(mail!.text, /Still yours/);
    const rows = await settled(server.store);
    assert.deepEqual(
      rows.map((row) => [row.task_id, row.status]),
      [
        [hidden, 'dropped'],
        [readable, 'sent'],
      ],
    );
  });

  test('assigned and mentioned go by email until a person chooses; a kind kept to the inbox is not mailed, a kind turned off is not even in the inbox', async () => {
    const team = await createTestTeam(server);
    const ada = await team.member();
    const defaults = expectStatus<NotificationPreferences>(await ada.api.get('/v1/me/notification-preferences'), 200);
    assert.deepEqual(defaults, {
      email: { enabled: true },
      preferences: {
        assigned: 'inboxAndEmail',
        unassigned: 'inbox',
        mentioned: 'inboxAndEmail',
        commented: 'inbox',
        statusChanged: 'inbox',
        dueSoon: 'inbox',
        overdue: 'inbox',
      },
    });
    const task = await taskOf(team.owner, 'Talk it over', [ada.userId]);
    await smtp.waitFor(1);
    await settled(server.store);
    // A comment on a task she follows (as its assignee): the inbox only, by default.
    expectStatus(await team.owner.api.post(`/v1/tasks/${task}/comments`, { body: 'First thoughts' }), 201);
    assert.equal((await queuedFor(server.store, ada)).length, 1);

    const changed = expectStatus<NotificationPreferences>(
      await ada.api.patch('/v1/me/notification-preferences', {
        preferences: { commented: 'inboxAndEmail', assigned: 'off' },
      }),
      200,
    );
    assert.equal(changed.preferences.commented, 'inboxAndEmail');
    assert.equal(changed.preferences.assigned, 'off');
    assert.equal(changed.preferences.mentioned, 'inboxAndEmail');
    expectStatus(await team.owner.api.post(`/v1/tasks/${task}/comments`, { body: 'Second thoughts' }), 201);
    await taskOf(team.owner, 'Assigned in silence', [ada.userId]);
    const [, mail] = await smtp.waitFor(2);
    assert.match(mail!.headers.get('subject')!, /^Olivia Owner commented on #\d+ Talk it over$/);
    const inbox = expectStatus<{ items: { kind: string; task: { title: string } }[] }>(
      await ada.api.get('/v1/notifications'),
      200,
    );
    assert.deepEqual(
      inbox.items.map((n) => `${n.kind} ${n.task.title}`),
      ['commented Talk it over', 'commented Talk it over', 'assigned Talk it over'],
    );
  });

  test('preferences refuse an unknown delivery with a message naming what is allowed, and change nothing; an unknown kind is dropped as every unknown field is', async () => {
    const team = await createTestTeam(server);
    const ada = await team.member();
    await expectError(
      await ada.api.patch('/v1/me/notification-preferences', { preferences: { assigned: 'pigeon', commented: 'off' } }),
      400,
      'each preference must be one of: inbox, inboxAndEmail, off.',
    );
    const unknownKind = expectStatus<NotificationPreferences>(
      await ada.api.patch('/v1/me/notification-preferences', { preferences: { birthday: 'off' } }),
      200,
    );
    assert.ok(!('birthday' in unknownKind.preferences));
    const prefs = expectStatus<NotificationPreferences>(await ada.api.get('/v1/me/notification-preferences'), 200);
    assert.equal(prefs.preferences.assigned, 'inboxAndEmail');
    assert.equal(prefs.preferences.commented, 'inbox');
    const rows = await server.store.db
      .selectFrom('notification_preferences')
      .selectAll()
      .where('user_id', '=', ada.userId)
      .execute();
    assert.deepEqual(rows, []);
  });

  test('an SMTP server that says "try later" (4xx) gets the same mail again, with the same Message-ID', async () => {
    const team = await createTestTeam(server);
    const ada = await team.member();
    smtp.refuse = { code: 451, message: 'Greylisted, try again later' };
    await taskOf(team.owner, 'Retry me', [ada.userId]);
    // Wait for the refusal to be recorded, then let the server accept.
    let first;
    do {
      await sleep(20);
      first = (await queuedFor(server.store, ada))[0];
    } while (!first?.last_error);
    assert.match(first.last_error, /Greylisted/);
    smtp.refuse = null;
    const [mail] = await smtp.waitFor(1);
    const [row] = await settled(server.store);
    assert.equal(row!.status, 'sent');
    assert.ok(row!.attempt_count >= 2, `attempts: ${row!.attempt_count}`);
    assert.equal(mail!.headers.get('message-id'), first.message_id);
  });

  test('an SMTP refusal (5xx) fails the mail for good, and admin mail status shows it with the reason', async () => {
    const team = await createTestTeam(server);
    const ada = await team.member();
    smtp.refuse = { code: 550, message: 'No such mailbox here' };
    await taskOf(team.owner, 'Bounce me', [ada.userId]);
    do await sleep(20);
    while ((await queuedFor(server.store, ada))[0]?.status !== 'failed');
    const status = await mailQueueStatus(server.store.db, 5);
    assert.equal(status.failed, 1);
    assert.equal(status.pending, 0);
    assert.equal(status.recentFailures[0]!.userId, ada.userId);
    assert.match(status.recentFailures[0]!.error!, /No such mailbox here/);
    assert.equal(smtp.received.length, 0);
  });
});

describe('notification email settings', () => {
  test('without SMTP_URL email is off, and the preferences say so', async () => {
    const server = await startTestServer();
    try {
      const team = await createTestTeam(server);
      const prefs = expectStatus<NotificationPreferences>(
        await team.owner.api.get('/v1/me/notification-preferences'),
        200,
      );
      assert.deepEqual(prefs.email, { enabled: false });
    } finally {
      await server.close();
    }
  });

  test('admin mail status prints the queue as one JSON object, on a database where nothing was mailed yet', async () => {
    const database = await tempDatabase();
    try {
      await adminOk(database.url, ['org', 'create', '--name', 'Mailless']);
      const { value } = await adminOk(database.url, ['mail', 'status']);
      assert.deepEqual(value, {
        pending: 0,
        sent: 0,
        failed: 0,
        dropped: 0,
        oldestPendingAt: null,
        retrying: [],
        recentFailures: [],
      });
    } finally {
      await database.remove();
    }
  });

  test('SMTP_URL needs MAIL_FROM and PUBLIC_URL, takes only smtp:// or smtps://, and never echoes its password', () => {
    assert.deepEqual(
      configProblems({ SMTP_URL: 'smtp://mail.example.test', MAIL_FROM: 'a@example.test', PUBLIC_URL: PUBLIC_URL }),
      [],
    );
    assert.ok(
      configProblems({ SMTP_URL: 'smtp://mail.example.test', PUBLIC_URL }).some((p) => p.includes('MAIL_FROM')),
    );
    assert.ok(
      configProblems({ SMTP_URL: 'smtp://mail.example.test', MAIL_FROM: 'a@example.test' }).some((p) =>
        p.includes('PUBLIC_URL'),
      ),
    );
    const bad = configProblems({
      SMTP_URL: 'http://user:hunter2@mail.example.test',
      MAIL_FROM: 'a@example.test',
      PUBLIC_URL,
    });
    assert.ok(bad.some((p) => p.startsWith('SMTP_URL must be')));
    assert.ok(bad.every((p) => !p.includes('hunter2')));
  });
});
