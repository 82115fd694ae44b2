// Issue 27, target 2: what a PATCH of a task costs as the list it is in grows, at 2, 50, 500 and
// 2,000 members (BENCHMARKS.md, issue 27). In one process on a fresh SQLite database: the
// service's updateTask (a title change; no HTTP, no authentication) run ROUNDS × EACH times per
// size, the sizes alternating, each timed by process.cpuUsage; the median of the rounds is the
// answer, with each size's ratio to the 2-member list's. Also counts the event_recipients rows a
// change writes (event_recipients, and event_audiences where the tree has it). CPU time on a
// loaded machine is noisy; the ratios are the figure to read.
//
//   [ROUNDS=15] [EACH=40] [ROOT=<a built checkout>] [PG=postgres://…/postgres] node bench/experiments/audience-cost.mjs
//
// ROOT runs another checkout's code (an A/B in one machine state); PG runs on a fresh
// PostgreSQL database on that server instead of SQLite, and adds PostgreSQL's own CPU.
import fs from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { parentPid, postgresCpuMs } from '../../dist/bench/support.js';
import { createPostgresDatabase } from '../../dist/test/harness.js';

const root = process.env.ROOT ?? new URL('../..', import.meta.url).pathname;
const { openStore } = await import(`${root}/dist/src/storage/database.js`);
const { migrateToLatest } = await import(`${root}/dist/src/storage/migrate.js`);
const { createTeam } = await import(`${root}/dist/src/membership/accounts.service.js`);
const { insertUser } = await import(`${root}/dist/src/team/users.repository.js`);
const { upsertMember } = await import(`${root}/dist/src/team/teams.repository.js`);
const { createList } = await import(`${root}/dist/src/lists/lists.service.js`);
const { createTask, updateTask } = await import(`${root}/dist/src/tasks/tasks.service.js`);

const SIZES = [2, 50, 500, 2000];
const ROUNDS = Number(process.env.ROUNDS ?? 15);
const EACH = Number(process.env.EACH ?? 40);
const dir = fs.mkdtempSync(join(os.tmpdir(), 'audience-cost-'));
const pgDatabase = process.env.PG && (await createPostgresDatabase(process.env.PG, `scratch_audience_${process.pid}`));
const store = openStore(pgDatabase ? pgDatabase.url : `sqlite:${join(dir, 'tasklane.db')}`);
await migrateToLatest(store);
let postmaster;
if (pgDatabase) {
  const probe = new pg.Client({ connectionString: pgDatabase.url });
  await probe.connect();
  postmaster = parentPid((await probe.query('select pg_backend_pid() as pid')).rows[0].pid);
  await probe.end();
}
/** CPU ms so far: this process's, and on PostgreSQL its server's for this database too. */
const cpuMs = () => {
  const used = process.cpuUsage();
  return (
    (used.user + used.system) / 1000 +
    (pgDatabase ? postgresCpuMs(postmaster, new URL(pgDatabase.url).pathname.slice(1)) : 0)
  );
};

const team = await store.transaction((trx) => createTeam(trx, 'Audience'));
let people = 0;
const person = async (role) => {
  const n = ++people;
  const user = await insertUser(store.db, { email: `p${n}@example.test`, name: `Person ${n}`, passwordHash: null });
  await upsertMember(store.db, team.id, user.id, role);
  return user.id;
};
const ownerId = await person('owner');
const caller = { userId: ownerId, teamId: team.id, role: 'owner', credential: { kind: 'key', id: 'bench' } };

const tasks = new Map();
for (const size of SIZES) {
  const list = await createList(store, caller, { name: `${size} members` });
  const listId = list.id;
  const members = [];
  for (let i = 1; i < size; i++) members.push(await person('member'));
  const now = new Date().toISOString();
  for (const userId of members)
    await store.db.insertInto('list_members').values({ list_id: listId, user_id: userId, created_at: now }).execute();
  const task = await createTask(store, caller, { title: `In a list of ${size}`, taskListIds: [listId] });
  tasks.set(size, task.id);
}

const count = async (table) =>
  Number(
    (
      await store.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirst()
    ).n,
  );
const hasAudiences = await count('event_audiences').then(
  () => true,
  () => false,
);
const rowsBefore = async () => (await count('event_recipients')) + (hasAudiences ? await count('event_audiences') : 0);
const samples = new Map(SIZES.map((size) => [size, []]));
const recipients = new Map();
let edit = 0;
const patch = (size) => updateTask(store, caller, String(tasks.get(size)), { title: `Edit ${++edit}` });
for (const size of SIZES) for (let i = 0; i < EACH; i++) await patch(size); // warm-up
for (const size of SIZES) {
  const before = await rowsBefore();
  await patch(size);
  recipients.set(size, (await rowsBefore()) - before);
}
for (let round = 0; round < ROUNDS; round++) {
  for (const size of SIZES) {
    const start = cpuMs();
    for (let i = 0; i < EACH; i++) await patch(size);
    samples.get(size).push((cpuMs() - start) / EACH);
  }
}
// BREAKDOWN=1: where a PATCH's time goes at 2,000 members, by statement (SQLite's own time).
if (process.env.BREAKDOWN) {
  const { default: Database } = await import('better-sqlite3');
  const statement = Object.getPrototypeOf(new Database(':memory:').prepare('select 1'));
  const spent = new Map();
  for (const method of ['all', 'get', 'run']) {
    const original = statement[method];
    statement[method] = function (...args) {
      const start = process.hrtime.bigint();
      try {
        return original.apply(this, args);
      } finally {
        const key = this.source.replace(/\s+/g, ' ').slice(0, 70);
        spent.set(key, (spent.get(key) ?? 0n) + process.hrtime.bigint() - start);
      }
    };
  }
  const start = process.cpuUsage();
  for (let i = 0; i < EACH; i++) await patch(2000);
  const used = process.cpuUsage(start);
  console.log(
    `2,000 members: ${((used.user + used.system) / 1000 / EACH).toFixed(3)} ms CPU a PATCH; SQLite's time by statement:`,
  );
  for (const [key, ns] of [...spent].sort((a, b) => Number(b[1] - a[1])))
    console.log(`  ${(Number(ns) / 1e6 / EACH).toFixed(3)} ms  ${key}`);
}
const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
const base = median([...samples.get(2)]);
console.log('| list members | audience rows a change | CPU ms a PATCH (median) | ÷ 2 members |');
console.log('|---|---|---|---|');
for (const size of SIZES) {
  const m = median([...samples.get(size)]);
  console.log(
    `| ${size.toLocaleString('en')} | ${recipients.get(size)} | ${m.toFixed(3)} | ${(m / base).toFixed(2)}× |`,
  );
}
await store.close();
await pgDatabase?.remove();
fs.rmSync(dir, { recursive: true, force: true });
