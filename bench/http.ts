/**
 * The HTTP benchmark: API scenarios (tasks, lists, a task's activity, comments) against the real server on a generated team of
 * 10k / 100k (/ 1M) tasks, on SQLite and PostgreSQL, with a minimal node:http floor
 * (bench/floor.ts) for scenarios 1, 2 and 5, and the query plans of every scenario's SQL.
 *
 * Load: wrk (Debian package `wrk`) in its own process, 1 thread, 10 connections, keep-alive,
 * after a warm-up. Server CPU per request = the server process's own CPU time (utime + stime
 * from /proc/<pid>/stat) over the measured run ÷ requests completed.
 *
 * Environment: BENCH_SIZES (tasks per team, comma separated; default 10000,100000, --quick 10000),
 * BENCH_ENGINES (sqlite,postgres; default both, --quick sqlite), BENCH_PG_URL (a PostgreSQL
 * server to create throwaway databases on; default postgres://postgres@127.0.0.1:5432/postgres),
 * BENCH_SECONDS (measured seconds per scenario; default 8, --quick 4), BENCH_SCENARIOS (the
 * scenario numbers to measure, comma separated; default all: a narrower run is for development),
 * BENCH_NODE_OPTIONS (NODE_OPTIONS for the server only, to measure a Node.js or V8 setting; the
 * server runs with the flags of the `tasklane` command's first line, which come after and win).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, type LogEvent } from 'kysely';
import pg from 'pg';
import type { Caller } from '../src/caller.js';
import type { Priority } from '../src/contract/enums.js';
import { listLists } from '../src/lists/lists.service.js';
import type { Store } from '../src/storage/database.js';
import type { Db } from '../src/storage/schema.js';
import { taskActivity } from '../src/activity/activity.service.js';
import { createComment } from '../src/comments/comments.service.js';
import { createTask, getTask, listTasks, updateTask } from '../src/tasks/tasks.service.js';
import { createPostgresDatabase, type TempDatabase } from '../test/harness.js';
import { BIN, cliEnv, commandNodeFlags, LISTENING, track } from '../test/processes.js';
import {
  BUSY_ENTRIES,
  BUSY_EVERY,
  generateDataset,
  LONG_ENTRIES,
  RARE_TITLES,
  RARE_WORD,
  SEARCH_WORD,
  type Dataset,
} from './generate.js';
import {
  cpuMs,
  describeLoad,
  describeMachine,
  describeRevision,
  mib,
  ms,
  parentPid,
  postgresCpuMs,
  rssBytes,
  ROOT,
  sleep,
  table,
  type Benchmark,
  type BenchOptions,
  type BenchResult,
} from './support.js';

type Engine = 'sqlite' | 'postgres';

interface Scenario {
  id: number;
  name: string;
  method: 'GET' | 'POST' | 'PATCH';
  /** Requests cycled through by wrk: [path, body]. */
  requests: [string, string | undefined][];
  floor: boolean;
}

interface Measured {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  cpuPerRequest: number;
  /** The server's CPU plus the database server's (PostgreSQL's processes; SQLite runs inside the server). */
  machineCpuPerRequest: number;
  peakRss: number;
  errors: number;
}

interface Child {
  url: URL;
  pid: number;
  startupMs: number;
  stop(): Promise<void>;
}

const CONNECTIONS = 10;

// ---------------------------------------------------------------- processes

function startChild(script: string, args: string[], env: NodeJS.ProcessEnv, nodeFlags: string[] = []): Promise<Child> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = track(
      spawn(process.execPath, [...nodeFlags, script, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] }),
    );
    let stdout = '';
    let stderr = '';
    let listening = false;
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script}: not listening after 60 s\n${stdout}\n${stderr}`));
    }, 60_000);
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const match = LISTENING.exec(stdout);
      if (match && !listening) {
        listening = true;
        clearTimeout(timer);
        resolve({
          url: new URL(match[1]!),
          pid: child.pid!,
          startupMs: performance.now() - started,
          stop: async () => {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
            const kill = setTimeout(() => child.kill('SIGKILL'), 30_000);
            await exited;
            clearTimeout(kill);
          },
        });
      }
    });
    void exited.then(() => {
      if (!listening) {
        clearTimeout(timer);
        reject(new Error(`${script} exited before listening\n${stdout}\n${stderr}`));
      }
    });
  });
}

function vmHwm(pid: number): number {
  const match = /^VmHWM:\s+(\d+)\s+kB$/m.exec(execFileSync('cat', [`/proc/${pid}/status`], { encoding: 'utf8' }));
  return match ? Number(match[1]) * 1024 : NaN;
}

// ---------------------------------------------------------------- wrk

const luaString = (s: string) => JSON.stringify(s); // ASCII only: JSON escapes are Lua escapes

function wrkScript(scenario: Scenario, key: string): string {
  return `
