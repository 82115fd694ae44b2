/**
 * What every benchmark shares: the real server as a child process on a throwaway SQLite file,
 * a small HTTP client, the server's memory from /proc, statistics, the machine's description and
 * the sections of BENCHMARKS.md.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { killAll, ROOT, printedKey, serve, type Serving } from '../test/processes.js';

export { ROOT };

export interface BenchOptions {
  /** Smaller sizes only (a quick look, not a record). */
  quick: boolean;
  /** The command line that started this run, as a reader would retype it. */
  command: string;
}

export interface BenchResult {
  /** The Markdown section (heading, command, dataset, machine, tables, notes). */
  markdown: string;
  /** Problems that make the figures untrustworthy (missed events, dropped streams…); empty when none. */
  problems: string[];
}

export interface Benchmark {
  name: string;
  summary: string;
  run(options: BenchOptions): Promise<BenchResult>;
}

// ---------------------------------------------------------------- the server under test

export interface BenchServer {
  url: URL;
  pid: number;
  key: string;
  /** The starter workspace owner's web sign-in, as printed at first start. */
  signIn: { email: string; password: string };
  /** The SQLite file the server uses. */
  databasePath: string;
  /** SIGTERM, wait for a graceful exit (SIGKILL after 60 s), remove the database; resolves to the exit code. */
  stop(): Promise<number | null>;
}

/** Temp folders of servers still running, removed by `abandon` if the run is cut short. */
const tempDirs = new Set<string>();

/** For an interrupted run: kills every server child at once and removes their temp folders. */
export function abandon(): void {
  killAll();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

/**
 * Runs a benchmark program's `main` as the whole process's work, so that nothing outlives it:
 * past `watchdogMs`, or on SIGINT/SIGTERM, `cleanUp` runs and the process exits; an error is
 * printed and cleaned up after, exit code 1.
 */
export function runMain(name: string, main: () => Promise<number>, watchdogMs: number, cleanUp = abandon): void {
  const watchdog = setTimeout(() => {
    console.error(`${name}: still running after ${Math.round(watchdogMs / 60_000)} minutes; stopping`);
    cleanUp();
    process.exit(1);
  }, watchdogMs);
  watchdog.unref();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      cleanUp();
      process.exit(130);
    });
  }
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
      cleanUp();
      process.exitCode = 1;
    },
  );
}

/**
 * Starts `node bin/tasklane.js serve` on a fresh SQLite file in the temp folder, port 0, no rate
 * limit, no logs; from another checkout when `root` names one (a baseline to compare with).
 */
export async function startBenchServer(extraEnv: Record<string, string> = {}, root = ROOT): Promise<BenchServer> {
  const dir = mkdtempSync(join(os.tmpdir(), 'tasklane-bench-'));
  const databasePath = join(dir, 'tasklane.db');
  tempDirs.add(dir);
  let serving: Serving;
  try {
    serving = await serve(
      `sqlite:${databasePath}`,
      {
        RATE_LIMIT_PER_MINUTE: '0',
        LOG_LEVEL: 'silent',
        ...extraEnv,
      },
      root,
    );
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    tempDirs.delete(dir);
    throw error;
  }
  const { key } = printedKey(serving.stdout());
  const [, email = '', password = ''] = /web sign-in:\s+(\S+) \/ (.+)$/m.exec(serving.stdout()) ?? [];
  return {
    url: new URL(serving.url),
    pid: serving.child.pid!,
    key,
    signIn: { email, password },
    databasePath,
    stop: async () => {
      try {
        return await serving.stop();
      } finally {
        rmSync(dir, { recursive: true, force: true });
        tempDirs.delete(dir);
      }
    },
  };
}

/** Resident memory of a process, in bytes (VmRSS of /proc/<pid>/status). */
export function rssBytes(pid: number): number {
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

let clockTicks: number | undefined;

/** CPU time (user + system) a process has used so far, in ms (fields 14 and 15 of /proc/<pid>/stat). */
export function cpuMs(pid: number): number {
  const fields = statFields(pid);
  return ticksToMs(Number(fields[11]) + Number(fields[12]));
}

/** /proc/<pid>/stat from its third field (state) on: field n of proc(5) is index n - 3. */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' '); // the name may hold spaces
}

