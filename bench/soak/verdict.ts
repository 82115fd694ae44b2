/**
 * The soak's verdict: every promise the run broke, each with what, when and where. A request
 * answered otherwise than expected breaks one unless a fault explains it (ledger.ts); so do a
 * missed, duplicated or unreached event, a stream dropped outside the faults, a lost write, a
 * process that exited by itself or uncleanly, and a server error logged outside the faults.
 */
import type { Fleet } from './fleet.js';
import { seconds, type Entry, type Ledger, type Ms } from './ledger.js';
import type { Book } from './load.js';
import type { LogLine } from './logs.js';
import type { StreamState } from './streams.js';
import { writeProblems, type WriteCheck } from './verify.js';

export interface SoakRun {
  command: string;
  loadAtStart: string;
  loadAtEnd: string;
  seconds: number;
  users: number;
  workers: number;
  perWorkerRate: number;
  marginMs: number;
  warmUpMs: number;
  rateLimit: string;
  postgres: string;
  loadStart: Ms;
  loadEnd: Ms;
  /** CPU time the load generator (this process, streams included) used during the load, in ms. */
  generatorCpuMs: number;
  ledger: Ledger;
  fleet: Fleet;
  streams: StreamState[];
  baseline: number;
  lastId: number;
  catchUpSeconds: number;
  writes: WriteCheck;
  book: Book;
  logs: LogLine[];
  /** Problems found while running (faults that did not go as planned, a process that would not stop). */
  problems: string[];
}

export const count = (n: number) => n.toLocaleString('en');

export const asExpected = (e: Entry) => e.outcome === e.expected;

/** The problems: every promise the run broke, each with what, when and where. */
export function findProblems(run: SoakRun): string[] {
  const { ledger } = run;
  const problems = [...run.problems];
  const broken = new Map<string, { n: number; first: Entry }>();
  for (const entry of ledger.entries) {
    if (asExpected(entry) || ledger.excused(entry)) continue;
    const phase = ledger.inFault(entry.sentAt, entry.doneAt) ? 'in a fault window' : 'outside the fault windows';
    const key = `\`${entry.op}\` (expected ${entry.expected}) got ${entry.outcome} ${phase}`;
    const group = broken.get(key) ?? { n: 0, first: entry };
    group.n++;
    broken.set(key, group);
  }
  for (const [key, { n, first }] of broken) {
    problems.push(`${key}: ${count(n)}×, first at ${seconds(first.sentAt - run.loadStart)} on process ${first.member}`);
  }
  for (const f of ledger.findings) problems.push(`${f.what} (at ${seconds(f.at - run.loadStart)})`);

  const missed = run.streams.reduce((sum, s) => sum + s.missed, 0);
  const duplicated = run.streams.reduce((sum, s) => sum + s.duplicated, 0);
  const behind = run.streams.filter((s) => s.last < run.lastId);
  if (missed > 0) problems.push(`streams missed ${count(missed)} events (gaps in the ids they received)`);
  if (duplicated > 0) problems.push(`streams received ${count(duplicated)} events twice`);
  if (behind.length > 0) {
    const worst = Math.min(...behind.map((s) => s.last));
    problems.push(
      `${behind.length} streams had not reached the last event id ${run.lastId} ${run.catchUpSeconds} s after the load ` +
        `stopped (the furthest behind was at ${worst})`,
    );
  }
  const unexplainedDrops = run.streams.flatMap((s) =>
    s.drops.filter((d) => !ledger.inFault(d.at, d.at)).map((d) => ({ ...d, index: s.index })),
  );
  if (unexplainedDrops.length > 0) {
    const first = unexplainedDrops[0]!;
    problems.push(
      `${unexplainedDrops.length} stream connections dropped outside the fault windows ` +
        `(first: stream ${first.index} on ${first.member} at ${seconds(first.at - run.loadStart)})`,
    );
  }
  problems.push(...writeProblems(run.writes));
  for (const member of run.fleet.all) {
    const exit = member.exit;
    if (member.killed) continue;
    if (exit && exit.at < run.loadEnd) {
      problems.push(
        `process ${member.label} exited by itself at ${seconds(exit.at - run.loadStart)} (${JSON.stringify(exit)})`,
      );
    } else if (exit?.code !== 0) {
      problems.push(`process ${member.label} ended with ${JSON.stringify(exit)} on SIGTERM`);
    }
  }
  const errors = run.logs.filter((l) => l.level >= 50 && !ledger.inFault(l.at, l.at));
  if (errors.length > 0) {
    problems.push(
      `${errors.length} error lines in the server logs outside the fault windows; first, on ${errors[0]!.member} at ` +
        `${seconds(errors[0]!.at - run.loadStart)}: ${errors[0]!.raw.slice(0, 400)}`,
    );
  }
  return problems;
}