local requests = {
${scenario.requests.map(([path, body]) => `  {${luaString(path)}, ${body === undefined ? 'nil' : luaString(body)}},`).join('\n')}
}
local n = #requests
local i = 0
wrk.method = ${luaString(scenario.method)}
wrk.headers["x-api-key"] = ${luaString(key)}
wrk.headers["content-type"] = "application/json"
request = function()
  i = i + 1
  local r = requests[(i % n) + 1]
  return wrk.format(nil, r[1], nil, r[2])
end
done = function(summary, latency, requests)
  io.write(string.format('WRKJSON {"requests":%d,"duration":%d,"p50":%d,"p99":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    summary.errors.connect, summary.errors.read, summary.errors.write, summary.errors.status, summary.errors.timeout))
end
`;
}

function runWrk(url: URL, scriptPath: string, seconds: number): Promise<any> {
  return new Promise((resolve, reject) => {
    const child = track(
      spawn('wrk', ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--timeout', '10s', '-s', scriptPath, url.origin], {
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr!.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.on('error', reject);
    child.on('close', () => {
      const line = out.split('\n').find((l) => l.startsWith('WRKJSON '));
      if (!line) reject(new Error(`wrk printed no summary:\n${out}`));
      else resolve(JSON.parse(line.slice('WRKJSON '.length)));
    });
  });
}

async function measure(
  target: Child,
  scenario: Scenario,
  key: string,
  dir: string,
  warmSeconds: number,
  seconds: number,
  databaseCpuMs: () => number,
): Promise<Measured> {
  const scriptPath = join(dir, `scenario${scenario.id}.lua`);
  writeFileSync(scriptPath, wrkScript(scenario, key));
  await runWrk(target.url, scriptPath, warmSeconds);
  await sleep(300);
  let peakRss = rssBytes(target.pid);
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssBytes(target.pid))), 100);
  const cpuBefore = cpuMs(target.pid);
  const databaseBefore = databaseCpuMs();
  const result = await runWrk(target.url, scriptPath, seconds);
  const cpuAfter = cpuMs(target.pid);
  const databaseAfter = databaseCpuMs();
  clearInterval(sampler);
  const errors = result.connect + result.read + result.write + result.status + result.timeout;
  return {
    requests: result.requests,
    rps: result.requests / (result.duration / 1e6),
    p50: result.p50 / 1000,
    p99: result.p99 / 1000,
    cpuPerRequest: (cpuAfter - cpuBefore) / result.requests,
    machineCpuPerRequest: (cpuAfter - cpuBefore + databaseAfter - databaseBefore) / result.requests,
    peakRss,
    errors,
  };
}

// ---------------------------------------------------------------- scenarios

function scenariosOf(d: Dataset): Scenario[] {
  const team = d.teamA;
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const taskIds = (count: number) => Array.from({ length: count }, () => 2 * Math.floor(random() * d.tasksPerTeam) + 1); // odd ids: team A
  const member = (i: number) => team.memberIds[i % team.memberIds.length]!;
  return [
    {
      id: 1,
      name: 'GET /v1/tasks/{id} (detail)',
      method: 'GET',
      requests: taskIds(1000).map((id) => [`/v1/tasks/${id}`, undefined]),
      floor: true,
    },
    {
      id: 2,
      name: `GET /v1/tasks?taskListId&priority=medium&isCompleted=false`,
      method: 'GET',
      requests: [[`/v1/tasks?taskListId=${d.filterList.id}&priority=medium&isCompleted=false`, undefined]],
      floor: true,
    },
    {
      id: 3,
      name: `GET /v1/tasks?assigneeId&query=${SEARCH_WORD}&limit=50`,
      method: 'GET',
      requests: [[`/v1/tasks?assigneeId=${member(1)}&query=${SEARCH_WORD}&limit=50`, undefined]],
      floor: false,
    },
    {
      id: 4,
      name: 'GET /v1/tasks (default limit, 1,000)',
      method: 'GET',
      requests: [['/v1/tasks', undefined]],
      floor: false,
    },
    {
      id: 5,
      name: 'POST /v1/tasks (2 lists, 2 assignees)',
      method: 'POST',
      requests: Array.from({ length: 200 }, (_, i) => [
        '/v1/tasks',
        JSON.stringify({
          title: `Bench created task ${i}`,
          priority: 'medium',
          // A date long past plans no reminder; BENCH_DUE_DATE=<a future date> measures planning them.
          dueDate: process.env.BENCH_DUE_DATE ?? '2026-06-01',
          taskListIds: [team.listIds[i % 50]!, team.listIds[50 + (i % 100)]!],
          assigneeIds: [member(1 + (i % 49)), member(2 + (i % 48))],
        }),
      ]),
      floor: true,
    },
    {
      id: 6,
      name: 'PATCH /v1/tasks/{id} (status, assignees)',
      method: 'PATCH',
      requests: taskIds(1000).map((id, i) => [
        `/v1/tasks/${id}`,
        JSON.stringify({
          taskStatusId: i % 2 === 0 ? team.statuses.inProgress : team.statuses.todo,
          assigneeIds: [member(1 + (i % 49)), member(3 + (i % 47))],
        }),
      ]),
      floor: false,
    },
    {
      id: 7,
      name: 'GET /v1/lists (member of 200 lists)',
      method: 'GET',
      requests: [['/v1/lists', undefined]],
      floor: false,
    },
    {
      id: 8,
      name: `GET /v1/tasks?query=${RARE_WORD} (whole team, ${RARE_TITLES} matches)`,
      method: 'GET',
      requests: [[`/v1/tasks?query=${RARE_WORD}`, undefined]],
      floor: false,
    },
    {
      id: 9,
      name: `GET /v1/tasks/{id}/activity (newest 50 of ${BUSY_ENTRIES} entries)`,
      method: 'GET',
      requests: d.timeline.busyTaskIds.map((id) => [`/v1/tasks/${id}/activity`, undefined]),
      floor: false,
    },
    {
      id: 10,
      name: `GET /v1/tasks/{id}/activity (a task with ${count(LONG_ENTRIES)} entries, 50 from anywhere)`,
      method: 'GET',
      requests: longTimelinePages(d),
      floor: false,
    },
    {
      id: 11,
      name: 'POST /v1/tasks/{id}/comments',
      method: 'POST',
      requests: taskIds(1000).map((id, i) => [
        `/v1/tasks/${id}/comments`,
        JSON.stringify({
          body: `Bench comment ${i}: looks good, but **check** the numbers in [the sheet](https://example.test/${i}) first.`,
        }),
      ]),
      floor: false,
    },
  ];
}

