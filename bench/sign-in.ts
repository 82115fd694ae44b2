/**
 * `npm run bench -- signin`: what a flood of wrong-password sign-ins costs everybody else.
 * API clients read a task in a closed loop; 200 sign-ins with a wrong password for one account
 * arrive at once from one address; we compare the API's latency during the flood with its
 * latency just before it, in the same run. With BENCH_BASELINE=<another checkout, built> the
 * same flood also runs against that release, interleaved, as the "before".
 */
import http from 'node:http';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  call,
  callJson,
  cpuMs,
  describeLoad,
  describeMachine,
  describeRevision,
  ms,
  percentile,
  max,
  ROOT,
  sleep,
  startBenchServer,
  table,
  type Benchmark,
  type BenchOptions,
  type BenchResult,
  type BenchServer,
} from './support.js';

const FLOOD = 200;
const API_CLIENTS = 4;
const BEFORE_FLOOD_MS = 3_000;
/**
 * The API is measured for this long from the flood's start (or until the last sign-in is
 * answered, if that is later): the same span for every row, so a flood refused in a quarter of
 * a second is not compared by the p99 of its first quarter-second alone.
 */
const FLOOD_WINDOW_MS = 5_000;
const WARM_UP_REQUESTS = 300;

interface Scenario {
  code: 'this checkout' | 'baseline';
  root: string;
  limits: 'on' | 'off';
}

interface Outcome {
  scenario: Scenario;
  quiet: number[];
  flooded: number[];
  floodMs: number;
  serverCpuMs: number;
  statuses: Record<string, number>;
}

/** Closed-loop API clients reading one task until `done()`; their latencies in ms. */
async function apiLoad(agent: http.Agent, server: BenchServer, path: string, done: () => boolean): Promise<number[]> {
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: API_CLIENTS }, async () => {
      while (!done()) {
        const reply = await call(agent, server, 'GET', path);
        if (reply.status !== 200) throw new Error(`GET ${path} answered ${reply.status}: ${reply.text}`);
        latencies.push(reply.doneAt - reply.sentAt);
      }
    }),
  );
  return latencies;
}

/** One sign-in with a wrong password, without an API key; resolves to the status, or the network error's code. */
function wrongSignIn(agent: http.Agent, server: BenchServer): Promise<number | string> {
  const body = JSON.stringify({ email: server.signIn.email, password: 'not the password' });
  return new Promise((resolve) => {
    const request = http.request(
      {
        host: server.url.hostname,
        port: server.url.port,
        method: 'POST',
        path: '/auth/sign-in',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
      },
    );
    // A server that takes longer than its connection timeout cuts the connection: count it, go on.
    request.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    request.end(body);
  });
}

async function measure(scenario: Scenario): Promise<Outcome> {
  // "on": the sign-in budgets at their defaults (per address min(limit, 60), per account
  // min(limit, 10)), with a request budget high enough that the API clients never meet it.
  const env = { RATE_LIMIT_PER_MINUTE: scenario.limits === 'on' ? '1000000' : '0' };
  const server = await startBenchServer(env, scenario.root);
  const apiAgent = new http.Agent({ keepAlive: true, maxSockets: API_CLIENTS });
  const floodAgent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  try {
    const { json: task } = await callJson(apiAgent, server, 'POST', '/v1/tasks', { title: 'Read while flooded' }, 201);
    const path = `/v1/tasks/${task.id}`;
    for (let i = 0; i < WARM_UP_REQUESTS; i++) await call(apiAgent, server, 'GET', path);
    // One sign-in first, so the server's one-time work (the decoy hash) is not in the flood.
    await wrongSignIn(floodAgent, server);

    let quietOver = false;
    const quietLoad = apiLoad(apiAgent, server, path, () => quietOver);
    await sleep(BEFORE_FLOOD_MS);
    quietOver = true;
    const quiet = await quietLoad;

    let windowOver = false;
    const cpuBefore = cpuMs(server.pid);
    const startedAt = performance.now();
    const floodedLoad = apiLoad(apiAgent, server, path, () => windowOver);
    const statusList = await Promise.all(Array.from({ length: FLOOD }, () => wrongSignIn(floodAgent, server)));
    const floodMs = performance.now() - startedAt;
    await sleep(FLOOD_WINDOW_MS - floodMs);
    windowOver = true;
    const flooded = await floodedLoad;
    const serverCpuMs = cpuMs(server.pid) - cpuBefore;

    const statuses: Record<string, number> = {};
    for (const status of statusList) statuses[status] = (statuses[status] ?? 0) + 1;
    return { scenario, quiet, flooded, floodMs, serverCpuMs, statuses };
  } finally {
    apiAgent.destroy();
    floodAgent.destroy();
    await server.stop();
  }
}

