// Issue 27 target 4 (BENCHMARKS.md, "Issue 27, third round"): where the 200-row filtered page's
// one statement spends its time on SQLite, part by part, and what a stored rendering of each row
// would leave of it. Works on a copy of the dataset (it adds a column), best of 5 × 1,000 runs.
//
//   node bench/experiments/dataset.mjs sqlite 10000     # prints DB=… DB_META=…
//   DB=… DB_META=… node bench/experiments/page-parts.mjs
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { listTasks } from '../../dist/src/tasks/tasks.service.js';

const d = JSON.parse(fs.readFileSync(process.env.DB_META, 'utf8'));
const copy = `${process.env.DB.replace(/^sqlite:/, '')}.page-parts`;
fs.copyFileSync(process.env.DB.replace(/^sqlite:/, ''), copy);
const db = new Database(copy);
const logged = [];
const k = new Kysely({ dialect: new SqliteDialect({ database: db }), log: (e) => logged.push(e.query) });
const store = { db: k, dialect: 'sqlite', transaction: (work) => k.transaction().execute(work) };
const caller = { userId: d.userId, teamId: d.teamA.teamId, role: 'owner', credential: { kind: 'key', id: 'x' } };
const filter = { taskListIds: [d.filterList.id], priorities: ['medium'], isCompleted: false, limit: 200 };
await listTasks(store, caller, filter);
const { sql: page, parameters } = logged[0];
const userParameter = parameters.slice(1); // the lists' membership check's user id comes first

function time(text, values) {
  const statement = db.prepare(text);
  const rows = statement.all(...values);
  let best = Infinity;
  for (let round = 0; round < 5; round++) {
    const start = process.cpuUsage();
    for (let i = 0; i < 1000; i++) statement.all(...values);
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return { micros: best.toFixed(0), rows: rows.length, body: rows.map((r) => r.summary).join(',') };
}
const cut = (from, to) => page.slice(0, page.indexOf(from)) + page.slice(page.indexOf(to));
const tail = page.slice(page.indexOf(' from "task_list_items" as "d"'));
const full = time(page, parameters);
const report = (label, result) => console.log(`${label}: ${result.micros} µs, ${result.rows} rows`);
report('the page as today', full);
report('the walk and the access rule only (ids)', time(`select "t"."id"${tail}`, userParameter));
report('without the assignees', time(cut(", 'assignees', (", ", 'taskLists', ("), parameters));
report('without the lists', time(cut(", 'taskLists', (", ", 'status', json_object"), userParameter));
// A stored rendering: each task's summary as a member of all its lists sees it, in a column.
const summary = page.slice('select "t"."id", '.length, page.indexOf(' as "summary"'));
db.exec('alter table tasks add column summary_json text');
db.prepare(
  `update tasks set summary_json = (select ${summary} from tasks as t
     inner join task_statuses as s on s.id = t.status_id where t.id = tasks.id)`,
).run(parameters[0]);
const stored = time(`select "t"."id", "t"."summary_json" as summary${tail}`, userParameter);
report(`a stored rendering (${stored.body === full.body ? 'the same body' : 'A DIFFERENT BODY'})`, stored);
db.close();
fs.rmSync(copy);
