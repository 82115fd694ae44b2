/**
 * Webhook delivery, per engine, against a receiver on loopback that answers at once:
 *
 * - **Throughput**: deliveries a second one server process sends. The deliveries are queued
 *   first by a process that does not deliver (WEBHOOK_DELIVERY=off), then one that does starts
 *   and drains them; the rate is taken between the first and the last arrival. Once to one
 *   endpoint (in order, one in flight: WEBHOOK_MAX_IN_FLIGHT=1) and once to eight.
 * - **Commit-to-delivery latency**: N tasks created one after another (1,000 by default), one
 *   every BENCH_WEBHOOK_INTERVAL_MS (20 ms: 50 a second, below one endpoint's throughput, so this
 *   measures the way to the receiver rather than a queue); for each, the time from its POST's
 *   answer (just after the commit) to the arrival of its delivery.
 * - **The cost of a slow receiver to a change**: PATCH round trips with no webhook and with a
 *   webhook whose receiver takes 5 s to answer each delivery (its queue only grows), in
 *   alternating blocks. Delivery is asynchronous, so the two should match.
 *
 * Environment: BENCH_ENGINES (default sqlite,postgres; --quick sqlite), BENCH_PG_URL (as for
 * `http`), BENCH_WEBHOOK_EVENTS (events per measurement; default 1000, --quick 100),
 * BENCH_WEBHOOK_INTERVAL_MS (between the latency measurement's creates; default 20).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { createPostgresDatabase, TEST_WEBHOOK_ENV } from '../test/harness.js';
import { printedKey, serve, type Serving } from '../test/processes.js';
import { startReceiver, type Receiver } from '../test/webhooks/support.js';
import {
  cpuMs,
  describeLoad,
  describeMachine,
  describeRevision,
  inParallel,
  ms,
  percentile,
  ratio,
  sleep,
  table,
  type Benchmark,
  type BenchOptions,
  type BenchResult,
} from './support.js';

type Engine = 'sqlite' | 'postgres';

const SERVER_ENV = {
  ...TEST_WEBHOOK_ENV,
  WEBHOOK_DELIVERY: 'on',
  RATE_LIMIT_PER_MINUTE: '0',
  LOG_LEVEL: 'silent',
};
const SLOW_RECEIVER_MS = 5_000;
const WAIT_MS = 300_000;
/** Blocks of PATCHes each side of the slow receiver's A/B. */
const PATCH_BLOCKS = 6;

