// The floor under a PostgreSQL write's cost (BENCHMARKS.md, issue 27 target 3): what one trivial
// statement costs, Node's CPU and PostgreSQL's, through the same driver and the same named
// (server-side prepared) statements the store uses, inside a transaction of STATEMENTS of them.
// Compare with a write's statement count to see what a write costs before it does any work.
//
//   [STATEMENTS=15] [ROUNDS=2000] node bench/experiments/round-trip-floor.mjs postgres://postgres@127.0.0.1:5432/test
import pg from 'pg';
import { postgresCpuMs, parentPid } from '../../dist/bench/support.js';

const url = process.argv[2] ?? 'postgres://postgres@127.0.0.1:5432/test';
const statements = Number(process.env.STATEMENTS ?? 15);
const rounds = Number(process.env.ROUNDS ?? 2000);
const client = new pg.Client({ connectionString: url });
await client.connect();
const postmaster = parentPid((await client.query('select pg_backend_pid() as pid')).rows[0].pid);
const database = new URL(url).pathname.slice(1);
const once = async () => {
  await client.query('begin');
  for (let i = 0; i < statements; i++) await client.query({ name: 'floor', text: 'select $1::int as n', values: [i] });
  await client.query('commit');
};
for (let i = 0; i < 200; i++) await once();
const c0 = process.cpuUsage();
const p0 = postgresCpuMs(postmaster, database);
const t0 = performance.now();
for (let i = 0; i < rounds; i++) await once();
const ms = performance.now() - t0;
const c = process.cpuUsage(c0);
const p = postgresCpuMs(postmaster, database) - p0;
const per = (x) => (x / rounds).toFixed(3);
console.log(
  `${statements} statements + BEGIN/COMMIT: ${per(ms)} ms wall, Node ${per((c.user + c.system) / 1000)} ms, PostgreSQL ${per(p)} ms a transaction`,
);
await client.end();