/**
 * Pages of the long task's timeline: its newest page, and pages with a `before` cursor spread
 * evenly over its history (the oldest page included), so reading anywhere in it is measured.
 */
function longTimelinePages(d: Dataset): [string, undefined][] {
  const { id, firstEntryId, lastEntryId } = d.timeline.longTask;
  const path = `/v1/tasks/${id}/activity`;
  const cursors = Array.from({ length: 99 }, (_, i) =>
    Math.round(firstEntryId + 50 + ((lastEntryId - firstEntryId - 50) * i) / 98),
  );
  return [[path, undefined], ...cursors.map((before): [string, undefined] => [`${path}?before=${before}`, undefined])];
}

/** One request of each scenario, checked: the rows each returns, or throws. */
async function check(target: Child, key: string, scenarios: Scenario[]): Promise<Map<number, string>> {
  const rows = new Map<number, string>();
  for (const s of scenarios) {
    const [path, body] = s.requests[0]!;
    const response = await fetch(new URL(path, target.url), {
      method: s.method,
      headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
      body,
    });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`scenario ${s.id}: ${s.method} ${path} → ${response.status} ${text}`);
    const json = JSON.parse(text);
    rows.set(s.id, Array.isArray(json) ? `${json.length} rows` : `${Math.round(text.length / 100) / 10} kB`);
  }
  return rows;
}

// ---------------------------------------------------------------- query plans

interface CapturedQuery {
  sql: string;
  parameters: readonly unknown[];
}

interface QueryPlan {
  sql: string;
  plan: string;
  /** Median execution time of the statement alone (reads only), ms. */
  execMs: number;
  scans: boolean;
}

