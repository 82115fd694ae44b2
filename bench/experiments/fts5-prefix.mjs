// Issue 29 (BENCHMARKS.md, "A prefix is not flat"): what FTS5's prefix indexes would do for a
// prefix search that walks newest first, on a synthetic in-memory table of N titles (a tenth
// with "invoice" or "invoices", a seventh with "inventory"), without and with `prefix='3'` and
// `prefix='2 3 4'`: the time of a top-20 query per prefix length, and of a one-row insert.
//
//   N=200000 node bench/experiments/fts5-prefix.mjs
import Database from 'better-sqlite3';
const N = Number(process.env.N ?? 200000);
const words = [
  'alpha',
  'bravo',
  'review',
  'meeting',
  'report',
  'budget',
  'design',
  'launch',
  'plan',
  'draft',
  'update',
  'client',
  'server',
  'deploy',
  'fix',
];
function title(i) {
  const w = [];
  for (let k = 0; k < 5; k++)
    w.push(words[(i * 7 + k * 13) % words.length] + ((i * 31 + k) % 50 === 0 ? 'x' + (i % 1000) : ''));
  if (i % 10 === 0) w.push(i % 20 === 0 ? 'invoice' : 'invoices');
  if (i % 7 === 0) w.push('inventory');
  return w.join(' ');
}
for (const opt of ['', ", prefix='3'", ", prefix='2 3 4'"]) {
  const db = new Database(':memory:');
  db.exec(`create virtual table f using fts5(title${opt})`);
  const ins = db.prepare('insert into f(rowid, title) values (?, ?)');
  db.transaction(() => {
    for (let i = 1; i <= N; i++) ins.run(i, title(i));
  })();
  db.exec("insert into f(f) values('optimize')");
  const q = db.prepare('select rowid from f where f match ? order by rowid desc limit 20');
  const time = (m) => {
    q.all(m);
    const s = process.hrtime.bigint();
    for (let i = 0; i < 50; i++) q.all(m);
    return (Number(process.hrtime.bigint() - s) / 50 / 1e6).toFixed(3);
  };
  // write cost: 2000 inserts in single-row transactions
  const t0 = process.hrtime.bigint();
  for (let i = N + 1; i <= N + 2000; i++) db.transaction(() => ins.run(i, title(i)))();
  const w = (Number(process.hrtime.bigint() - t0) / 2000 / 1e3).toFixed(1);
  console.log(
    `N=${N} opt=[${opt}] "inv"* ${time('"inv"*')} ms, "invo"* ${time('"invo"*')} ms, "invoice"* ${time('"invoice"*')} ms, invoice ${time('"invoice"')} ms, insert ${w} µs`,
  );
}
