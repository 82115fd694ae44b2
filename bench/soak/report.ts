/**
 * The soak's Markdown section for BENCHMARKS.md: settings, fault timeline, requests by outcome
 * and phase, writes checked against the database, event streams, memory, minute-by-minute
 * figures, the servers' warnings and errors, and every broken promise (verdict.ts).
 */
import { describeMachine, describeRevision, mib, ms, percentile, table } from '../support.js';
import type { Fleet, Member } from './fleet.js';
import { OPS, seconds, type Entry, type Ms } from './ledger.js';
import { summarise } from './logs.js';
import type { StreamState } from './streams.js';
import { asExpected, count, findProblems, type SoakRun } from './verdict.js';

export type { SoakRun };

/** `12× 503, 2× connection error (ECONNRESET)`, or an empty cell. */
function outcomes(entries: Entry[]): string {
  const byOutcome = new Map<string, number>();
  for (const e of entries) byOutcome.set(String(e.outcome), (byOutcome.get(String(e.outcome)) ?? 0) + 1);
  return [...byOutcome].map(([outcome, n]) => `${count(n)}× ${outcome}`).join(', ') || '–';
}

function processEnd(member: Member, run: SoakRun): string {
  const exit = member.exit;
  if (!exit) return 'still running (!)';
  const how = exit.signal ?? `exit ${exit.code}`;
  if (member.killed) return `${how} at ${seconds(exit.at - run.loadStart)} (the fault)`;
  if (exit.at < run.loadEnd) return `${how} at ${seconds(exit.at - run.loadStart)}, by itself (!)`;
  return `${how} on SIGTERM at the end`;
}

function requestsTable(run: SoakRun): string {
  const { ledger } = run;
  /** The first fault window a request overlaps, or -1 for none. */
  const windowOf = (e: Entry) =>
    ledger.windows.findIndex((w) => e.doneAt >= w.start && e.sentAt <= (w.end ?? Infinity));
  const rows = [...OPS, 'all' as const].flatMap((op) => {
    const entries = op === 'all' ? ledger.entries : ledger.entries.filter((e) => e.op === op);
    if (entries.length === 0) return [];
    const good = entries.filter(asExpected);
    const other = entries.filter((e) => !asExpected(e));
    const latencies = good.map((e) => e.doneAt - e.sentAt);
    return [
      [
        op === 'all' ? '**all**' : `\`${op}\``,
        op === 'all' ? '' : String(entries[0]!.expected),
        count(entries.length),
        count(good.length),
        outcomes(other.filter((e) => windowOf(e) === -1)),
        ...ledger.windows.map((_, i) => outcomes(other.filter((e) => windowOf(e) === i))),
        `${ms(percentile(latencies, 0.5))} / ${ms(percentile(latencies, 0.99))}`,
      ],
    ];
  });
  return table(
    [
      'request',
      'expected',
      'sent',
      'answered as expected',
      'other outcomes outside faults',
      ...ledger.windows.map((w) => `other outcomes in the window of the ${w.name}`),
      'median / p99 (as expected)',
    ],
    rows,
  );
}

function minutesTable(run: SoakRun): string {
  // Whole minutes; the last row also takes the few seconds the load ran over.
  const minutes = Math.max(1, Math.floor((run.loadEnd - run.loadStart) / 60_000));
  const members = sortedMembers(run.fleet);
  const rows: string[][] = [];
  for (let m = 0; m < minutes; m++) {
    const from = run.loadStart + m * 60_000;
    const to = m === minutes - 1 ? run.loadEnd + 1 : from + 60_000;
    const entries = run.ledger.entries.filter((e) => e.sentAt >= from && e.sentAt < to);
    const latencies = entries.filter(asExpected).map((e) => e.doneAt - e.sentAt);
    const rss = members.map((member) => {
      const samples = member.rss.history.filter((s) => s.at >= from && s.at < to);
      return samples.length > 0 ? mib(samples[samples.length - 1]!.bytes) : '–';
    });
    rows.push([
      m === minutes - 1 ? `${m}–end` : `${m}–${m + 1}`,
      count(entries.length),
      count(entries.filter((e) => !asExpected(e)).length),
      ms(percentile(latencies, 0.5)),
      ms(percentile(latencies, 0.99)),
      ...rss,
    ]);
  }
  return table(
    ['minute', 'requests', 'not as expected', 'median', 'p99 (as expected)', ...members.map((m) => `RSS ${m.label}`)],
    rows,
  );
}