function caller(d: Dataset): Caller {
  return { userId: d.userId, teamId: d.teamA.teamId, role: 'owner', credential: { kind: 'key', id: 'bench' } };
}

/** Runs each scenario's service call once on a logging connection, then EXPLAINs every statement. */
async function explainScenarios(engine: Engine, d: Dataset): Promise<Map<number, QueryPlan[]>> {
  const captured: CapturedQuery[] = [];
  const log = (event: LogEvent) => {
    if (event.level === 'query') captured.push({ sql: event.query.sql, parameters: event.query.parameters });
  };
  const sqlite = engine === 'sqlite' ? new BetterSqlite3(d.databaseUrl.slice('sqlite:'.length)) : undefined;
  const pool = engine === 'postgres' ? new pg.Pool({ connectionString: d.databaseUrl, max: 2 }) : undefined;
  const db = new Kysely<any>({
    dialect: sqlite ? new SqliteDialect({ database: sqlite }) : new PostgresDialect({ pool: pool! }),
    log,
  }) as Db;
  const store: Store = {
    db,
    dialect: engine,
    transaction: (work) => db.transaction().execute(work),
    close: () => db.destroy(),
  };
  const who = caller(d);
  const scenarios = scenariosOf(d);
  const bodyOf = (id: number) => JSON.parse(scenarios[id - 1]!.requests[0]![1]!);
  const params = (id: number) => new URL(scenarios[id - 1]!.requests[0]![0], 'http://x').searchParams;
  const filter = (p: URLSearchParams) => ({
    taskListIds: p.has('taskListId') ? p.getAll('taskListId').map(Number) : undefined,
    assigneeIds: p.has('assigneeId') ? p.getAll('assigneeId') : undefined,
    priorities: p.has('priority') ? (p.getAll('priority') as Priority[]) : undefined,
    isCompleted: p.has('isCompleted') ? p.get('isCompleted') === 'true' : undefined,
    query: p.get('query') ?? undefined,
    limit: p.has('limit') ? Number(p.get('limit')) : 1000,
  });
  // a subtask, so the detail's parent query runs too
  const subtask = await db
    .selectFrom('tasks')
    .select('id')
    .where('team_id', '=', d.teamA.teamId)
    .where('parent_id', 'is not', null)
    .limit(1)
    .executeTakeFirstOrThrow();
  const calls: [number, () => Promise<unknown>][] = [
    [1, () => getTask(store, who, String(subtask.id))],
    [2, () => listTasks(store, who, filter(params(2)))],
    [3, () => listTasks(store, who, filter(params(3)))],
    [4, () => listTasks(store, who, filter(params(4)))],
    [5, () => createTask(store, who, bodyOf(5))],
    [6, () => updateTask(store, who, scenarios[5]!.requests[0]![0].split('/').pop()!, bodyOf(6))],
    [7, () => listLists(store, who)],
    [9, () => taskActivity(store, who, String(d.timeline.busyTaskIds[0]), {})],
    [
      10,
      () =>
        taskActivity(store, who, String(d.timeline.longTask.id), {
          before: String(d.timeline.longTask.firstEntryId + 5000),
        }),
    ],
    [11, () => createComment(store, who, scenarios[10]!.requests[0]![0].split('/')[3]!, bodyOf(11).body)],
  ];
  const plans = new Map<number, QueryPlan[]>();
  try {
    for (const [id, run] of calls) {
      captured.length = 0;
      await run();
      const statements = captured.filter((q) => !/^(begin|commit|rollback|savepoint|release)/i.test(q.sql));
      const result: QueryPlan[] = [];
      for (const q of statements) {
        const isRead = /^\s*(select|\(select)/i.test(q.sql);
        let plan: string;
        let execMs = NaN;
        if (sqlite) {
          const args = q.parameters as unknown[];
          const rows = sqlite.prepare(`explain query plan ${q.sql}`).all(...args) as {
            id: number;
            parent: number;
            detail: string;
          }[];
          const depth = new Map<number, number>([[0, -1]]);
          plan = rows
            .map((r) => {
              const level = (depth.get(r.parent) ?? -1) + 1;
              depth.set(r.id, level);
              return `${'  '.repeat(level)}${r.detail}`;
            })
            .join('\n');
          if (isRead) {
            const statement = sqlite.prepare(q.sql);
            const times: number[] = [];
            for (let i = 0; i < 15; i++) {
              const t0 = performance.now();
              statement.all(...args);
              times.push(performance.now() - t0);
            }
            execMs = times.sort((a, b) => a - b)[7]!;
          }
        } else {
          const rows = await pool!.query(`explain ${q.sql}`, q.parameters as unknown[]);
          plan = rows.rows.map((r) => r['QUERY PLAN'] as string).join('\n');
          if (isRead) {
            const times: number[] = [];
            for (let i = 0; i < 15; i++) {
              const t0 = performance.now();
              await pool!.query(q.sql, q.parameters as unknown[]);
              times.push(performance.now() - t0);
            }
            execMs = times.sort((a, b) => a - b)[7]!;
          }
        }
        const scans = sqlite
          ? /^\s*SCAN (t|tasks|i|a|task_list_items|task_assignees)\b/m.test(plan) ||
            /SEARCH (t|tasks) USING (COVERING )?INDEX \w+ \(team_id=\?\)/.test(plan)
          : /Seq Scan on (tasks|task_list_items|task_assignees)\b/.test(plan);
        result.push({ sql: q.sql, plan, execMs, scans });
      }
      plans.set(id, result);
    }
  } finally {
    await db.destroy();
  }
  return plans;
}

// ---------------------------------------------------------------- the run

interface SizeResult {
  engine: Engine;
  size: number;
  dataset: Dataset;
  dbBytes: number | null;
  startupMs: number;
  rows: Map<number, string>;
  server: Map<number, Measured>;
  floor: Map<number, Measured>;
  serverHwm: number;
  plans: Map<number, QueryPlan[]>;
  errors: string[];
}

async function runSize(
  engine: Engine,
  size: number,
  warmSeconds: number,
  seconds: number,
  only: number[] | undefined,
): Promise<SizeResult> {
  const dir = mkdtempSync(join(os.tmpdir(), 'tasklane-http-bench-'));
  const pgServer = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  let pgDatabase: TempDatabase | undefined;
  try {
    if (engine === 'postgres')
      pgDatabase = await createPostgresDatabase(pgServer, `tasklane_bench_${process.pid}_${size}`);
    const url = pgDatabase?.url ?? `sqlite:${join(dir, 'tasklane.db')}`;
    console.error(`http: ${engine} ${size.toLocaleString('en')} tasks per team: generating…`);
    const dataset = await generateDataset(url, size);
    console.error(`http: generated in ${dataset.seconds.toFixed(1)} s; explaining…`);
    const plans = await explainScenarios(engine, dataset);
    const dbBytes = engine === 'sqlite' ? statSync(join(dir, 'tasklane.db')).size : null;
    const scenarios = scenariosOf(dataset).filter((s) => only === undefined || only.includes(s.id));
    const databaseCpuMs = pgDatabase ? await postgresCpuReader(pgDatabase.url) : () => 0;
    const result: SizeResult = {
      engine,
      size,
      dataset,
      dbBytes,
      startupMs: NaN,
      rows: new Map(),
      server: new Map(),
      floor: new Map(),
      serverHwm: NaN,
      plans,
      errors: [],
    };

    // The floor runs beside the server and is measured right after it on each scenario, before
    // the next scenario's writes change the data both read.
    // Run as the `tasklane` command runs, with its Node.js flags.
    const server = await startChild(
      BIN,
      ['serve'],
      {
        ...cliEnv(url, { RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'silent' }),
        ...(process.env.BENCH_NODE_OPTIONS && { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS }),
      },
      commandNodeFlags(),
    );
    result.startupMs = server.startupMs;
    try {
      const floor = await startChild(join(ROOT, 'dist', 'bench', 'floor.js'), [], {
        ...cliEnv(url),
        BENCH_USER_ID: dataset.userId,
        BENCH_TEAM_ID: dataset.teamA.teamId,
      });
      try {
        result.rows = await check(server, dataset.key, scenarios);
        for (const s of scenarios) {
          console.error(`http: ${engine} ${size}: scenario ${s.id} (server)`);
          const m = await measure(server, s, dataset.key, dir, warmSeconds, seconds, databaseCpuMs);
          if (m.errors > 0) result.errors.push(`${engine} ${size} scenario ${s.id}: ${m.errors} errors`);
          result.server.set(s.id, m);
          if (!s.floor) continue;
          console.error(`http: ${engine} ${size}: scenario ${s.id} (floor)`);
          const f = await measure(floor, s, dataset.key, dir, warmSeconds, seconds, databaseCpuMs);
          if (f.errors > 0) result.errors.push(`${engine} ${size} floor scenario ${s.id}: ${f.errors} errors`);
          result.floor.set(s.id, f);
        }
      } finally {
        await floor.stop();
      }
      result.serverHwm = vmHwm(server.pid);
    } finally {
      await server.stop();
    }
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await pgDatabase?.remove().catch(() => {});
  }
}

/**
 * Reads the CPU of the PostgreSQL server behind `url` (from /proc: it must run on this machine),
 * found as the parent of one of its backends.
 */
async function postgresCpuReader(url: string): Promise<() => number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
    const postmaster = parentPid(rows[0]!.pid);
    const database = new URL(url).pathname.slice(1);
    return () => postgresCpuMs(postmaster, database);
  } finally {
    await client.end();
  }
}