function ticksToMs(ticks: number): number {
  clockTicks ??= Number(output('getconf', ['CLK_TCK'])) || 100;
  return (ticks * 1000) / clockTicks;
}

/** The parent of a process (the postmaster, for a PostgreSQL backend). */
export function parentPid(pid: number): number {
  return Number(statFields(pid)[1]);
}

/**
 * The CPU a PostgreSQL server spends for one database: the postmaster's own, its background
 * processes' (WAL writer, checkpointer, autovacuum…) and the live backends of `database`, read
 * from /proc (the server must run on this machine). Backends of other databases, such as a test
 * suite's running beside, are left out by their process title ("postgres: <user> <database>
 * <host>(<port>) …"); so are processes that exited, whose CPU cannot be told apart by database
 * (a benchmark's pooled connections live through its run).
 */
export function postgresCpuMs(postmasterPid: number, database: string): number {
  const own = statFields(postmasterPid);
  let ticks = Number(own[11]) + Number(own[12]);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let fields: string[];
    let title: string;
    try {
      fields = statFields(Number(entry));
      if (Number(fields[1]) !== postmasterPid) continue;
      title = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue; // gone since the listing
    }
    const backend = /^postgres: (?:[^:]*: )?\S+ (\S+) (?:\S+\(\d+\)|\[local\])/.exec(title);
    if (backend && backend[1] !== database) continue;
    ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
  }
  return ticksToMs(ticks);
}

/** The median of a few RSS readings `gapMs` apart, after waiting `settleMs` (RSS moves with GC). */
export async function settledRss(pid: number, settleMs = 1_000, readings = 5, gapMs = 200): Promise<number> {
  await sleep(settleMs);
  const values: number[] = [];
  for (let i = 0; i < readings; i++) {
    if (i > 0) await sleep(gapMs);
    values.push(rssBytes(pid));
  }
  return percentile(values, 0.5);
}

// ---------------------------------------------------------------- HTTP

export interface Reply {
  status: number;
  text: string;
  /** performance.now() just before the request was sent, and when the whole response had arrived. */
  sentAt: number;
  doneAt: number;
}