/** A, B, B2, C: by slot, then in order of start. */
const sortedMembers = (fleet: Fleet): Member[] =>
  [...fleet.all].sort((a, b) => a.slot - b.slot || a.startedAt - b.startedAt);

export function report(run: SoakRun): { markdown: string; problems: string[] } {
  const problems = findProblems(run);
  const { ledger, fleet, writes, book } = run;
  const at = (t: Ms) => seconds(t - run.loadStart);
  const timeline = ledger.timeline.filter((t) => t.at >= run.loadStart).map((t) => [at(t.at), t.what]);
  const windows = ledger.windows.map((w) => [
    w.name,
    at(w.start),
    w.recovered === undefined ? '–' : at(w.recovered),
    w.end === undefined ? '–' : at(w.end),
  ]);

  const s = run.streams;
  const sum = (f: (x: StreamState) => number) => count(s.reduce((total, x) => total + f(x), 0));
  const perStream = run.lastId - run.baseline;
  const received = (x: StreamState) => Math.min(x.last, run.lastId) - run.baseline - x.missed;
  const streamRow = [
    count(s.length),
    `${run.baseline} → ${run.lastId}`,
    count(perStream),
    count(perStream * s.length),
    sum(received),
    sum((x) => x.missed + Math.max(0, run.lastId - x.last)),
    sum((x) => x.duplicated),
    sum((x) => x.reconnects),
    sum((x) => x.syncRequired),
    `${s.filter((x) => x.last >= run.lastId).length} of ${s.length}`,
  ];

  const memoryRows = sortedMembers(fleet).map((m) => {
    const from = Math.max(m.startedAt, run.loadStart);
    const to = Math.min(m.exit?.at ?? run.loadEnd, run.loadEnd);
    return [
      m.label,
      `${m.startedAt < run.loadStart ? 'setup' : at(m.startedAt)} → ${m.exit && m.exit.at < run.loadEnd ? at(m.exit.at) : 'end'}`,
      m.rss.start === undefined ? '–' : mib(m.rss.start),
      mib(m.rss.peak),
      m.rss.end === undefined ? '–' : mib(m.rss.end),
      `${(m.cpuMs / 1000).toFixed(0)} s (${((100 * m.cpuMs) / Math.max(1, to - from)).toFixed(0)} % of a core)`,
      processEnd(m, run),
    ];
  });
  const loadSeconds = (run.loadEnd - run.loadStart) / 1000;

  const writeRows = [
    ['creates acknowledged (201)', count(writes.acknowledgedCreates)],
    ["… of which a retry got the first attempt's answer replayed (Idempotent-Replayed)", count(book.replayedCreates)],
    ['**acknowledged creates missing from the database**', `**${writes.lostCreates.length}**`],
    ['tasks with at least one acknowledged patch', count(writes.patchedTasks)],
    [
      '**tasks whose stored title is not the last acknowledged one (nor one attempted after it)**',
      `**${writes.lostPatches.length}**`,
    ],
    ['tasks whose last patch had an unknown outcome (either title accepted)', count(writes.tasksWithDoubt)],
    [
      'creates with an unknown outcome after retries: stored / not stored',
      `${writes.doubtfulStored} / ${writes.doubtfulAbsent}`,
    ],
    ['create retries (same Idempotency-Key)', count(book.createRetries)],
    ['creates stored more than once', count(writes.duplicatedCreates.length)],
    ['task touched only by bad requests', writes.targetChanged ?? 'unchanged (title, version 1)'],
  ];

  const logSummary = summarise(run.logs);
  const length = run.seconds >= 120 ? `${Math.round(run.seconds / 60)} minutes` : `${run.seconds} s`;
  const markdown = `## Soak: ${length} of mixed load on PostgreSQL, a process killed and PostgreSQL restarted

Recorded ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')} by \`${run.command}\`
(\`bench/soak.ts\`; code: ${describeRevision()}).

- **Machine:** ${describeMachine()}; load
  average at the start ${run.loadAtStart}, at the end ${run.loadAtEnd}. The servers, PostgreSQL and
  the load generator all ran on it.
- **Database:** ${run.postgres}.
- **Processes:** ${fleet.slots.length} × \`tasklane serve\` on that one database, started together;
  RATE_LIMIT_PER_MINUTE=${run.rateLimit} (normal load never meets it, so a 429 outside a fault is a finding),
  TRUST_PROXY unset, LOG_LEVEL=warn. The load generator is the balancer: round-robin over the live
  processes, routing around one from the moment it is killed.
- **Dataset:** one team of ${run.users} users, each with an API key and a password, all members of one
  shared list; every task is created on it, so every task event reaches every user.
- **Load** (${run.seconds} s): ${run.workers} workers, each aiming at ${run.perWorkerRate} requests a second on its own
  tasks: 20 % creates (with an Idempotency-Key; retried with the same key for up to 30 s after a
  503, 429 or lost answer), 35 % title patches (half with If-Match when the ETag is known), 25 % task
  reads (the title must be the last acknowledged one), 20 % \`GET /v1/tasks?taskListId=…&limit=200\`.
  Every 6 s a sign-in with the right password, a session read with its cookie and a sign-out; every
  5 s a bad request (an invalid create, a blank title, a task and a list that do not exist, and one
  in five a well-formed unknown key: about 2 a minute, far inside the 60 a minute failed-authentication
  budget of the one address everything comes from). ${s.length} event streams (${Math.round(s.length / run.users)} per user,
  spread over the processes), opened before the load at the team's last event id; a stream whose
  connection drops reconnects to a live process with Last-Event-ID.
- **Faults:** SIGKILL to one process at 30 % of the run and a new process on its port 5 s later;
  PostgreSQL restarted at 60 %. A fault window runs from the fault until the affected part answers
  \`GET /v1/me\` again, plus ${run.marginMs / 1000} s; only there may a request get 503, 429 or no answer.
- **After the load:** every stream must reach the team's last event id (waited up to ${run.catchUpSeconds} s);
  then the tasks in the database are compared with what the load was told.

Fault timeline (seconds from the start of the load):

${table(['time', 'what'], timeline)}

${table(['fault window', 'from', 'answering again', 'window ends'], windows)}

Requests served: ${count(ledger.entries.length)} in ${loadSeconds.toFixed(0)} s (${(ledger.entries.length / loadSeconds).toFixed(1)} a second
on average; the workers go no faster than the servers answer). A request counts in a fault window
when its time in flight overlaps one:

${requestsTable(run)}

Writes, checked against the database after the run:

${table(['', ''], writeRows)}

Event streams (events per stream = last id − start id; missed counts gaps and, at the end, ids not reached):

${table(['streams', 'ids', 'events per stream', 'expected in all', 'received', 'missed', 'duplicated', 'reconnects', 'sync.required', 'reached the last id'], [streamRow])}

Memory (VmRSS; start = median of 5 readings ${run.warmUpMs / 1000} s after the process's start or the
load's, under load; end = the same just before the load stopped; peak = the highest of those and of a
sample every 5 s):

${table(['process', 'ran', 'start', 'peak', 'end', 'CPU used (sampled every 5 s)', 'how it ended'], memoryRows)}

The load generator (one Node.js process: workers, streams, balancer) used ${(run.generatorCpuMs / 1000).toFixed(0)} s of CPU
during the load (${((100 * run.generatorCpuMs) / Math.max(1, run.loadEnd - run.loadStart)).toFixed(0)} % of a core); PostgreSQL's own CPU is not measured.

Minute by minute (RSS: the last sample of the minute, one every 5 s):

${minutesTable(run)}

Server log lines at warn and above (all processes, whole run):

${logSummary.length > 0 ? logSummary.map((l) => `- ${l}`).join('\n') : '- none'}

${problems.length > 0 ? `**Promises broken in this run:**\n\n${problems.map((p) => `- ${p}`).join('\n')}` : '**Promises broken in this run:** none. Only 503/429/lost connections inside fault windows, no acknowledged write lost, no event missed or duplicated.'}
`;
  return { markdown, problems };
}