const count = (n: number) => n.toLocaleString('en');
const sizeName = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`);

function render(
  results: SizeResult[],
  options: BenchOptions,
  env: string,
  warm: number,
  seconds: number,
  loadAtStart: string,
): string {
  const out: string[] = [];
  const command = env ? `${env} ${options.command}` : options.command;
  out.push(`## HTTP API: throughput, latency and server CPU per request by team size

Recorded ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')} by \`${command}\`
(\`bench/http.ts\`, \`bench/generate.ts\`, \`bench/floor.ts\`; code: ${describeRevision()}).

- **Machine:** ${describeMachine()}. Server, load generator and database share it; load average when the run began: ${loadAtStart}.
- **Dataset** (\`bench/generate.ts\`): written directly through the storage layer (Kysely multi-row inserts, 50,000 tasks a transaction), **bypassing the API**, into a fresh database per size, server stopped.
  Two teams of the same shape (tasks interleaved by id): 50 members, 200 lists, N tasks each with 0–3 assignees and 1–2 lists
  (Zipf over the lists), 5 priorities (none/low/medium/high/urgent), 30% completed, 80% with a due date over 2026, 10% subtasks.
  The caller is team A's owner, a member of all 200 lists (so may access every task of the team). PostgreSQL is ANALYZEd after the load (as autovacuum would);
  SQLite is not (tasklane never runs ANALYZE, so neither does the benchmark).
- **Load:** \`wrk -t1 -c${CONNECTIONS}\` (a separate process, keep-alive) for ${warm} s of warm-up, then ${seconds} s measured, per scenario, in the order shown (reads first; creates and patches then change the data slightly).
  Detail, patch and comment cycle over 1,000 random task ids of team A; create cycles over 200 bodies. The first timeline cycles over team A's busy tasks (one in ${BUSY_EVERY}, ${BUSY_ENTRIES} entries each), the second over 100 pages of one task's ${count(LONG_ENTRIES)} entries (its newest, and before cursors spread over its history).
- **Server CPU / request** = the server process's utime + stime (/proc/<pid>/stat) over the measured run ÷ requests. **Machine CPU / request** adds the database's own CPU over the same run: on PostgreSQL the postmaster, its background processes (WAL writer, checkpointer, autovacuum…) and the benchmark database's backends, read from /proc (backends of other databases are left out); SQLite runs inside the server process, so there the two are equal. wrk's CPU is in neither. **Peak RSS** = the largest VmRSS sampled every 100 ms during the run; **VmHWM** = the process's peak over all scenarios.
- **Floor** (\`bench/floor.ts\`): a bare node:http server calling the same service/storage functions and JSON.stringify, without Fastify, validation, auth, rate limiting or ETags; same database and load, measured right after the server on each scenario (before the next scenario's writes).
- **Start-up** = spawn of \`node ${commandNodeFlags().join(' ')} bin/tasklane.js serve\` (the \`tasklane\` command's flags) → its "listening on" line, on the already generated database.
`);

  const engines = [...new Set(results.map((r) => r.engine))];
  for (const engine of engines) {
    const mine = results.filter((r) => r.engine === engine);
    out.push(`### ${engine === 'sqlite' ? 'SQLite' : 'PostgreSQL'}\n`);
    out.push(
      table(
        [
          'tasks per team',
          'generated in',
          'rows (tasks / assignees / list items / activity, both teams)',
          'database size',
          'start-up to listening',
          'server VmHWM',
          'scenario 2 list',
          'scenario 3 matches',
        ],
        mine.map((r) => [
          count(r.size),
          `${r.dataset.seconds.toFixed(1)} s`,
          `${count(r.dataset.rows.tasks)} / ${count(r.dataset.rows.assignees)} / ${count(r.dataset.rows.listItems)} / ${count(r.dataset.rows.activity)}`,
          r.dbBytes === null ? 'n/a' : mib(r.dbBytes),
          ms(r.startupMs),
          mib(r.serverHwm),
          `list ${r.dataset.filterList.id}: ${r.dataset.filterList.openMedium} open medium`,
          `${r.dataset.searchMatches}`,
        ]),
      ),
    );
    out.push('');
    const rowsOut: string[][] = [];
    for (const { id } of scenariosOf(mine[0]!.dataset)) {
      for (const r of mine) {
        const s = r.server.get(id);
        if (!s) continue;
        const f = r.floor.get(id);
        const name = scenariosOf(r.dataset)[id - 1]!.name;
        rowsOut.push([
          `${id}. ${name}`,
          sizeName(r.size),
          r.rows.get(id) ?? '',
          count(Math.round(s.rps)),
          ms(s.p50),
          ms(s.p99),
          `${s.cpuPerRequest.toFixed(3)} ms`,
          `${s.machineCpuPerRequest.toFixed(3)} ms`,
          mib(s.peakRss),
          f ? `${count(Math.round(f.rps))} req/s, ${f.cpuPerRequest.toFixed(3)} ms CPU` : '',
          f ? `${((100 * s.rps) / f.rps).toFixed(0)}%` : '',
          s.errors > 0 ? `${s.errors} errors` : '',
        ]);
      }
    }
    out.push(
      table(
        [
          'scenario',
          'size',
          'response',
          'req/s',
          'p50',
          'p99',
          'server CPU / req',
          'machine CPU / req',
          'peak RSS',
          'floor',
          'server ÷ floor',
          'problems',
        ],
        rowsOut,
      ),
    );
    out.push('');
    if (mine.length > 1) {
      const small = mine[0]!;
      const large = mine[mine.length - 1]!;
      out.push(
        `Flatness, ${sizeName(large.size)} ÷ ${sizeName(small.size)} (target ≤ 1.3× for scenarios 1, 2, 3, 5, 6, 9, 10, 11):\n`,
      );
      out.push(
        table(
          ['scenario', 'CPU / req', 'p50'],
          scenariosOf(small.dataset).flatMap(({ id }) => {
            const a = small.server.get(id);
            const b = large.server.get(id);
            if (!a || !b) return [];
            return [[`${id}`, `${(b.cpuPerRequest / a.cpuPerRequest).toFixed(2)}×`, `${(b.p50 / a.p50).toFixed(2)}×`]];
          }),
        ),
      );
      out.push('');
    }
    // The write budget (BENCHMARKS.md): a write's server CPU as a multiple of a detail's, same run.
    const budget = mine.flatMap((m) => {
      const detail = m.server.get(DETAIL);
      return WRITE_BUDGET.flatMap(({ id, most }) => {
        const write = m.server.get(id);
        if (!detail || !write) return [];
        const times = write.cpuPerRequest / detail.cpuPerRequest;
        const name = scenariosOf(m.dataset)[id - 1]!.name;
        return [[name, sizeName(m.size), `${times.toFixed(2)}×`, `≤ ${most}×`, times <= most ? 'kept' : 'over']];
      });
    });
    if (budget.length > 0) {
      out.push("Write budget: a write's server CPU per request ÷ the detail's (scenario 1), in this run:\n");
      out.push(table(['write', 'size', '÷ detail', 'budget', ''], budget));
      out.push('');
    }
    // query plans of the largest size
    const largest = mine[mine.length - 1]!;
    const timesBySize = mine.map((r) => r.plans);
    out.push(
      `#### Query plans (${engine === 'sqlite' ? 'EXPLAIN QUERY PLAN' : 'EXPLAIN'}), ${count(largest.size)} tasks per team\n`,
    );
    out.push(
      `Every statement one request of each scenario runs below the HTTP layer (authentication's key and membership lookups not included), captured from Kysely's log, with the median time of the statement alone (reads; 15 runs, same process) at each size. ⚠ marks a plan that scans tasks, task_assignees or task_list_items (${engine === 'sqlite' ? '`SCAN`, or a `SEARCH` of tasks on `team_id` alone: every task of the team' : '`Seq Scan`'}).\n`,
    );
    for (const [id, plans] of largest.plans) {
      const name = scenariosOf(largest.dataset)[id - 1]!.name;
      out.push(
        `<details><summary>${id}. ${name}: ${plans.length} statements${plans.some((p) => p.scans) ? ' ⚠' : ''}</summary>\n`,
      );
      plans.forEach((p, index) => {
        const times = timesBySize
          .map((m, k) => {
            const t = m.get(id)?.[index]?.execMs;
            return t === undefined || Number.isNaN(t) ? null : `${sizeName(mine[k]!.size)} ${t.toFixed(3)} ms`;
          })
          .filter(Boolean)
          .join(', ');
        out.push(
          `${index + 1}. ${p.scans ? '⚠ ' : ''}${times || 'write'}\n\n\`\`\`sql\n${p.sql}\n\`\`\`\n\n\`\`\`\n${p.plan || '(no plan rows)'}\n\`\`\`\n`,
        );
      });
      out.push('</details>\n');
    }
  }
  out.push(...storeComparison(results));
  return out.join('\n');
}

