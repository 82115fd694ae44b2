/**
 * `npm run soak [-- --write]`: ten minutes (SOAK_SECONDS) of mixed load on three `tasklane serve`
 * processes sharing one PostgreSQL database, with 200 open event streams; one process is killed
 * with SIGKILL at 30 % and PostgreSQL is restarted at 60 %. Afterwards: requests by outcome (only
 * 503/429/lost connections, and only during the faults), acknowledged writes lost (must be 0),
 * events missed or duplicated by streams that resumed with Last-Event-ID (must be 0), and each
 * process's memory at the start and end. Exits 1 if any promise broke.
 *
 * PostgreSQL is a throwaway cluster of its own (bench/soak/postgres.ts): the soak restarts it,
 * and restarting a shared server would break other people's work. Not part of `npm test`.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { describeLoad, runMain, sleep, writeSection } from './support.js';
import { killAndReplace, restartPostgres } from './soak/faults.js';
import { Fleet, type Member } from './soak/fleet.js';
import { Ledger, now, type Ms } from './soak/ledger.js';
import { Book, runLoad } from './soak/load.js';
import { serverLogLines } from './soak/logs.js';
import { soakPostgres, type SoakPostgres } from './soak/postgres.js';
import { report } from './soak/report.js';
import { Streams } from './soak/streams.js';
import { createSoakTeam, latestEventId } from './soak/team.js';
import { checkWrites } from './soak/verify.js';

const PROCESSES = 3;
const USERS = 10;
const STREAMS = 200;
const WORKERS = 16;
/** Requests a second per worker: about 80 in all, enough to soak without starving a shared 2-core machine. */
const DEFAULT_RATE = 5;
/** A fault window lasts until the affected part answers again, plus this. */
const MARGIN_MS = 15_000;
/** How long the streams get, after the load stops, to reach the last event id. */
const CATCH_UP_SECONDS = 60;
const RATE_LIMIT = '1000000';

function usage(): string {
  return [
    'usage: npm run soak [-- --write]',
    '  --write  record the section in BENCHMARKS.md',
    'environment:',
    '  SOAK_SECONDS=600        length of the load (the faults come at 30 % and 60 % of it)',
    `  SOAK_RATE=${DEFAULT_RATE}            requests a second per worker (${WORKERS} workers)`,
    '  SOAK_PG_BIN=<dir>       PostgreSQL binaries (default: newest /usr/lib/postgresql/<version>/bin)',
    '  SOAK_DATABASE_URL=…     use this server instead of a throwaway cluster (a database tasklane_soak is',
    '  SOAK_RESTART_COMMAND=…  created and dropped on it); the shell command that restarts it is then required',
  ].join('\n');
}

