// A/B runs of the service's create, patch and list calls (BENCHMARKS.md, issues 15 and 16), from
// one process, 10 concurrent callers, no HTTP; prints ops/s, Node CPU and, on PostgreSQL, the
// database's CPU per operation (on SQLite the database runs in the Node process). Run it alternately against two built checkouts
// (ROOT) on one dataset database, which bench/experiments/dataset.mjs makes:
//
//   node bench/experiments/dataset.mjs postgres 100000      # prints DB=… DB_META=…
//   ROOT=<checkout A> DB=… DB_META=… node bench/experiments/ab-service.mjs
//   ROOT=<checkout B> DB=… DB_META=… node bench/experiments/ab-service.mjs
import fs from 'node:fs';
import pg from 'pg';
import { postgresCpuMs, parentPid } from '../../dist/bench/support.js';

const root = process.env.ROOT ?? new URL('../..', import.meta.url).pathname;
const { openStore } = await import(`${root}/dist/src/storage/database.js`);
const { createTask, updateTask, listTasks } = await import(`${root}/dist/src/tasks/tasks.service.js`);
const url = process.env.DB;
const d = JSON.parse(fs.readFileSync(process.env.DB_META, 'utf8'));
const seconds = Number(process.env.SECONDS_EACH ?? 4);
const only = process.env.ONLY?.split(',');
const callers = Number(process.env.CALLERS ?? 10);
const store = openStore(url);
const caller = { userId: d.userId, teamId: d.teamA.teamId, role: 'owner', credential: { kind: 'key', id: 'x' } };
const team = d.teamA;
const member = (i) => team.memberIds[i % team.memberIds.length];
const onPostgres = url.startsWith('postgres');
let postmaster;
let rows;
if (onPostgres) {
  const probe = new pg.Client({ connectionString: url });
  await probe.connect();
  postmaster = parentPid((await probe.query('select pg_backend_pid() as pid')).rows[0].pid);
  rows = (await probe.query('select id from tasks where team_id = $1 order by id limit 1000', [team.teamId])).rows;
  await probe.end();
} else {
  rows = await store.db
    .selectFrom('tasks')
    .select('id')
    .where('team_id', '=', team.teamId)
    .orderBy('id')
    .limit(1000)
    .execute();
}
const ids = rows.map((r) => String(r.id));
const dbName = onPostgres ? new URL(url).pathname.slice(1) : undefined;
/** PostgreSQL's own CPU so far; 0 on SQLite, which runs in this process. */
const databaseCpuMs = () => (onPostgres ? postgresCpuMs(postmaster, dbName) : 0);
const asText = (page) => (typeof page === 'string' ? page : JSON.stringify(page));
const ops = {
  create: (i) =>
    createTask(store, caller, {
      title: `ab ${i}`,
      priority: 'medium',
      dueDate: process.env.DUE_DATE ?? '2026-06-01',
      taskListIds: [team.listIds[i % 50], team.listIds[50 + (i % 100)]],
      assigneeIds: [member(1 + (i % 49)), member(2 + (i % 48))],
    }),
  patch: (i) =>
    updateTask(store, caller, ids[i % 1000], {
      taskStatusId: i % 2 === 0 ? team.statuses.inProgress : team.statuses.todo,
      assigneeIds: [member(1 + (i % 49)), member(3 + (i % 47))],
    }),
  list2: async () =>
    asText(
      await listTasks(store, caller, {
        taskListIds: [d.filterList.id],
        priorities: ['medium'],
        isCompleted: false,
        limit: 200,
      }),
    ),
  list4: async () => asText(await listTasks(store, caller, { limit: 1000 })),
};
for (const [name, op] of Object.entries(ops)) {
  if (only && !only.includes(name)) continue;
  let n = 0;
  const warm = Date.now() + 1000;
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (Date.now() < warm) await op(n++);
    }),
  );
  n = 0;
  const c0 = process.cpuUsage();
  const p0 = databaseCpuMs();
  const t0 = performance.now();
  // A deadline, not a timer: on SQLite every call resolves without yielding to the event loop.
  const end = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (Date.now() < end) await op(n++);
    }),
  );
  const t = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(c0);
  const p = databaseCpuMs() - p0;
  const perOp = (ms) => (ms / n).toFixed(3);
  console.log(
    `${name}: ${(n / t).toFixed(0)} ops/s, Node ${perOp((c.user + c.system) / 1000)} ms/op, PostgreSQL ${perOp(p)} ms/op`,
  );
}
await store.close();
