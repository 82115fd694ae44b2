// Issue 15's driver comparison (BENCHMARKS.md): the same service functions over three
// PostgreSQL setups, in one process, 10 concurrent callers, no HTTP. Not part of `npm run bench`:
// it needs two packages tasklane does not depend on.
//
//   npm run build && npm install --no-save postgres@3.4.9 kysely-postgres-js@3
//   ONLY=detail DRIVERS='pg,pg named,postgres.js' node bench/experiments/driver-comparison.mjs 10000 3
//
// "pg named" sends every statement with parameters as a named (server-side prepared) statement.
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import postgres from 'postgres';
import { PostgresJSDialect } from 'kysely-postgres-js';
import { createHash } from 'node:crypto';
import { generateDataset } from '../../dist/bench/generate.js';
import { createPostgresDatabase } from '../../dist/test/harness.js';
import { openStore } from '../../dist/src/storage/database.js';

import { getTask, createTask, listTasks } from '../../dist/src/tasks/tasks.service.js';
import { cpuMs, postgresCpuMs, parentPid } from '../../dist/bench/support.js';

const size = Number(process.argv[2] ?? 10000);
const seconds = Number(process.argv[3] ?? 5);
const temp = await createPostgresDatabase(
  'postgres://postgres@127.0.0.1:5432/postgres',
  `tasklane_driver_${process.pid}`,
);
try {
  const d = await generateDataset(temp.url, size);
  const caller = { userId: d.userId, teamId: d.teamA.teamId, role: 'owner', credential: { kind: 'key', id: 'x' } };
  const dbName = new URL(temp.url).pathname.slice(1);
  const probe = new pg.Client({ connectionString: temp.url });
  await probe.connect();
  const postmaster = parentPid((await probe.query('select pg_backend_pid() as pid')).rows[0].pid);
  await probe.end();

  const storeOf = (db) => ({
    db,
    dialect: 'postgres',
    transaction: (work) => db.transaction().setIsolationLevel('read committed').execute(work),
    close: () => db.destroy(),
  });
  // pg, as tasklane ships it
  const shipped = () => openStore(temp.url);
  // pg, each statement a named (server-side prepared) statement
  class NamedClient extends pg.Client {
    query(config, values, cb) {
      if (typeof config === 'object' && config && typeof config.text === 'string' && !config.name) {
        config = { ...config, name: createHash('sha1').update(config.text).digest('base64url').slice(0, 20) };
      } else if (typeof config === 'string' && Array.isArray(values)) {
        config = { text: config, values, name: createHash('sha1').update(config).digest('base64url').slice(0, 20) };
        values = undefined;
      }
      return super.query(config, values, cb);
    }
  }
  const named = () =>
    storeOf(
      new Kysely({
        dialect: new PostgresDialect({
          pool: new pg.Pool({ connectionString: temp.url, max: 10, Client: NamedClient }),
        }),
      }),
    );
  const porsager = () =>
    storeOf(
      new Kysely({ dialect: new PostgresJSDialect({ postgres: postgres(temp.url, { max: 10, onnotice: () => {} }) }) }),
    );

  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const ids = Array.from({ length: 1000 }, () => String(2 * Math.floor(rnd() * size) + 1));
  const scenarios = {
    detail: (s, i) => getTask(s, caller, ids[i % ids.length]),
    list: (s) =>
      listTasks(s, caller, { listIds: [d.filterList.id], priorities: ['medium'], isCompleted: false, limit: 1000 }),
    create: (s, i) =>
      createTask(s, caller, {
        title: `driver ${i}`,
        taskListIds: [d.filterList.id],
        assigneeIds: d.teamA.memberIds.slice(1, 3),
      }),
  };
  const rows = [];
  const only = (process.env.ONLY ?? 'detail,list,create').split(',');
  const drivers = (process.env.DRIVERS ?? 'pg,pg named,postgres.js').split(',');
  for (const [scenario, op] of Object.entries(scenarios).filter(([k]) => only.includes(k))) {
    for (const round of [1, 2])
      for (const [name, open] of Object.entries({ pg: shipped, 'pg named': named, 'postgres.js': porsager }).filter(
        ([k]) => drivers.includes(k),
      )) {
        const store = open();
        try {
          let i = 0;
          const until = Date.now() + 1000; // warm-up 1 s
          await Promise.all(
            Array.from({ length: 10 }, async () => {
              while (Date.now() < until) await op(store, i++);
            }),
          );
          let n = 0;
          const c0 = cpuMs(process.pid),
            p0 = postgresCpuMs(postmaster, dbName),
            t0 = performance.now();
          const end = Date.now() + seconds * 1000;
          await Promise.all(
            Array.from({ length: 10 }, async () => {
              while (Date.now() < end) {
                await op(store, i++);
                n++;
              }
            }),
          );
          const wall = (performance.now() - t0) / 1000,
            node = cpuMs(process.pid) - c0,
            pgcpu = postgresCpuMs(postmaster, dbName) - p0;
          rows.push(
            `| ${scenario} | ${round} | ${name} | ${Math.round(n / wall)} | ${(node / n).toFixed(3)} ms | ${(pgcpu / n).toFixed(3)} ms | ${((node + pgcpu) / n).toFixed(3)} ms |`,
          );
          console.error(rows.at(-1));
        } finally {
          await store.close();
        }
      }
  }
  console.log(
    `size ${size}, ${seconds} s per run, 10 concurrent callers, in-process (no HTTP)\n| scenario | round | driver | ops/s | node CPU/op | PostgreSQL CPU/op | machine CPU/op |\n|---|---|---|---|---|---|---|\n${rows.join('\n')}`,
  );
} finally {
  await temp.remove();
}