function positive(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number (got "${raw}")`);
  return value;
}

/** Whatever is running when the soak is cut short; cleaned up synchronously. */
const running: { postgres?: SoakPostgres; fleet?: Fleet; streams?: Streams } = {};

function abandon(): void {
  running.streams?.close();
  running.fleet?.killNow();
  running.postgres?.removeNow();
}

async function until(at: Ms, stop: () => boolean = () => false): Promise<void> {
  while (now() < at && !stop()) await sleep(Math.min(500, at - now()));
}

async function soak(argv: string[]): Promise<number> {
  const seconds = positive('SOAK_SECONDS', 600);
  const perWorkerRate = positive('SOAK_RATE', DEFAULT_RATE);
  const warmUpMs = Math.min(30_000, seconds * 100);
  const command = ['npm run soak', ...(argv.length > 0 ? ['--', ...argv] : [])].join(' ');
  const prefix = process.env.SOAK_SECONDS ? `SOAK_SECONDS=${process.env.SOAK_SECONDS} ` : '';
  const loadAtStart = describeLoad();
  const ledger = new Ledger();
  const problems: string[] = [];

  ledger.note('creating the database');
  const postgres = (running.postgres = await soakPostgres(process.env));
  ledger.note(`starting ${PROCESSES} processes`);
  const fleet = (running.fleet = await Fleet.start(postgres.url, PROCESSES, {
    RATE_LIMIT_PER_MINUTE: RATE_LIMIT,
    TRUST_PROXY: '',
    LOG_LEVEL: 'warn',
  }));
  const team = await createSoakTeam(postgres.url, fleet, ledger, USERS);
  const probeKey = team.users[0]!.key;
  const streams = (running.streams = new Streams(fleet, ledger, team));
  await streams.open(STREAMS);
  ledger.note(`${STREAMS} streams open, from event id ${team.baseline}; load starts`);

  const loadStart = now();
  const generatorCpu = process.cpuUsage();
  const loadEnd = loadStart + seconds * 1000;
  let stopped = false;
  const book = new Book();
  const load = runLoad(fleet, ledger, team, book, { workers: WORKERS, perWorkerRate }, () => stopped);
  const sampler = setInterval(() => fleet.sample(), 5_000);

  // The run's schedule: warm-up reading, the kill, the database restart, the final reading.
  const replacementReadings: Promise<void>[] = [];
  try {
    await until(loadStart + warmUpMs);
    await fleet.readRss(fleet.live(), 'start');
    ledger.note('memory read after warm-up');

    await until(loadStart + 0.3 * seconds * 1000);
    const kill = await killAndReplace(fleet, ledger, 1, probeKey, MARGIN_MS);
    problems.push(...kill.problems);
    const replacement: Member | undefined = kill.replacement;
    if (replacement) {
      replacementReadings.push(
        until(replacement.startedAt + warmUpMs, () => stopped).then(() =>
          stopped ? undefined : fleet.readRss([replacement], 'start'),
        ),
      );
    }

    await until(loadStart + 0.6 * seconds * 1000);
    problems.push(...(await restartPostgres(fleet, ledger, postgres, probeKey, MARGIN_MS)));

    await until(loadEnd);
    await fleet.readRss(fleet.live(), 'end');
  } finally {
    stopped = true;
    clearInterval(sampler);
  }
  await load;
  await Promise.all(replacementReadings);
  const loadStopped = now();
  const { user, system } = process.cpuUsage(generatorCpu);
  ledger.note('load stopped; waiting for the streams to reach the last event id');

  const lastId = await latestEventId(postgres.url, team.id);
  await streams.caughtUp(lastId, CATCH_UP_SECONDS * 1000);
  ledger.note(`streams checked against the last event id ${lastId}`);
  streams.close();
  const writes = await checkWrites(postgres.url, team, book);
  ledger.note('writes checked against the database; stopping the processes (SIGTERM)');
  await fleet.stop();
  const logDir = mkdtempSync(join(os.tmpdir(), 'tasklane-soak-logs-'));
  fleet.saveLogs(logDir);
  await postgres.remove();
  running.postgres = undefined;

  const result = report({
    command: prefix + command,
    loadAtStart,
    loadAtEnd: describeLoad(),
    seconds,
    users: USERS,
    workers: WORKERS,
    perWorkerRate,
    marginMs: MARGIN_MS,
    warmUpMs,
    rateLimit: RATE_LIMIT,
    postgres: postgres.description,
    loadStart,
    loadEnd: loadStopped,
    generatorCpuMs: (user + system) / 1000,
    ledger,
    fleet,
    streams: streams.states,
    baseline: team.baseline,
    lastId,
    catchUpSeconds: CATCH_UP_SECONDS,
    writes,
    book,
    logs: serverLogLines(fleet),
    problems,
  });
  console.log(result.markdown);
  console.error(`soak: the processes' logs are in ${logDir}`);
  if (argv.includes('--write')) {
    writeSection('soak', result.markdown);
    console.error('soak: recorded in BENCHMARKS.md');
  }
  if (result.problems.length > 0) console.error(`soak: ${result.problems.length} promises broken (see above)`);
  return result.problems.length > 0 ? 1 : 0;
}

/** Whatever happens, nothing outlives this run. */
const WATCHDOG_MS = 2 * 60 * 60_000;

const argv = process.argv.slice(2);
if (argv.includes('--help') || argv.includes('-h')) {
  console.log(usage());
} else if (argv.some((a) => a !== '--write')) {
  console.error(`unknown: ${argv.filter((a) => a !== '--write').join(' ')}\n${usage()}`);
  process.exitCode = 2;
} else {
  runMain('soak', () => soak(argv), WATCHDOG_MS, abandon);
}
