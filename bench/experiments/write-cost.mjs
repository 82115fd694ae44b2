// Issue 27's write budget, counted rather than timed (BENCHMARKS.md, issue 27): on a copy of a
// kept SQLite dataset (dataset.mjs), the `tasklane serve` process runs under valgrind's callgrind,
// which counts the instructions it executes whatever else the machine does. After a warm-up,
// N details (scenario 1), N PATCHes (scenario 6) and N creates (scenario 5) are sent one at a
// time, each phase dumped on its own; the answer is instructions per request and each write's
// ratio to the detail. With STATEMENTS=1 it instead counts the SQL statements each request
// sends (in-process, test/statement-log.ts), which needs no valgrind.
//
// Caution (BENCHMARKS.md, issue 27): the callgrind totals count every thread of the process, V8's
// compiler and GC helpers included, which run when they will: at N=40–100 a phase's total moved
// by up to 2× between runs of the same code. The statement counts are exact.
//
//   DB=…/ds-10000.db DB_META=…/ds-sqlite-10000.json [N=200] [WARM=300] node bench/experiments/write-cost.mjs
/* global fetch */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';

// APP_ROOT: another checkout's (or a copy's) bin/ and dist/ to serve, for an A/B in one run.
const ROOT = process.env.APP_ROOT ?? new URL('../..', import.meta.url).pathname;
const d = JSON.parse(fs.readFileSync(process.env.DB_META, 'utf8'));
const N = Number(process.env.N ?? 200);
const WARM = Number(process.env.WARM ?? 300);
const team = d.teamA;
const dir = fs.mkdtempSync(join(os.tmpdir(), 'write-cost-'));
const file = join(dir, 'tasklane.db');
fs.copyFileSync(process.env.DB.replace(/^sqlite:/, ''), file);
const url = `sqlite:${file}`;

let seed = 7;
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const taskId = () => 2 * Math.floor(random() * d.tasksPerTeam) + 1; // odd ids: team A
const member = (i) => team.memberIds[i % team.memberIds.length];
const detail = () => ['GET', `/v1/tasks/${taskId()}`];
const patch = (i) => [
  'PATCH',
  `/v1/tasks/${taskId()}`,
  {
    taskStatusId: i % 2 === 0 ? team.statuses.inProgress : team.statuses.todo,
    assigneeIds: [member(1 + (i % 49)), member(3 + (i % 47))],
  },
];
const create = (i) => [
  'POST',
  '/v1/tasks',
  {
    title: `Bench created task ${i}`,
    priority: 'medium',
    dueDate: '2026-06-01',
    taskListIds: [team.listIds[i % 50], team.listIds[50 + (i % 100)]],
    assigneeIds: [member(1 + (i % 49)), member(2 + (i % 48))],
  },
];
const phases = [
  ['detail', detail],
  ['PATCH', patch],
  ['create', create],
];

async function send(origin, [method, path, body]) {
  const response = await fetch(origin + path, {
    method,
    headers: { 'x-api-key': d.key, ...(body && { 'content-type': 'application/json' }) },
    body: body && JSON.stringify(body),
  });
  await response.arrayBuffer();
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status}`);
}

async function run(origin, make, count, offset) {
  for (let i = 0; i < count; i++) await send(origin, make(offset + i));
}

if (process.env.STATEMENTS) {
  // Every statement better-sqlite3 runs, by its text (the app's own store, transactions included).
  const { default: Database } = await import('better-sqlite3');
  const ran = [];
  const statement = Object.getPrototypeOf(new Database(':memory:').prepare('select 1'));
  for (const method of ['all', 'get', 'run', 'iterate']) {
    const original = statement[method];
    statement[method] = function (...args) {
      ran.push(this.source);
      return original.apply(this, args);
    };
  }
  const { startCountedApp } = await import('../../dist/test/statement-log.js');
  const app = await startCountedApp(url);
  const origin = app.client().baseUrl;
  for (const [name, make] of phases) {
    await run(origin, make, WARM, 0);
    const before = ran.length;
    await run(origin, make, N, WARM);
    const mine = ran.slice(before);
    const bySql = new Map();
    for (const sql of mine) bySql.set(sql, (bySql.get(sql) ?? 0) + 1);
    console.log(`${name}: ${(mine.length / N).toFixed(2)} statements a request`);
    for (const [sql, count] of bySql)
      console.log(`  ${(count / N).toFixed(2)}  ${sql.replace(/\s+/g, ' ').slice(0, process.env.WIDE ? 2000 : 160)}`);
  }
  await app.close();
} else {
  const flags = fs
    .readFileSync(join(ROOT, 'bin', 'tasklane.js'), 'utf8')
    .split('\n', 1)[0]
    .split(/\s+/);
  const nodeFlags = flags.slice(flags.indexOf('node') + 1);
  const out = join(dir, 'callgrind.out');
  const env = {
    ...process.env,
    DATABASE_URL: url,
    PORT: '0',
    HOST: '127.0.0.1',
    RATE_LIMIT_PER_MINUTE: '0',
    LOG_LEVEL: 'silent',
  };
  delete env.NODE_OPTIONS;
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      '--smc-check=all-non-file',
      `--callgrind-out-file=${out}`,
      process.execPath,
      ...nodeFlags,
      join(ROOT, 'bin', 'tasklane.js'),
      'serve',
    ],
    { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  const origin = await new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      stdout += chunk;
      const match = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(stdout);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
  // vgdb names its pipes after $HOST, which the server's environment sets to the address it
  // listens on: callgrind_control must see the same HOST to find them.
  // Callgrind takes a command when the process next runs: an idle server runs when a request
  // comes, so each command is followed by a GET /healthz (a small cost, counted in the next phase).
  const control = async (...args) => {
    const done = new Promise((resolve) =>
      spawn('callgrind_control', [...args, String(child.pid)], {
        stdio: 'ignore',
        env: { ...process.env, HOST: env.HOST },
      }).once('exit', resolve),
    );
    await sleep(200);
    await fetch(`${origin}/healthz`).then((r) => r.arrayBuffer());
    await done;
  };
  const totalOf = (dump) => {
    const text = fs.readFileSync(dump, 'utf8');
    return Number(/^(?:summary|totals): (\d+)/m.exec(text)[1]);
  };
  for (const [, make] of phases) await run(origin, make, WARM, 0);
  // Instrumented from here only: start-up and warm-up run several times faster uncounted.
  await control('-i', 'on');
  const perRequest = {};
  let dumps = 0;
  for (const [name, make] of phases) {
    await run(origin, make, N, WARM);
    await control('-d', name);
    dumps++;
    // callgrind_control may return before a busy process has written its dump: wait for it.
    const dump = `${out}.${dumps}`;
    while (!(fs.existsSync(dump) && /^totals: /m.test(fs.readFileSync(dump, 'utf8')))) await sleep(1000);
    perRequest[name] = totalOf(dump) / N;
  }
  child.kill('SIGTERM');
  for (const [name, value] of Object.entries(perRequest)) {
    const ratio = name === 'detail' ? '' : `  ${(value / perRequest.detail).toFixed(2)}× detail`;
    console.log(`${name}: ${(value / 1e6).toFixed(2)} M instructions a request${ratio}`);
  }
}
fs.rmSync(dir, { recursive: true, force: true });
process.exit(0);
