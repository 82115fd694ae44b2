// Issue 31: listing a task's attachments is flat in the team's total. Two fresh databases in one
// process: in each, a task with 20 attachments, in a team whose other tasks hold 100 or 100,000
// more (rows only: the listing never touches the files). The service's listAttachments (the
// task's access check and the (task_id, id) range; no HTTP) is run ROUNDS × EACH times on each,
// alternating, timed by process.cpuUsage; the medians and their ratio are the answer.
//
//   npx tsc -p tsconfig.json && [ROUNDS=15] [EACH=200] [PG=postgres://…/postgres] node bench/experiments/attachment-listing.mjs
//
// PG runs on two fresh PostgreSQL databases on that server instead (ANALYZEd after the load);
// the time is then this process's CPU only, so read the ratio.
import fs from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { createPostgresDatabase } from '../../dist/test/harness.js';

const root = new URL('../..', import.meta.url).pathname;
const { openStore } = await import(`${root}/dist/src/storage/database.js`);
const { migrateToLatest } = await import(`${root}/dist/src/storage/migrate.js`);
const { createTeam } = await import(`${root}/dist/src/membership/accounts.service.js`);
const { insertUser } = await import(`${root}/dist/src/team/users.repository.js`);
const { upsertMember } = await import(`${root}/dist/src/team/teams.repository.js`);
const { createTask } = await import(`${root}/dist/src/tasks/tasks.service.js`);
const { listAttachments } = await import(`${root}/dist/src/attachments/attachments.service.js`);

const SIZES = [100, 100_000];
const ON_TASK = 20;
const ROUNDS = Number(process.env.ROUNDS ?? 15);
const EACH = Number(process.env.EACH ?? 200);
const dir = fs.mkdtempSync(join(os.tmpdir(), 'attachment-listing-'));

/** A database whose team has `total` attachments in all, ON_TASK of them on the task returned. */
async function workspace(total) {
  const postgres = process.env.PG
    ? await createPostgresDatabase(process.env.PG, `scratch_attachments_${total}_${process.pid}`)
    : undefined;
  const store = openStore(postgres ? postgres.url : `sqlite:${join(dir, `${total}.db`)}`);
  await migrateToLatest(store);
  const team = await store.transaction((trx) => createTeam(trx, `Team of ${total}`));
  const user = await insertUser(store.db, { email: 'owner@example.test', name: 'Owner', passwordHash: null });
  await upsertMember(store.db, team.id, user.id, 'owner');
  const caller = { userId: user.id, teamId: team.id, role: 'owner', credential: { kind: 'key', id: 'bench' } };
  const probe = await createTask(store, caller, { title: 'The task listed' });
  const others = [];
  for (let i = 0; i < 100; i++) others.push((await createTask(store, caller, { title: `Other ${i}` })).id);
  const now = new Date().toISOString();
  const row = (n, taskId) => ({
    team_id: team.id,
    task_id: taskId,
    storage_key: `key-${n}`,
    name: `file-${n}.png`,
    size: 1000,
    content_type: 'image/png',
    sha256: '0'.repeat(64),
    uploaded_by: user.id,
    created_at: now,
  });
  let n = 0;
  // The probe's rows first and last, the others' between: the range is not simply the table's start.
  const rows = [];
  for (let i = 0; i < ON_TASK / 2; i++) rows.push(row(++n, probe.id));
  for (let i = 0; i < total - ON_TASK; i++) rows.push(row(++n, others[i % others.length]));
  for (let i = 0; i < ON_TASK / 2; i++) rows.push(row(++n, probe.id));
  for (let i = 0; i < rows.length; i += 1000) {
    await store.db
      .insertInto('attachments')
      .values(rows.slice(i, i + 1000))
      .execute();
  }
  if (postgres) await sql`analyze`.execute(store.db);
  return { store, remove: () => postgres?.remove(), list: () => listAttachments(store, caller, String(probe.id)) };
}

const workspaces = new Map();
for (const total of SIZES) workspaces.set(total, await workspace(total));
for (const total of SIZES) {
  const listed = await workspaces.get(total).list();
  if (listed.length !== ON_TASK) throw new Error(`expected ${ON_TASK} attachments, listed ${listed.length}`);
}
const samples = new Map(SIZES.map((total) => [total, []]));
for (const total of SIZES) for (let i = 0; i < EACH; i++) await workspaces.get(total).list(); // warm-up
for (let round = 0; round < ROUNDS; round++) {
  for (const total of SIZES) {
    const start = process.cpuUsage();
    for (let i = 0; i < EACH; i++) await workspaces.get(total).list();
    const used = process.cpuUsage(start);
    samples.get(total).push((used.user + used.system) / 1000 / EACH);
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const base = median(samples.get(SIZES[0]));
console.log(`${process.env.PG ? 'PostgreSQL' : 'SQLite'}, ${ON_TASK} attachments listed, node ${process.version}`);
console.log('| attachments in the team | CPU ms a listing (median) | ÷ 100 |');
console.log('|---|---|---|');
for (const total of SIZES) {
  const m = median(samples.get(total));
  console.log(`| ${total.toLocaleString('en')} | ${m.toFixed(3)} | ${(m / base).toFixed(2)}× |`);
}
for (const { store, remove } of workspaces.values()) {
  await store.close();
  await remove();
}
fs.rmSync(dir, { recursive: true, force: true });