/** A throwaway database of the engine for `work`, removed afterwards. */
async function withDatabase<T>(engine: Engine, label: string, work: (url: string) => Promise<T>): Promise<T> {
  if (engine === 'postgres') {
    const server = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
    const database = await createPostgresDatabase(server, `tasklane_webhooks_${process.pid}_${label}`);
    try {
      return await work(database.url);
    } finally {
      await database.remove().catch(() => {});
    }
  }
  const dir = mkdtempSync(join(os.tmpdir(), 'tasklane-webhooks-bench-'));
  try {
    return await work(`sqlite:${join(dir, 'tasklane.db')}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A JSON request with the key; throws unless it answers `expected`. */
async function api(base: string, key: string, method: string, path: string, body: unknown, expected: number) {
  const response = await fetch(base + path, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== expected) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return JSON.parse(text);
}

async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`webhooks bench: no ${what} after ${WAIT_MS / 1000} s`);
    await sleep(5);
  }
}

interface Throughput {
  endpoints: number;
  deliveries: number;
  perSecond: number;
  cpuMsPerDelivery: number;
}

/** Queues `events` × `endpoints` deliveries with a non-delivering process, then drains them with one that delivers. */
async function throughput(engine: Engine, receiver: Receiver, events: number, endpoints: number): Promise<Throughput> {
  return withDatabase(engine, `t${endpoints}`, async (url) => {
    const queuing = await serve(url, { ...SERVER_ENV, WEBHOOK_DELIVERY: 'off' });
    const { key } = printedKey(queuing.stdout());
    const prefix = `/throughput-${engine}-${endpoints}-`;
    for (let n = 0; n < endpoints; n++) {
      await api(queuing.url, key, 'POST', '/v1/webhooks', { url: `${receiver.url}${prefix}${n}` }, 201);
    }
    await inParallel(
      Array.from({ length: events }, (_, n) => n),
      8,
      async (n) => void (await api(queuing.url, key, 'POST', '/v1/tasks', { title: `Queued ${n}` }, 201)),
    );
    await queuing.stop();
    const mine = () => receiver.requests.filter((r) => r.path.startsWith(prefix));
    const delivering = await serve(url, SERVER_ENV);
    try {
      // From here (start-up done; the first deliveries may already have gone, a few ms' worth).
      const cpuBefore = cpuMs(delivering.child.pid!);
      await until('drained queue', () => mine().length >= events * endpoints);
      const cpu = cpuMs(delivering.child.pid!) - cpuBefore;
      const times = mine().map((r) => r.startedAt);
      const seconds = (Math.max(...times) - Math.min(...times)) / 1000;
      return {
        endpoints,
        deliveries: times.length,
        perSecond: (times.length - 1) / seconds,
        cpuMsPerDelivery: cpu / times.length,
      };
    } finally {
      await delivering.stop();
    }
  });
}

/** Commit-to-delivery latency of `events` tasks created one after another. */
async function latency(engine: Engine, receiver: Receiver, events: number): Promise<number[]> {
  return withDatabase(engine, 'latency', async (url) => {
    const server = await serve(url, SERVER_ENV);
    try {
      const { key } = printedKey(server.stdout());
      const path = `/latency-${engine}`;
      await api(
        server.url,
        key,
        'POST',
        '/v1/webhooks',
        { url: receiver.url + path, eventTypes: ['task.created'] },
        201,
      );
      const answeredAt = new Map<number, number>();
      const interval = Number(process.env.BENCH_WEBHOOK_INTERVAL_MS ?? 20);
      const begun = performance.now();
      for (let n = 0; n < events; n++) {
        const task = await api(server.url, key, 'POST', '/v1/tasks', { title: `Latency ${n}` }, 201);
        answeredAt.set(task.id, Date.now());
        await sleep(Math.max(begun + (n + 1) * interval - performance.now(), 0));
      }
      const arrivals = () => receiver.requests.filter((r) => r.path === path);
      await until('delivery of every task', () => arrivals().length >= events);
      return arrivals().map((r) => r.startedAt - answeredAt.get(r.json.data.id)!);
    } finally {
      await server.stop();
    }
  });
}

/**
 * PATCH round trips (ms) with no webhook, with one whose receiver answers at once, and with one
 * whose receiver is slow: in alternating blocks (each webhook created before its block and
 * deleted after it), so that drift of a noisy machine falls on every side alike. Fast against
 * none is what a webhook costs a change (its delivery row, and the worker's look for work after
 * the commit); slow against fast is what a slow receiver adds, which should be nothing.
 */
async function patchCost(
  engine: Engine,
  receivers: { fast: Receiver; slow: Receiver },
  patches: number,
): Promise<{ none: number[]; fast: number[]; slow: number[] }> {
  return withDatabase(engine, 'patch', async (url) => {
    const server: Serving = await serve(url, SERVER_ENV);
    try {
      const { key } = printedKey(server.stdout());
      const task = await api(server.url, key, 'POST', '/v1/tasks', { title: 'Patched' }, 201);
      const block = Math.max(Math.ceil(patches / PATCH_BLOCKS), 1);
      const round = async (label: string, into: number[]) => {
        for (let n = 0; n < block; n++) {
          const started = performance.now();
          await api(server.url, key, 'PATCH', `/v1/tasks/${task.id}`, { title: `${label} ${n}` }, 200);
          into.push(performance.now() - started);
        }
      };
      await round('warm-up', []);
      const times = { none: [] as number[], fast: [] as number[], slow: [] as number[] };
      for (let b = 0; b < PATCH_BLOCKS; b++) {
        await round('none', times.none);
        for (const side of ['fast', 'slow'] as const) {
          const url = `${receivers[side].url}/${side}-${engine}`;
          const hook = await api(server.url, key, 'POST', '/v1/webhooks', { url }, 201);
          await round(side, times[side]);
          await api(server.url, key, 'DELETE', `/v1/webhooks/${hook.id}`, undefined, 200);
        }
      }
      return times;
    } finally {
      await server.stop();
    }
  });
}

async function run(options: BenchOptions): Promise<BenchResult> {
  const engines = (process.env.BENCH_ENGINES ?? (options.quick ? 'sqlite' : 'sqlite,postgres'))
    .split(',')
    .filter(Boolean) as Engine[];
  const events = Number(process.env.BENCH_WEBHOOK_EVENTS ?? (options.quick ? 100 : 1000));
  const receiver = await startReceiver(() => ({ status: 204 }));
  const slow = await startReceiver(() => ({ status: 204, delayMs: SLOW_RECEIVER_MS }));
  const problems: string[] = [];
  const sections: string[] = [];
  try {
    for (const engine of engines) {
      console.error(`webhooks: ${engine}: throughput`);
      const rates = [await throughput(engine, receiver, events, 1), await throughput(engine, receiver, events, 8)];
      console.error(`webhooks: ${engine}: latency`);
      const delays = await latency(engine, receiver, events);
      console.error(`webhooks: ${engine}: patch cost`);
      const cost = await patchCost(engine, { fast: receiver, slow }, Math.min(events, 300));
      for (const rate of rates) {
        if (rate.deliveries < events * rate.endpoints) problems.push(`${engine}: deliveries missing`);
      }
      sections.push(
        [
          `### ${engine === 'sqlite' ? 'SQLite' : 'PostgreSQL'}`,
          '',
          table(
            ['deliveries to', 'deliveries', 'per second (one process)', 'server CPU per delivery'],
            rates.map((r) => [
              `${r.endpoints} endpoint${r.endpoints === 1 ? '' : 's'}`,
              String(r.deliveries),
              r.perSecond.toFixed(0),
              ms(r.cpuMsPerDelivery),
            ]),
          ),
          '',
          table(
            ['commit to delivery', 'tasks', 'p50', 'p99', 'max'],
            [
              [
                'one endpoint',
                String(delays.length),
                ms(percentile(delays, 0.5)),
                ms(percentile(delays, 0.99)),
                ms(Math.max(...delays)),
              ],
            ],
          ),
          '',
          table(
            ['PATCH round trip', 'p50', 'p99', 'p50 ÷ no webhook'],
            [
              ['no webhook', ms(percentile(cost.none, 0.5)), ms(percentile(cost.none, 0.99)), '1.00×'],
              [
                'a webhook whose receiver answers at once',
                ms(percentile(cost.fast, 0.5)),
                ms(percentile(cost.fast, 0.99)),
                ratio(percentile(cost.fast, 0.5), percentile(cost.none, 0.5)),
              ],
              [
                `a webhook whose receiver takes ${SLOW_RECEIVER_MS / 1000} s`,
                ms(percentile(cost.slow, 0.5)),
                ms(percentile(cost.slow, 0.99)),
                ratio(percentile(cost.slow, 0.5), percentile(cost.none, 0.5)),
              ],
            ],
          ),
        ].join('\n'),
      );
    }
  } finally {
    await receiver.close();
    await slow.close();
  }
  const markdown = [
    '## Webhooks: deliveries per second, commit-to-delivery latency, and what a slow receiver costs a change',
    '',
    `\`${options.command}\`, ${events} events per measurement (latency: one every ${process.env.BENCH_WEBHOOK_INTERVAL_MS ?? 20} ms). Machine: ${describeMachine()}; load ${describeLoad()}. Code: ${describeRevision()}.`,
    '',
    'One server process; the receiver runs in the benchmark process on loopback and answers `204` at once',
    `(the slow one after ${SLOW_RECEIVER_MS / 1000} s). Latency is from the POST's answer (just after the commit) to`,
    "the delivery's arrival.",
    '',
    sections.join('\n\n'),
  ].join('\n');
  return { markdown, problems };
}

export const webhooksBenchmark: Benchmark = {
  name: 'webhooks',
  summary: 'deliveries a second per process, commit-to-delivery latency, PATCH cost with a slow receiver',
  run,
};
