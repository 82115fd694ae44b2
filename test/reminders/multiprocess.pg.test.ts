/**
 * Due-date reminders across three `tasklane serve` processes on one PostgreSQL database, whose
 * clocks are set just before the reminders' minute (TASKLANE_CLOCK_OFFSET_MS). The first process
 * to claim reminders is killed (SIGKILL) as it says so, mid-batch: the others fire what it had
 * claimed once its lease passes. Each reminder gives exactly one notification, on time, and each
 * person exactly one mail (one Message-ID) holding all of theirs.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openStore } from '../../src/storage/database.js';
import { createTestTeam } from '../factories.js';
import { expectStatus, startTestServer, tempDatabase } from '../harness.js';
import { startSmtpServer } from '../mail/smtp-server.js';
import { killAll, serve, type Serving } from '../processes.js';
import { waitFor } from '../webhooks/support.js';
import { clockAt, dayAhead, utc } from './support.js';

const PROCESSES = 3;
const PEOPLE = 5;
const TASKS_EACH = 12;

test(
  `${PROCESSES} processes on PostgreSQL, one killed while firing: ${PEOPLE * TASKS_EACH} reminders each notify once and mail once`,
  { timeout: 120_000 },
  async () => {
    const database = await tempDatabase();
    const smtp = await startSmtpServer();
    const store = openStore(database.url);
    const servers: Serving[] = [];
    const due = dayAhead(20);
    try {
      // The tasks, on a server at the real time that fires nothing.
      const setup = await startTestServer({ DATABASE_URL: database.url });
      const team = await createTestTeam(setup);
      const people = await Promise.all(Array.from({ length: PEOPLE }, (_, n) => team.member({ name: `Person ${n}` })));
      const taskIds: number[] = [];
      for (const person of people) {
        const body = { preferences: { dueSoon: 'inboxAndEmail', assigned: 'inbox' } };
        expectStatus(await person.api.patch('/v1/me/notification-preferences', body), 200);
        for (let n = 0; n < TASKS_EACH; n++) {
          const task = { title: `${person.name}, task ${n}`, dueDate: due, assigneeIds: [person.userId] };
          taskIds.push(expectStatus(await team.owner.api.post('/v1/tasks', task), 201).id);
        }
      }
      await setup.close();
      const env = {
        // Time for the three to start and be watched before the minute comes (12 s: a loaded
        // machine took more than 6).
        ...clockAt(utc(due, '08:59:48')),
        JOBS_LEASE_SECONDS: '2',
        SMTP_URL: smtp.url,
        MAIL_FROM: 'tasklane@example.test',
        PUBLIC_URL: 'https://tasks.example.test',
        MAIL_BATCH_SECONDS: '8',
        MAIL_POLL_MS: '50',
        RATE_LIMIT_PER_MINUTE: '0',
        LOG_LEVEL: 'info',
      };
      let killed: Serving | undefined;
      const started = await Promise.all(
        Array.from({ length: PROCESSES }, async () => {
          const server = await serve(database.url, env);
          const killIfClaiming = (text: string) => {
            if (!killed && text.includes('running scheduled jobs')) {
              killed = server;
              server.child.kill('SIGKILL');
            }
          };
          // On a slow machine the minute may come with the start: the line may be out already.
          killIfClaiming(server.stdout());
          server.child.stdout!.on('data', killIfClaiming);
          return server;
        }),
      );
      servers.push(...started);

      const fired = async () =>
        store.db
          .selectFrom('notifications')
          .select(['task_id', 'user_id', 'late'])
          .where('kind', '=', 'dueSoon')
          .execute();
      await waitFor('every reminder fired', async () => (await fired()).length >= taskIds.length, 30_000);
      assert.ok(killed, 'a process was killed as it claimed reminders');
      const notices = await fired();
      assert.equal(notices.length, taskIds.length, 'one notification per reminder, none twice');
      assert.deepEqual(new Set(notices.map((n) => n.task_id)), new Set(taskIds));
      assert.ok(
        notices.every((n) => n.late === 0),
        'fired within the minute',
      );
      const left = await store.db
        .selectFrom('scheduled_jobs')
        .select('id')
        .where('kind', '=', 'reminder.dueSoon')
        .execute();
      assert.deepEqual(left, [], 'no due-soon reminder is left to fire');

      await waitFor(
        'every mail sent',
        async () =>
          !(await store.db.selectFrom('mail_queue').select('id').where('status', '=', 'pending').executeTakeFirst()),
        30_000,
      );
      // A mail sent twice (a sender killed mid-send) keeps its Message-ID: a receiver sees one.
      const mails = new Map(smtp.received.map((mail) => [mail.headers.get('message-id'), mail]));
      const perPerson = new Map<string, number>();
      for (const mail of mails.values()) for (const to of mail.to) perPerson.set(to, (perPerson.get(to) ?? 0) + 1);
      assert.deepEqual(
        people.map((person) => perPerson.get(person.email) ?? 0),
        people.map(() => 1),
        'each person exactly one mail',
      );
      for (const mail of mails.values()) {
        assert.equal(mail.headers.get('subject'), `${TASKS_EACH} updates on your tasks in tasklane`);
      }
    } finally {
      killAll();
      await Promise.all(servers.map((s) => s.stop()));
      await store.close();
      await smtp.close();
      await database.remove();
    }
  },
);
