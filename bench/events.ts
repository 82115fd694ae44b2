/**
 * Realtime events at scale: one server process holds N open SSE streams (GET /v1/events) and
 * delivers a write's event to all of them.
 *
 * For each N (100, then 2,000) a fresh server runs as a child process; this process is the load
 * generator. It opens N streams as the same key, then runs rounds one at a time: PATCH the list,
 * note when the response arrived, and note when each stream received the matching
 * `taskList.updated` event. Reported, over every (stream, round) sample: the delivery latency
 * from the write's response to receipt (median, p99, max; negative when the event beat the
 * response, reported as is), the write's own round-trip as the baseline, and the server's
 * resident memory per open stream.
 */
import http from 'node:http';
import {
  callJson,
  describeLoad,
  describeMachine,
  describeRevision,
  inParallel,
  kib,
  max,
  mib,
  ms,
  percentile,
  ratio,
  cpuMs,
  settledRss,
  sleep,
  startBenchServer,
  table,
  type Benchmark,
  type BenchOptions,
  type BenchResult,
  type BenchServer,
} from './support.js';
import { connectEvents, type SseResponse } from '../test/sse/connection.js';

const SIZES = [100, 2_000];
const QUICK_SIZES = [100];
/** Measured rounds per size (one warm-up round comes first and is not counted). */
const ROUNDS = 100;
/** Writes before anything is measured (JIT, statement cache), and idle write round-trips measured. */
const WARMUP_WRITES = 200;
const IDLE_WRITES = 100;
/** Streams being opened at once. */
const OPEN_CONCURRENCY = 50;
const OPEN_TIMEOUT_MS = 120_000;
const ROUND_TIMEOUT_MS = 15_000;
const PAUSE_BETWEEN_ROUNDS_MS = 50;

/** One open SSE stream as this client sees it. */
interface Stream {
  /** Once its response head has arrived. */
  response?: SseResponse;
  connected: boolean;
  /** performance.now() when the event of each round (index 0: warm-up) arrived; NaN until it does. */
  receivedAt: Float64Array;
  closedEarly: boolean;
}

/** The N streams, and which round each `taskList.updated` of the list belongs to. */
class Streams {
  readonly all: Stream[] = [];
  /**
   * Event id of the warm-up round (round 0), taken from its first copy. Only this benchmark
   * writes to the team and ids increase by one per event, so round r's event has id seq0 + r.
   */
  private seq0: number | null = null;
  private readonly counts: number[];
  private currentRound = -1;
  /** Streams that got their `: connected` line, and how many the round under way waits for. */
  connectedCount = 0;
  private expected = 0;
  private roundDone: (() => void) | null = null;
  duplicates = 0;
  unexpected = 0;
  errors = new Map<string, number>();
  closedEarly = 0;
  private closing = false;

  constructor(
    private readonly server: BenchServer,
    private readonly listId: number,
    private readonly rounds: number,
  ) {
    this.counts = new Array<number>(rounds).fill(0);
  }

  /** Opens `n` streams (OPEN_CONCURRENCY at a time); resolves once each has its `: connected` line. */
  async open(n: number, agent: http.Agent): Promise<void> {
    const deadline = Date.now() + OPEN_TIMEOUT_MS;
    await inParallel(
      Array.from({ length: n }, (_, i) => i),
      OPEN_CONCURRENCY,
      async () => {
        if (Date.now() > deadline) throw new Error(`opening ${n} streams took over ${OPEN_TIMEOUT_MS} ms`);
        await this.openOne(agent);
      },
    );
  }

  private openOne(agent: http.Agent): Promise<void> {
    return new Promise((resolve) => {
      const stream: Stream = {
        connected: false,
        receivedAt: new Float64Array(this.rounds).fill(NaN),
        closedEarly: false,
      };
      const fail = (why: string) => {
        this.errors.set(why, (this.errors.get(why) ?? 0) + 1);
        resolve(); // counted, not fatal: the report says how many streams did not connect
      };
      this.all.push(stream);
      connectEvents(this.server.url, { key: this.server.key, agent, timeoutMs: OPEN_TIMEOUT_MS }, (response) => {
        stream.response = response;
        if (response.status !== 200) {
          fail(`HTTP ${response.status}`);
          return {};
        }
        return {
          onComment: (text) => {
            if (text !== 'connected' || stream.connected) return;
            stream.connected = true;
            this.connectedCount++;
            resolve();
          },
          // Each chunk's arrival time: an event completed by it was received then.
          onEvent: (event, receivedAt) => {
            if (event.type !== 'taskList.updated') return;
            if ((JSON.parse(event.data) as { listId?: number }).listId !== this.listId) return;
            this.record(stream, event.id ?? '', receivedAt);
          },
          onClose: () => {
            if (this.closing) return;
            stream.closedEarly = true;
            this.closedEarly++;
            if (!stream.connected) fail('closed before connecting');
          },
        };
      }).catch((error: NodeJS.ErrnoException) => {
        if (!this.closing) fail(error.code ?? error.message);
      });
    });
  }

