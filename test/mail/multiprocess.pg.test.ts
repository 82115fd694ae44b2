/**
 * Three `tasklane serve` processes on one PostgreSQL database share the mail queue: each person
 * assigned two tasks, through any of the processes, within the batch window gets exactly one mail
 * of both, sent by one of the processes, never by two (a claim is a lease taken by one UPDATE; the
 * second process's claim finds the rows leased).
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { openStore } from '../../src/storage/database.js';
import { createTestTeam } from '../factories.js';
import { Client, expectStatus, tempDatabase } from '../harness.js';
import { killAll, serve, type Serving } from '../processes.js';
import { startSmtpServer } from './smtp-server.js';

const PROCESSES = 3;
const PEOPLE = 30;

test(
  `${PROCESSES} processes on PostgreSQL: each of ${PEOPLE} people gets exactly one mail of their notifications, sent once`,
  { timeout: 180_000 },
  async () => {
    const database = await tempDatabase();
    const smtp = await startSmtpServer();
    const store = openStore(database.url);
    const servers: Serving[] = [];
    try {
      const env = {
        SMTP_URL: smtp.url,
        MAIL_FROM: 'tasklane@example.test',
        PUBLIC_URL: 'https://tasks.example.test',
        // Long enough that each person's two tasks fall in one window however loaded the machine.
        MAIL_BATCH_SECONDS: '10',
        MAIL_POLL_MS: '10',
        RATE_LIMIT_PER_MINUTE: '0',
        LOG_LEVEL: 'error',
      };
      servers.push(...(await Promise.all(Array.from({ length: PROCESSES }, () => serve(database.url, env)))));
      const team = await createTestTeam({ store, client: (key?: string) => new Client(servers[0]!.url, key) });
      const people = await Promise.all(Array.from({ length: PEOPLE }, (_, n) => team.member({ name: `Person ${n}` })));
      const apis = servers.map((server) => new Client(server.url, team.owner.key));
      // Two tasks each, through two different processes, at once.
      await Promise.all(
        people.flatMap((person, n) =>
          [0, 1].map(async (k) =>
            expectStatus(
              await apis[(n + k) % PROCESSES]!.post('/v1/tasks', {
                title: `For ${person.name}, ${k}`,
                assigneeIds: [person.userId],
              }),
              201,
            ),
          ),
        ),
      );
      assert.equal((await store.db.selectFrom('mail_queue').select('id').execute()).length, 2 * PEOPLE);
      for (;;) {
        const pending = await store.db
          .selectFrom('mail_queue')
          .select('id')
          .where('status', '=', 'pending')
          .executeTakeFirst();
        if (!pending) break;
        await sleep(20);
      }
      const rows = await store.db.selectFrom('mail_queue').select(['status', 'message_id']).execute();
      assert.deepEqual(new Set(rows.map((row) => row.status)), new Set(['sent']));
      const perPerson = new Map<string, number>();
      for (const mail of smtp.received) for (const to of mail.to) perPerson.set(to, (perPerson.get(to) ?? 0) + 1);
      assert.equal(smtp.received.length, PEOPLE, `${smtp.received.length} mails for ${PEOPLE} people`);
      assert.deepEqual(
        people.filter((person) => perPerson.get(person.email) !== 1).map((person) => person.email),
        [],
        'each person exactly one mail',
      );
      // Each mail holds both of its person's lines, under the Message-ID its rows keep.
      assert.ok(smtp.received.every((mail) => mail.headers.get('subject') === '2 updates on your tasks in tasklane'));
      assert.equal(new Set(rows.map((row) => row.message_id)).size, PEOPLE);
    } finally {
      killAll();
      await Promise.all(servers.map((s) => s.stop()));
      await store.close();
      await smtp.close();
      await database.remove();
    }
  },
);
