// Issue 30's cost (BENCHMARKS.md, "Issue 30: what notifications cost"): a comment on a task
// followed by 0 (no one notified), 1, 10 and 500 people, each a member of the task's list, in one
// process on a fresh database: the service's createComment (no HTTP, no authentication) run
// ROUNDS × EACH times per size, the sizes alternating; CPU per comment (median of the rounds) and
// the notification rows it writes. Then the inbox: one page (50, newest first; and unread=true)
// for a person with 100 and with 100,000 notifications.
//
//   [ROUNDS=9] [EACH=20] [PG=postgres://…/postgres] node bench/experiments/notification-cost.mjs
import fs from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { parentPid, postgresCpuMs } from '../../dist/bench/support.js';
import { createPostgresDatabase } from '../../dist/test/harness.js';
import { openStore } from '../../dist/src/storage/database.js';
import { migrateToLatest } from '../../dist/src/storage/migrate.js';
import { createTeam } from '../../dist/src/membership/accounts.service.js';
import { insertUser } from '../../dist/src/team/users.repository.js';
import { upsertMember } from '../../dist/src/team/teams.repository.js';
import { createList } from '../../dist/src/lists/lists.service.js';
import { createTask } from '../../dist/src/tasks/tasks.service.js';
import { createComment } from '../../dist/src/comments/comments.service.js';
import { listNotifications } from '../../dist/src/notifications/notifications.service.js';

const SIZES = [0, 1, 10, 500];
const ROUNDS = Number(process.env.ROUNDS ?? 9);
const EACH = Number(process.env.EACH ?? 20);
const dir = fs.mkdtempSync(join(os.tmpdir(), 'notification-cost-'));
const pgDatabase = process.env.PG && (await createPostgresDatabase(process.env.PG, `scratch_notify_${process.pid}`));
const store = openStore(pgDatabase ? pgDatabase.url : `sqlite:${join(dir, 'tasklane.db')}`);
await migrateToLatest(store);
let postmaster;
if (pgDatabase) {
  const probe = new pg.Client({ connectionString: pgDatabase.url });
  await probe.connect();
  postmaster = parentPid((await probe.query('select pg_backend_pid() as pid')).rows[0].pid);
  await probe.end();
}
const cpuMs = () => {
  const used = process.cpuUsage();
  return (
    (used.user + used.system) / 1000 +
    (pgDatabase ? postgresCpuMs(postmaster, new URL(pgDatabase.url).pathname.slice(1)) : 0)
  );
};

const team = await store.transaction((trx) => createTeam(trx, 'Followed'));
let people = 0;
const person = async (role) => {
  const n = ++people;
  const user = await insertUser(store.db, { email: `p${n}@example.test`, name: `Person ${n}`, passwordHash: null });
  await upsertMember(store.db, team.id, user.id, role);
  return user.id;
};
const ownerId = await person('owner');
const caller = { userId: ownerId, teamId: team.id, role: 'owner', credential: { kind: 'key', id: 'bench' } };
const list = await createList(store, caller, { name: 'Everyone' });
const members = [];
for (let i = 0; i < Math.max(...SIZES); i++) members.push(await person('member'));
const now = new Date().toISOString();
for (const userId of members)
  await store.db.insertInto('list_members').values({ list_id: list.id, user_id: userId, created_at: now }).execute();
const tasks = new Map();
for (const size of SIZES) {
  const task = await createTask(store, caller, { title: `Followed by ${size}`, taskListIds: [list.id] });
  for (const userId of members.slice(0, size))
    await store.db
      .insertInto('task_followers')
      .values({ task_id: task.id, user_id: userId, following: 1, created_at: now })
      .execute();
  tasks.set(size, String(task.id));
}
const notificationRows = async () =>
  Number(
    (
      await store.db
        .selectFrom('notifications')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirst()
    ).n,
  );
let said = 0;
const comment = (size) => createComment(store, caller, tasks.get(size), `Comment ${++said}`);
for (const size of SIZES) for (let i = 0; i < EACH; i++) await comment(size); // warm-up
const written = new Map();
for (const size of SIZES) {
  const before = await notificationRows();
  await comment(size);
  written.set(size, (await notificationRows()) - before);
}
const samples = new Map(SIZES.map((size) => [size, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const size of SIZES) {
    const start = cpuMs();
    for (let i = 0; i < EACH; i++) await comment(size);
    samples.get(size).push((cpuMs() - start) / EACH);
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const base = median(samples.get(0));
console.log(`${pgDatabase ? 'PostgreSQL' : 'SQLite'}, a comment on a task followed by N people:`);
console.log('| followers | notifications written | CPU ms a comment (median) | ÷ no one notified |');
console.log('|---|---|---|---|');
for (const size of SIZES) {
  const m = median(samples.get(size));
  console.log(`| ${size} | ${written.get(size)} | ${m.toFixed(3)} | ${(m / base).toFixed(2)}× |`);
}

// The inbox: a person with 100 notifications and one with 100,000 (a tenth unread).
const taskId = Number(tasks.get(0));
const inboxOf = async (count) => {
  const userId = await person('member');
  const rows = Array.from({ length: count }, (_, i) => ({
    team_id: team.id,
    user_id: userId,
    task_id: taskId,
    kind: 'commented',
    actor_id: ownerId,
    created_at: now,
    read_at: i % 10 === 0 ? null : now,
  }));
  for (let i = 0; i < rows.length; i += 1000)
    await store.db
      .insertInto('notifications')
      .values(rows.slice(i, i + 1000))
      .execute();
  return { userId, teamId: team.id, role: 'member', credential: { kind: 'key', id: 'bench' } };
};
const small = await inboxOf(100);
const large = await inboxOf(100_000);
if (pgDatabase) {
  const client = new pg.Client({ connectionString: pgDatabase.url });
  await client.connect();
  await client.query('analyze');
  await client.end();
}
// The readers may read the task (it is in a list of theirs): the inbox shows only what they may.
for (const reader of [small, large])
  await store.db
    .insertInto('list_members')
    .values({ list_id: list.id, user_id: reader.userId, created_at: now })
    .execute();
const timeInbox = async (reader, query) => {
  for (let i = 0; i < 20; i++) await listNotifications(store, reader, query);
  const start = performance.now();
  for (let i = 0; i < 200; i++) await listNotifications(store, reader, query);
  return ((performance.now() - start) / 200).toFixed(3);
};
console.log('| inbox | first page of 50 (ms) | unread=true, first page (ms) |');
console.log('|---|---|---|');
for (const [label, reader] of [
  ['100 notifications', small],
  ['100,000 notifications', large],
]) {
  console.log(
    `| ${label} | ${await timeInbox(reader, { limit: '50' })} | ${await timeInbox(reader, { limit: '50', unread: 'true' })} |`,
  );
}
await store.close();
if (pgDatabase) await pgDatabase.remove?.();
fs.rmSync(dir, { recursive: true, force: true });