  private record(stream: Stream, seq: string, now: number): void {
    if (this.seq0 === null && this.currentRound === 0) this.seq0 = Number(seq);
    const round = this.seq0 === null ? -1 : Number(seq) - this.seq0;
    if (!(round >= 0 && round <= this.currentRound)) {
      this.unexpected++;
      return;
    }
    if (!Number.isNaN(stream.receivedAt[round]!)) {
      this.duplicates++;
      return;
    }
    stream.receivedAt[round] = now;
    this.counts[round]!++;
    if (round === this.currentRound && this.counts[round] === this.expected) this.roundDone?.();
  }

  /** Starts a round; the returned promise resolves when every connected stream has its event, or at the timeout. */
  startRound(round: number): Promise<boolean> {
    this.currentRound = round;
    this.expected = this.connectedCount;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.roundDone = null;
        resolve(false);
      }, ROUND_TIMEOUT_MS);
      this.roundDone = () => {
        clearTimeout(timer);
        this.roundDone = null;
        resolve(true);
      };
      if (this.expected === 0) this.roundDone();
    });
  }

  close(): void {
    this.closing = true;
    for (const stream of this.all) void stream.response?.close();
  }
}

interface SizeResult {
  streams: number;
  connected: number;
  openMs: number;
  rounds: number;
  /** Event receipt minus the write's response, per (stream, round); NaN where the event never came. */
  latencies: Float64Array;
  missed: number;
  /** Per round: the first and the last stream's receipt minus the write's response. */
  firstPerRound: number[];
  lastPerRound: number[];
  /** CPU time over the measured rounds (pauses included), server and this load generator, in ms. */
  serverCpuMs: number;
  clientCpuMs: number;
  /** The same over the idle writes (no stream open; same pauses), the baseline for CPU. */
  idleServerCpuMs: number;
  idleClientCpuMs: number;
  /** The PATCH round-trips of the measured rounds (streams open), and of idle writes before any stream. */
  writeRtt: number[];
  idleWriteRtt: number[];
  rssBefore: number;
  rssOpen: number;
  rssAfterRounds: number;
  duplicates: number;
  unexpected: number;
  closedEarly: number;
  errors: Map<string, number>;
  timedOutRounds: number;
  serverExit: number | null;
}

/** Starts counting CPU time of the server and of this process; the returned function reads both, in ms. */
function startCpu(pid: number): () => { serverMs: number; clientMs: number } {
  const server = cpuMs(pid);
  const client = process.cpuUsage();
  return () => {
    const used = process.cpuUsage(client);
    return { serverMs: cpuMs(pid) - server, clientMs: (used.user + used.system) / 1000 };
  };
}

async function measure(n: number): Promise<SizeResult> {
  const server = await startBenchServer();
  let result: SizeResult | undefined;
  try {
    result = await measureOn(server, n);
  } finally {
    const exit = await server.stop(); // also when measuring failed: never leave the server running
    if (result) result.serverExit = exit;
  }
  return result;
}