/** One JSON request with the API key; rejects on a network error or after `timeoutMs`. */
export function call(
  agent: http.Agent,
  server: BenchServer,
  method: string,
  path: string,
  body?: unknown,
  timeoutMs = 30_000,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: http.OutgoingHttpHeaders = { 'x-api-key': server.key };
    if (payload !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(payload);
    }
    let sentAt = 0;
    const req = http.request(
      { host: server.url.hostname, port: server.url.port, method, path, agent, headers, timeout: timeoutMs },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, sentAt, doneAt: performance.now() }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in ${timeoutMs} ms`)));
    req.on('error', reject);
    sentAt = performance.now();
    req.end(payload);
  });
}

/** Like `call`, but insists on `expected` and returns the parsed JSON body. */
export async function callJson(
  agent: http.Agent,
  server: BenchServer,
  method: string,
  path: string,
  body: unknown,
  expected: number,
): Promise<{ reply: Reply; json: any }> {
  const reply = await call(agent, server, method, path, body);
  if (reply.status !== expected) {
    throw new Error(`${method} ${path} answered ${reply.status} (expected ${expected}): ${reply.text}`);
  }
  return { reply, json: JSON.parse(reply.text) };
}

// ---------------------------------------------------------------- statistics and formatting

/** Nearest-rank percentile (p in 0..1) of the finite values; NaN when there are none. */
export function percentile(values: ArrayLike<number>, p: number): number {
  const sorted = Float64Array.from(values)
    .filter((v) => Number.isFinite(v))
    .sort();
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

export function max(values: ArrayLike<number>): number {
  let best = -Infinity;
  for (let i = 0; i < values.length; i++) if (values[i]! > best) best = values[i]!;
  return best === -Infinity ? NaN : best;
}

export const ms = (value: number): string =>
  Number.isNaN(value) ? 'n/a' : `${value.toFixed(Math.abs(value) < 10 ? 2 : 1)} ms`;
export const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
export const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;
export const ratio = (a: number, b: number): string =>
  Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? `${(a / b).toFixed(2)}×` : 'n/a';

export function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

export const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

/** Runs `work` on every item with at most `limit` in flight. */
export async function inParallel<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

// ---------------------------------------------------------------- the machine and BENCHMARKS.md

function output(command: string, args: string[]): string | null {
  try {
    return execFileSync(command, args, { encoding: 'utf8', cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] }).trimEnd();
  } catch {
    return null;
  }
}

/** One line: cores (nproc), memory (free -h), CPU model (/proc/cpuinfo), kernel, Node.js. */
export function describeMachine(): string {
  const cores = output('nproc', []) ?? String(os.availableParallelism());
  const memory = /^Mem:\s+(\S+)/m.exec(output('free', ['-h']) ?? '')?.[1] ?? mib(os.totalmem());
  let cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  try {
    cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? cpu;
  } catch {
    // not Linux: keep os.cpus()
  }
  return `${cores} cores (${cpu}), ${memory} RAM, ${os.type()} ${os.release()}, Node.js ${process.version}`;
}

/** The 1, 5 and 15 minute load averages: other work on the machine skews every figure. */
export function describeLoad(): string {
  return os
    .loadavg()
    .map((v) => v.toFixed(2))
    .join(', ');
}

/** The code measured: the commit, and the server's own files (src/, bin/) that differ from it, if any. */
export function describeRevision(): string {
  const commit = output('git', ['rev-parse', '--short', 'HEAD']);
  if (commit === null) return 'unknown revision';
  const changed = (output('git', ['status', '--porcelain', '--', 'src', 'bin']) ?? '').split('\n').filter(Boolean);
  if (changed.length === 0) return `${commit}, src/ and bin/ as committed`;
  const names = changed.map((line) => line.slice(3));
  const shown = names.length > 5 ? [...names.slice(0, 5), `${names.length - 5} more`] : names;
  return `${commit} plus uncommitted changes to ${shown.join(', ')}`;
}

export const BENCHMARKS_FILE = join(ROOT, 'BENCHMARKS.md');

function intro(): string {
  return `# Benchmarks

Performance is measured, not hoped: speed and memory targets live here and are checked by
\`npm run bench\`, never by timed tests. Each section below was written by the command it
names, and gives the dataset size, the machine and a baseline measured in the same run: read the
ratios (they hold on a noisy machine); absolute times drift from run to run.

Machine when this file was created (each section names its own): ${describeMachine()}.
Created ${new Date().toISOString().slice(0, 10)}.

## How to run

\`\`\`sh
npm run bench                       # build, then run every benchmark and print the tables
npm run bench -- events             # only the named benchmark(s)
npm run bench -- events --quick     # smaller sizes only: a quick look, not a record
npm run bench -- events --write     # also record the figures in this file (between the section's markers)
\`\`\`

The benchmarks start the real server (\`node bin/tasklane.js serve\`) as a child process on a
temporary SQLite database, on loopback, and drive it from the benchmark process.
`;
}

/** Replaces the text between `<!-- name:start -->` and `<!-- name:end -->` (appending the section if absent). */
export function writeSection(name: string, markdown: string): void {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const block = `${start}\n${markdown.trim()}\n${end}`;
  const current = existsSync(BENCHMARKS_FILE) ? readFileSync(BENCHMARKS_FILE, 'utf8') : intro();
  const from = current.indexOf(start);
  const to = current.indexOf(end);
  const next =
    from !== -1 && to > from
      ? current.slice(0, from) + block + current.slice(to + end.length)
      : `${current.trimEnd()}\n\n${block}\n`;
  writeFileSync(BENCHMARKS_FILE, next);
}
