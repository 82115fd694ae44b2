// Issue 27, target 2: a task change in a list of N members, each with an open event stream of
// their own (GET /v1/events, their own key). A real `tasklane serve` on a fresh SQLite database;
// the members, keys and list memberships are written straight into it (as `tasklane admin` does
// beside a running server). Each round the owner PATCHes the task's title; reported: the delivery
// latency from the PATCH's response to each stream's receipt of its task.updated (p50, p99), and
// the server's CPU per change (fan-out included). ROOT runs another built checkout's server.
//
//   [ROOT=<a built checkout>] [MEMBERS=2000] [ROUNDS=30] node bench/experiments/fan-out.mjs
/* global fetch */
import { randomUUID } from 'node:crypto';
import { cpuMs, percentile, startBenchServer, sleep } from '../../dist/bench/support.js';
import { openStore } from '../../dist/src/storage/database.js';
import { insertKey } from '../../dist/src/keys/keys.repository.js';
import { insertUser } from '../../dist/src/team/users.repository.js';
import { upsertMember } from '../../dist/src/team/teams.repository.js';
import { connectEvents } from '../../dist/test/sse/connection.js';

const root = process.env.ROOT ?? new URL('../..', import.meta.url).pathname;
const MEMBERS = Number(process.env.MEMBERS ?? 2000);
const ROUNDS = Number(process.env.ROUNDS ?? 30);

const server = await startBenchServer({ EVENTS_MAX_STREAMS: '100000' }, root);
const call = async (method, path, body) => {
  const response = await fetch(new URL(path, server.url), {
    method,
    headers: { 'x-api-key': server.key, 'content-type': 'application/json' },
    body: body && JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text);
};
const me = await call('GET', '/v1/me');
const teamId = me.team.id;
const list = await call('POST', '/v1/lists', { name: `Fan-out ${MEMBERS}` });
const task = await call('POST', '/v1/tasks', { title: 'Fanned out', taskListIds: [list.id] });

const store = openStore(`sqlite:${server.databasePath}`);
const keys = [];
const now = new Date().toISOString();
for (let i = 1; i < MEMBERS; i++) {
  const user = await insertUser(store.db, {
    email: `m${i}-${randomUUID().slice(0, 6)}@example.test`,
    name: `M ${i}`,
    passwordHash: null,
  });
  await upsertMember(store.db, teamId, user.id, 'member');
  await store.db.insertInto('list_members').values({ list_id: list.id, user_id: user.id, created_at: now }).execute();
  keys.push((await insertKey(store.db, { teamId, userId: user.id, name: 'fan-out' })).key);
}
await store.close();

const received = new Map(); // round → receipt times
let round = 0;
const streams = [];
for (const key of [server.key, ...keys]) {
  streams.push(
    await connectEvents(server.url, { key, timeoutMs: 30_000 }, () => ({
      onEvent: (event, at) => {
        if (event.type !== 'task.updated') return;
        (received.get(round) ?? received.set(round, []).get(round)).push(at);
      },
    })),
  );
}
await sleep(500);
const latencies = [];
let cpu = 0;
for (round = 0; round <= ROUNDS; round++) {
  const c0 = cpuMs(server.pid);
  await call('PATCH', `/v1/tasks/${task.id}`, { title: `Round ${round}` });
  const answered = performance.now();
  for (let waited = 0; (received.get(round)?.length ?? 0) < streams.length && waited < 5000; waited += 5)
    await sleep(5);
  const times = received.get(round) ?? [];
  if (times.length < streams.length)
    throw new Error(`round ${round}: ${times.length} of ${streams.length} streams got it`);
  if (round === 0) continue; // warm-up
  cpu += cpuMs(server.pid) - c0;
  for (const at of times) latencies.push(at - answered);
}
console.log(
  `${MEMBERS} members, ${streams.length} streams: delivery after the response p50 ${percentile(latencies, 0.5).toFixed(1)} ms, ` +
    `p99 ${percentile(latencies, 0.99).toFixed(1)} ms; server CPU per change ${(cpu / ROUNDS).toFixed(2)} ms`,
);
for (const stream of streams) await stream.close();
await server.stop();
process.exit(0);