async function measureOn(server: BenchServer, n: number): Promise<SizeResult> {
  const writeAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const streamAgent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  let streams: Streams | undefined;
  try {
    const { json: list } = await callJson(
      writeAgent,
      server,
      'POST',
      '/v1/lists',
      { name: 'Bench', color: 'Blue' },
      201,
    );
    const listId = list.id as number;
    let version = 0;
    const patch = () =>
      callJson(writeAgent, server, 'PATCH', `/v1/lists/${listId}`, { name: `Bench ${++version}` }, 200);

    // Warm the server up, then take the baseline: write round-trips with no stream open.
    for (let i = 0; i < WARMUP_WRITES; i++) await patch();
    const idleWriteRtt: number[] = [];
    const idleCpu = startCpu(server.pid);
    for (let i = 0; i < IDLE_WRITES; i++) {
      const { reply } = await patch();
      idleWriteRtt.push(reply.doneAt - reply.sentAt);
      await sleep(PAUSE_BETWEEN_ROUNDS_MS);
    }
    const { serverMs: idleServerCpuMs, clientMs: idleClientCpuMs } = idleCpu();
    const rssBefore = await settledRss(server.pid);

    // Open the streams, and check with one warm-up round that every one of them is live.
    streams = new Streams(server, listId, ROUNDS + 1);
    const openStart = performance.now();
    await streams.open(n, streamAgent);
    const openMs = performance.now() - openStart;
    let timedOutRounds = 0;
    const warm = streams.startRound(0);
    await patch();
    if (!(await warm)) timedOutRounds++;
    const rssOpen = await settledRss(server.pid);

    const sent: number[] = [0];
    const done: number[] = [NaN];
    const roundsCpu = startCpu(server.pid);
    for (let round = 1; round <= ROUNDS; round++) {
      await sleep(PAUSE_BETWEEN_ROUNDS_MS);
      const all = streams.startRound(round);
      const { reply } = await patch();
      sent[round] = reply.sentAt;
      done[round] = reply.doneAt;
      if (!(await all)) timedOutRounds++;
    }
    const { serverMs: serverCpuMs, clientMs: clientCpuMs } = roundsCpu();
    const rssAfterRounds = await settledRss(server.pid);

    const connected = streams.all.filter((s) => s.connected);
    const latencies = new Float64Array(connected.length * ROUNDS);
    const firstPerRound: number[] = [];
    const lastPerRound: number[] = [];
    let missed = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      let first = Infinity;
      let last = -Infinity;
      connected.forEach((stream, i) => {
        const latency = stream.receivedAt[round]! - done[round]!;
        latencies[(round - 1) * connected.length + i] = latency;
        if (Number.isNaN(latency)) missed++;
        else {
          first = Math.min(first, latency);
          last = Math.max(last, latency);
        }
      });
      firstPerRound.push(first);
      lastPerRound.push(last);
    }
    const writeRtt = done.slice(1).map((d, i) => d - sent[i + 1]!);
    return {
      streams: n,
      connected: connected.length,
      openMs,
      rounds: ROUNDS,
      latencies,
      missed,
      firstPerRound,
      lastPerRound,
      serverCpuMs,
      clientCpuMs,
      idleServerCpuMs,
      idleClientCpuMs,
      writeRtt,
      idleWriteRtt,
      rssBefore,
      rssOpen,
      rssAfterRounds,
      duplicates: streams.duplicates,
      unexpected: streams.unexpected,
      closedEarly: streams.closedEarly,
      errors: streams.errors,
      timedOutRounds,
      serverExit: null,
    };
  } finally {
    streams?.close();
    writeAgent.destroy();
    streamAgent.destroy();
  }
}