async function run(options: BenchOptions): Promise<BenchResult> {
  const loadAtStart = describeLoad();
  const baselineRoot = process.env.BENCH_BASELINE;
  if (baselineRoot && !existsSync(join(baselineRoot, 'dist', 'src', 'cli', 'main.js'))) {
    throw new Error(`BENCH_BASELINE=${baselineRoot} is not a built tasklane checkout (no dist/src/cli/main.js)`);
  }
  const scenarios: Scenario[] = [];
  for (const limits of ['on', 'off'] as const) {
    if (baselineRoot) scenarios.push({ code: 'baseline', root: baselineRoot, limits });
    scenarios.push({ code: 'this checkout', root: ROOT, limits });
  }
  const outcomes: Outcome[] = [];
  for (const scenario of scenarios) {
    console.error(`signin: ${scenario.code}, limits ${scenario.limits}`);
    outcomes.push(await measure(scenario));
  }

  const rows = outcomes.map(({ scenario, quiet, flooded, floodMs, serverCpuMs, statuses }) => [
    scenario.code,
    scenario.limits,
    Object.entries(statuses)
      .map(([status, count]) => `${count}× ${status}`)
      .join(', '),
    ms(floodMs),
    ms(serverCpuMs),
    `${ms(percentile(quiet, 0.5))} / ${ms(percentile(quiet, 0.99))}`,
    `${ms(percentile(flooded, 0.5))} / ${ms(percentile(flooded, 0.99))} / ${ms(max(flooded))}`,
    `${(percentile(flooded, 0.99) / percentile(quiet, 0.99)).toFixed(1)}×`,
    String(flooded.length),
  ]);

  const markdown = `## Sign-in flood: API latency while 200 wrong passwords arrive at once

Recorded ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')} by \`${options.command}\`
(\`bench/sign-in.ts\`; code: ${describeRevision()}${baselineRoot ? `; baseline: the checkout at BENCH_BASELINE` : ''}).

- **Machine:** ${describeMachine()}. The server and the load generator share it; load average
  when the run began: ${loadAtStart}.
- **Dataset:** per row, a fresh server on a fresh SQLite database (the starter workspace: one
  team, its owner with a password and an API key) and one task. ${API_CLIENTS} API clients read
  that task (\`GET /v1/tasks/{id}\`, keep-alive) in a closed loop, first for ${BEFORE_FLOOD_MS / 1000} s alone
  ("quiet"), then during the flood: ${FLOOD} \`POST /auth/sign-in\` with a wrong password for the
  owner, all sent at once from one address (127.0.0.1), each on its own connection.
- **Limits on**: the sign-in budgets at their defaults (RATE_LIMIT_PER_MINUTE=1000000, so the
  request budget never touches the API clients, while the failed-authentication budgets are
  min(limit, 60) per address and min(limit, 10) per account). **Off**: RATE_LIMIT_PER_MINUTE=0,
  so every sign-in reaches its password hash and only the hash slots bound the work.
- **Flood time** runs from the first sign-in sent to the last answered. The **window** is the
  ${FLOOD_WINDOW_MS / 1000} s from the first sign-in sent (longer if the flood lasts longer): the API's latency
  and the server process's CPU (user + system, /proc/<pid>/stat) are measured over it, the
  same span for every row.
- **Baseline** in the same run: the API's own latency in the quiet seconds before the flood${baselineRoot ? ', and the baseline release under the same flood, run before each row of this checkout' : ''}.

${table(
  [
    'code',
    'limits',
    'sign-in answers',
    'flood time',
    'server CPU in window',
    'API quiet: median / p99',
    'API in window: median / p99 / max',
    'p99 window ÷ quiet',
    'API samples in window',
  ],
  rows,
)}
`;
  return { markdown, problems: [] };
}

export const signInBenchmark: Benchmark = {
  name: 'signin',
  summary: 'API latency during a flood of 200 wrong-password sign-ins (BENCH_BASELINE=<checkout> adds a before)',
  run,
};
