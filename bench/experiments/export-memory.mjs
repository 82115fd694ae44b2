// Issue 32: does a whole team's export stream with flat memory? For each size (tasks per team;
// default 10,000, 100,000 and 1,000,000) it generates a fresh benchmark dataset (bench/generate.ts:
// two teams of that size, with their comments and activity), then runs the built
// `tasklane admin export --org <team A> --to <file>` as a child process with the Node.js flags of
// its #! line (bin/tasklane.js), and prints per size: the dataset's generation time, the export's
// wall time, the child's peak RSS (VmHWM, read with VmRSS every 50 ms from /proc: Linux), its RSS
// along the run (at each tenth of the wall time), the file's size and the lines per type (the
// command's printed counts). Flat memory: peak RSS at 1M ÷ peak RSS at 10k close to 1.
//
//   npx tsc -p tsconfig.json && node bench/experiments/export-memory.mjs [SIZE ...]
//   PG=postgres://postgres@127.0.0.1:5432/postgres node bench/experiments/export-memory.mjs 1000000
//
// PG runs on a throwaway PostgreSQL database per size on that server instead (the generator
// VACUUM ANALYZEs it after the load; it is dropped after). The datasets and files go to the temp
// folder (a 1M-task team: ~1.7 GB of SQLite database) and are removed after each size.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const root = new URL('../..', import.meta.url).pathname;
const { generateDataset } = await import(`${root}/dist/bench/generate.js`);
const { createPostgresDatabase } = await import(`${root}/dist/test/harness.js`);

const sizes = process.argv.slice(2).map(Number);
if (sizes.length === 0) sizes.push(10_000, 100_000, 1_000_000);
const pgServer = process.env.PG;
const SAMPLE_MS = 50;
const mib = (bytes) => (bytes / 1024 / 1024).toFixed(1);

/** VmRSS and VmHWM of a live process, in bytes; undefined once it is gone. */
function memory(pid) {
  let status;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  const rss = kb('VmRSS');
  const hwm = kb('VmHWM');
  return Number.isNaN(rss) ? undefined : { rss, hwm }; // a zombie has no Vm lines
}

/** Runs the export as a child; resolves to its printed JSON, wall time and memory samples. */
async function runExport(databaseUrl, teamId, file, filesDir) {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    ['--max-semi-space-size=4', join(root, 'bin', 'tasklane.js'), 'admin', 'export', '--org', teamId, '--to', file],
    {
      env: { ...process.env, DATABASE_URL: databaseUrl, ATTACHMENTS_DIR: filesDir, LOG_LEVEL: 'error' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c) => (stderr += c));
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  let done = false;
  exited.then(() => (done = true));
  const samples = []; // [ms since start, rss]
  let peak = 0;
  while (!done) {
    const m = memory(child.pid);
    if (m) {
      samples.push([performance.now() - started, m.rss]);
      peak = Math.max(peak, m.hwm, m.rss);
    }
    await sleep(SAMPLE_MS);
  }
  const code = await exited;
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`export exited with ${code}: ${stderr || stdout}`);
  const printed = JSON.parse(stdout.slice(stdout.indexOf('{')));
  return { printed, seconds, peak, samples };
}

/** RSS at each tenth of the run (the sample nearest before it). */
function alongTheRun(samples, seconds) {
  const out = [];
  for (let tenth = 1; tenth <= 10; tenth++) {
    const at = (seconds * 1000 * tenth) / 10;
    let rss = samples[0]?.[1] ?? 0;
    for (const [t, r] of samples) if (t <= at) rss = r;
    out.push(mib(rss));
  }
  return out.join(' ');
}

const results = [];
for (const size of sizes) {
  const dir = mkdtempSync(join(tmpdir(), 'tasklane-export-bench-'));
  const database = pgServer
    ? await createPostgresDatabase(pgServer, `scratch_export_${size}_${process.pid}`)
    : { url: `sqlite:${join(dir, 'tasklane.db')}`, remove: async () => {} };
  try {
    const dataset = await generateDataset(database.url, size);
    const dbBytes = pgServer ? undefined : statSync(join(dir, 'tasklane.db')).size;
    console.log(
      `${size}: generated in ${dataset.seconds.toFixed(1)} s (both teams: ${JSON.stringify(dataset.rows)})` +
        (dbBytes ? `, database ${mib(dbBytes)} MiB` : ''),
    );
    const file = join(dir, 'export.jsonl.gz');
    const { printed, seconds, peak, samples } = await runExport(
      database.url,
      dataset.teamA.teamId,
      file,
      join(dir, 'files'),
    );
    const bytes = statSync(file).size;
    const counts = Object.fromEntries(Object.entries(printed.counts).filter(([, n]) => n > 0));
    const row = { size, seconds, peak, bytes, counts, samples: samples.length };
    results.push(row);
    console.log(
      `${size}: export ${seconds.toFixed(1)} s, file ${mib(bytes)} MiB (printed ${printed.bytes} bytes), ` +
        `peak RSS ${mib(peak)} MiB; lines ${JSON.stringify(counts)}`,
    );
    console.log(
      `${size}: RSS (MiB) at each tenth of the run: ${alongTheRun(samples, seconds)} (${samples.length} samples)`,
    );
  } finally {
    await database.remove();
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`\nengine: ${pgServer ? 'PostgreSQL' : 'SQLite'}, node ${process.version}`);
console.log('| tasks | lines by type | file | wall time | peak RSS |');
console.log('| --- | --- | --- | --- | --- |');
for (const r of results) {
  const lines = Object.entries(r.counts)
    .map(([type, n]) => `${n.toLocaleString('en')} ${type}`)
    .join(', ');
  console.log(
    `| ${r.size.toLocaleString('en')} | ${lines} | ${mib(r.bytes)} MiB | ${r.seconds.toFixed(1)} s | ${mib(r.peak)} MiB |`,
  );
}
const first = results[0];
for (const r of results.slice(1)) {
  console.log(
    `peak RSS ${r.size.toLocaleString('en')} ÷ ${first.size.toLocaleString('en')}: ${(r.peak / first.peak).toFixed(2)}×`,
  );
}
process.exit(0);