function report(results: SizeResult[], options: BenchOptions, loadAtStart: string): BenchResult {
  const problems: string[] = [];
  for (const r of results) {
    const where = `N=${r.streams}`;
    if (r.connected < r.streams) {
      const why = [...r.errors].map(([k, v]) => `${v}× ${k}`).join(', ');
      problems.push(`${where}: only ${r.connected} of ${r.streams} streams connected (${why || 'no error seen'})`);
    }
    if (r.missed > 0)
      problems.push(`${where}: ${r.missed} of ${r.latencies.length} (stream, round) events never arrived`);
    if (r.timedOutRounds > 0)
      problems.push(`${where}: ${r.timedOutRounds} rounds timed out after ${ROUND_TIMEOUT_MS} ms`);
    if (r.closedEarly > 0) problems.push(`${where}: ${r.closedEarly} streams were closed by the server mid-run`);
    if (r.duplicates > 0) problems.push(`${where}: ${r.duplicates} events arrived twice on a stream`);
    if (r.unexpected > 0) problems.push(`${where}: ${r.unexpected} unexpected taskList.updated events`);
    if (r.serverExit !== 0) problems.push(`${where}: the server exited with ${r.serverExit} on SIGTERM`);
  }

  const count = (n: number) => n.toLocaleString('en');
  const perEvent = (msPerRound: number, streams: number) =>
    `${((1000 * msPerRound) / Math.max(1, streams)).toFixed(1)} µs`;
  const pair = (values: ArrayLike<number>) => `${ms(percentile(values, 0.5))} / ${ms(percentile(values, 0.99))}`;
  const latencyRows = results.map((r) => [
    count(r.streams),
    `${count(r.connected)} × ${r.rounds} = ${count(r.latencies.length)}`,
    count(r.latencies.length - r.missed),
    ms(percentile(r.latencies, 0.5)),
    ms(percentile(r.latencies, 0.99)),
    ms(max(r.latencies)),
    `${((100 * r.latencies.filter((v) => v < 0).length) / r.latencies.length).toFixed(1)} %`,
  ]);
  const baselineRows = results.map((r) => [
    count(r.streams),
    pair(r.writeRtt),
    pair(r.idleWriteRtt),
    `${ratio(percentile(r.latencies, 0.5), percentile(r.writeRtt, 0.5))} / ${ratio(
      percentile(r.latencies, 0.99),
      percentile(r.writeRtt, 0.99),
    )}`,
  ]);
  const fanOutRows = results.map((r) => [
    count(r.streams),
    ms(percentile(r.firstPerRound, 0.5)),
    `${ms(percentile(r.lastPerRound, 0.5))} / ${ms(max(r.lastPerRound))}`,
    `${ms(r.serverCpuMs / r.rounds)} (${ms(r.idleServerCpuMs / IDLE_WRITES)})`,
    perEvent(r.serverCpuMs / r.rounds - r.idleServerCpuMs / IDLE_WRITES, r.connected),
    `${ms(r.clientCpuMs / r.rounds)} (${ms(r.idleClientCpuMs / IDLE_WRITES)})`,
    perEvent(r.clientCpuMs / r.rounds - r.idleClientCpuMs / IDLE_WRITES, r.connected),
  ]);
  const memoryRows = results.map((r) => [
    count(r.streams),
    `${(r.openMs / 1000).toFixed(2)} s`,
    mib(r.rssBefore),
    mib(r.rssOpen),
    mib(r.rssAfterRounds),
    kib((r.rssOpen - r.rssBefore) / r.streams),
  ]);
  const sizes = results.map((r) => count(r.streams)).join(' and ');

  const markdown = `## Realtime events: one process, many open streams

Recorded ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')} by \`${options.command}\`
(\`bench/events.ts\`; code: ${describeRevision()}).

- **Machine:** ${describeMachine()}. The server and the load generator (one Node.js process
  holding every stream) share it; load average when the run began: ${loadAtStart}.
- **Dataset:** per size (${sizes} streams), a fresh server on a fresh SQLite database with one
  team, one user, one API key and one list. All streams are \`GET /v1/events\` as that one key,
  opened ${OPEN_CONCURRENCY} at a time over loopback (node:http, keep-alive agent, unlimited sockets).
  Then 1 warm-up round and ${ROUNDS} measured rounds, one at a time, ${PAUSE_BETWEEN_ROUNDS_MS} ms apart: a
  \`PATCH /v1/lists/{id}\` renames the list, which sends one \`taskList.updated\` event to every
  stream, and the round ends when every stream has it.
- **Delivery latency** = when a stream received the event − when the PATCH response had fully
  arrived, both on the load generator's monotonic clock, over every (stream, round) sample.
  It would be negative where the event beat the response (reported as is, not clamped).
- **Baseline**, same run and clock: the PATCH's own round-trip (request sent → response
  received) in the same rounds, and in ${IDLE_WRITES} writes before any stream was open (after
  ${WARMUP_WRITES} warm-up writes).
- **Memory per stream** = (server VmRSS with the streams open − VmRSS before opening them) / N;
  each VmRSS is the median of 5 readings of /proc/<pid>/status after 1 s of quiet. Growth of
  a few hundred KiB is within noise, so the 100-stream figure is rough. RSS after the rounds
  (for information) also holds the heap growth of the ${ROUNDS} writes.

Delivery latency, write response → event received:

${table(['streams', 'samples (streams × rounds)', 'received', 'median', 'p99', 'max', 'before the response'], latencyRows)}

Baseline, the write's own round-trip:

${table(
  [
    'streams',
    'write round-trip, streams open: median / p99',
    'write round-trip, no stream open: median / p99',
    'delivery latency ÷ write round-trip (streams open): median / p99',
  ],
  baselineRows,
)}

Fan-out per round. CPU time is counted over all measured rounds (pauses included) and divided
by ${ROUNDS}; in brackets, the same for the ${IDLE_WRITES} writes with no stream open (same pauses). Per
delivered event = (CPU per round − CPU per idle write) / streams:

${table(
  [
    'streams',
    'receipt after response, first stream: median',
    'last stream: median / max',
    'server CPU per round (idle write)',
    'server CPU per delivered event',
    'load generator CPU per round (idle write)',
    'load generator CPU per received event',
  ],
  fanOutRows,
)}

Server memory:

${table(
  ['streams', 'time to open all', 'RSS before', 'RSS, streams open', `RSS after ${ROUNDS} rounds`, 'per stream'],
  memoryRows,
)}
${problems.length > 0 ? `\n**Problems seen in this run:**\n\n${problems.map((p) => `- ${p}`).join('\n')}\n` : ''}`;
  return { markdown, problems };
}

export const eventsBenchmark: Benchmark = {
  name: 'events',
  summary: 'SSE delivery latency and server memory with 100 and 2,000 open streams',
  async run(options) {
    const loadAtStart = describeLoad();
    const results: SizeResult[] = [];
    for (const n of options.quick ? QUICK_SIZES : SIZES) {
      console.error(`events: ${n} streams…`);
      results.push(await measure(n));
    }
    return report(results, options, loadAtStart);
  },
};
