// Issue 15's page-of-tasks measurements on SQLite (BENCHMARKS.md, "a page of tasks written by
// SQLite"): the statements GET /v1/tasks runs for scenario 2 (ALL=1: scenario 4), each timed
// with better-sqlite3 directly, best of 3 × 1,500 runs. VARIANTS='[["label","from","to"],…]'
// times edited copies of the first statement and says whether they answer the same.
//
//   DB=…/ds-10000.db DB_META=…/ds-sqlite-10000.json node bench/experiments/page-statements.mjs
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { listTasks } from '../../dist/src/tasks/tasks.service.js';

const d = JSON.parse(fs.readFileSync(process.env.DB_META, 'utf8'));
const db = new Database(process.env.DB.replace(/^sqlite:/, ''), { readonly: true });
const logged = [];
const k = new Kysely({ dialect: new SqliteDialect({ database: db }), log: (e) => logged.push(e.query) });
const store = { db: k, dialect: 'sqlite', transaction: (work) => k.transaction().execute(work) };
const caller = { userId: d.userId, teamId: d.teamA.teamId, role: 'owner', credential: { kind: 'key', id: 'x' } };
const filter = process.env.ALL
  ? { limit: 1000 }
  : { taskListIds: [d.filterList.id], priorities: ['medium'], isCompleted: false, limit: 200 };
const page = await listTasks(store, caller, filter);

function time(sqlText, parameters) {
  const statement = db.prepare(sqlText);
  const rows = statement.all(...parameters);
  let best = Infinity;
  for (let round = 0; round < 3; round++) {
    const start = process.cpuUsage();
    for (let i = 0; i < 1500; i++) statement.all(...parameters);
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / 1500);
  }
  return { rows, micros: best.toFixed(0) };
}
for (const query of logged) {
  const { rows, micros } = time(query.sql, query.parameters);
  console.log(`${micros} µs, ${rows.length} rows: ${query.sql.slice(0, 120)}…`);
}
const first = logged[0];
for (const [label, from, to] of JSON.parse(process.env.VARIANTS ?? '[]')) {
  const { rows, micros } = time(first.sql.split(from).join(to), first.parameters);
  const same = `[${rows.map((r) => r.summary).join(',')}]` === page;
  console.log(`${micros} µs ${same ? 'same' : 'DIFFERENT'}: ${label}`);
}