/** PostgreSQL against SQLite in the same run, size by size: the form issue 15's targets take. */
function storeComparison(results: SizeResult[]): string[] {
  const rows: string[][] = [];
  for (const pgResult of results.filter((r) => r.engine === 'postgres')) {
    const sqliteResult = results.find((r) => r.engine === 'sqlite' && r.size === pgResult.size);
    if (!sqliteResult) continue;
    for (const [id, p] of pgResult.server) {
      const q = sqliteResult.server.get(id);
      if (!q) continue;
      rows.push([
        `${id}. ${scenariosOf(pgResult.dataset)[id - 1]!.name}`,
        sizeName(pgResult.size),
        `${((100 * p.rps) / q.rps).toFixed(0)}%`,
        `${(p.machineCpuPerRequest / q.machineCpuPerRequest).toFixed(2)}×`,
        `${ms(p.p99)} / ${ms(q.p99)}`,
      ]);
    }
  }
  if (rows.length === 0) return [];
  return [
    '### PostgreSQL against SQLite, same run\n',
    table(
      [
        'scenario',
        'size',
        'req/s, PostgreSQL ÷ SQLite',
        'machine CPU / req, PostgreSQL ÷ SQLite',
        'p99, PostgreSQL / SQLite',
      ],
      rows,
    ),
    '',
  ];
}

