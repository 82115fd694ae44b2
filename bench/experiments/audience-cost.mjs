// Issue 27, target 2: what a PATCH of a task costs as the list it is in grows, at 2, 50, 500 and
// 2,000 members (BENCHMARKS.md, issue 27). In one process on a fresh SQLite database: the
// service's updateTask (a title change; no HTTP, no authentication) run ROUNDS × EACH times per
// size, the sizes alternating, each timed by process.cpuUsage; the median of the rounds is the
// answer, with each size's ratio to the 2-member list's. Also counts the event_recipients rows a
// change writes. CPU time on a loaded machine is noisy; the ratios are the figure to read.
//
//   [ROUNDS=15] [EACH=40] node bench/experiments/audience-cost.mjs
import fs from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../dist/src/storage/database.js';
import { migrateToLatest } from '../../dist/src/storage/migrate.js';
import { createTeam } from '../../dist/src/membership/accounts.service.js';
import { insertUser } from '../../dist/src/team/users.repository.js';
import { upsertMember } from '../../dist/src/team/teams.repository.js';
import { createList } from '../../dist/src/lists/lists.service.js';
import { createTask, updateTask } from '../../dist/src/tasks/tasks.service.js';

const SIZES = [2, 50, 500, 2000];
const ROUNDS = Number(process.env.ROUNDS ?? 15);
const EACH = Number(process.env.EACH ?? 40);
const dir = fs.mkdtempSync(join(os.tmpdir(), 'audience-cost-'));
const store = openStore(`sqlite:${join(dir, 'tasklane.db')}`);
await migrateToLatest(store);

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

const rowsBefore = async () =>
  Number(
    (
      await store.db
        .selectFrom('event_recipients')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirst()
    ).n,
  );
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
    const start = process.cpuUsage();
    for (let i = 0; i < EACH; i++) await patch(size);
    const used = process.cpuUsage(start);
    samples.get(size).push((used.user + used.system) / 1000 / EACH);
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
console.log('| list members | event_recipients rows a change | CPU ms a PATCH (median) | ÷ 2 members |');
console.log('|---|---|---|---|');
for (const size of SIZES) {
  const m = median([...samples.get(size)]);
  console.log(
    `| ${size.toLocaleString('en')} | ${recipients.get(size)} | ${m.toFixed(3)} | ${(m / base).toFixed(2)}× |`,
  );
}
await store.close();
fs.rmSync(dir, { recursive: true, force: true });