export const httpBenchmark: Benchmark = {
  name: 'http',
  summary: 'API scenarios at 10k/100k(/1M) tasks: req/s, latency, server CPU per request, RSS, floor, query plans',
  async run(options: BenchOptions): Promise<BenchResult> {
    const sizes = (process.env.BENCH_SIZES ?? (options.quick ? '10000' : '10000,100000')).split(',').map(Number);
    const engines = (process.env.BENCH_ENGINES ?? (options.quick ? 'sqlite' : 'sqlite,postgres')).split(
      ',',
    ) as Engine[];
    const seconds = Number(process.env.BENCH_SECONDS ?? (options.quick ? 4 : 8));
    const warm = options.quick ? 2 : 3;
    const only = process.env.BENCH_SCENARIOS?.split(',').map(Number);
    const env = ['BENCH_SIZES', 'BENCH_ENGINES', 'BENCH_SECONDS', 'BENCH_SCENARIOS', 'BENCH_NODE_OPTIONS']
      .filter((k) => process.env[k] !== undefined)
      .map((k) => `${k}=${process.env[k]}`)
      .join(' ');
    try {
      execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    } catch (error) {
      // wrk --version exits 1 after printing; only a missing binary matters
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new Error('http: needs wrk on the PATH (Debian: apt-get install -y wrk)');
      }
    }
    const loadAtStart = describeLoad();
    const results: SizeResult[] = [];
    for (const engine of engines) {
      for (const size of sizes) results.push(await runSize(engine, size, warm, seconds, only));
    }
    return {
      markdown: render(results, options, env, warm, seconds, loadAtStart),
      problems: results.flatMap((r) => r.errors),
    };
  },
};
/** The detail read (scenario 1), the unit of the write budget. */
const DETAIL = 1;
/** The write budget (BENCHMARKS.md): create (5) and PATCH (6) at most this many details' server CPU. */
const WRITE_BUDGET = [
  { id: 5, most: 5 },
  { id: 6, most: 4 },
] as const;
