/**
 * A fuzzer case for memory: a real `tasklane serve` process whose lists hold items as large as
 * the API allows (activity entries of 100,000-character descriptions, 20,000-character comments,
 * webhook deliveries with their bodies and attempt logs), read by about twenty generated list
 * reads at once. The server's peak resident memory (VmHWM, which the kernel keeps, so no
 * sampling and no timing is involved) may grow by at most MAX_GROWTH_BYTES over what it held
 * before the reads.
 *
 * Measured when this case was written (20 reads, FUZZ_SEED=1): before pages were bounded by size,
 * the server grew by 1,052 MB on SQLite and 1,409 MB on PostgreSQL (an activity page was 38 MB,
 * a delivery page 31 MB); with pages of at most 1 MiB, by 10 MB and 4 MB. The bound sits far
 * from both. FUZZ_SEED replays a run's mix of reads.
 */
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { after, test } from 'node:test';
import fc from 'fast-check';
import { openStore } from '../../src/storage/database.js';
import { Client, expectStatus, tempDatabase, TEST_STORE, TEST_WEBHOOK_ENV, type TempDatabase } from '../harness.js';
import { killAll, printedKey, serve, type Serving } from '../processes.js';

const SEED = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : randomInt(2 ** 31);
const CONCURRENT_READS = 20;
/** Far below what unbounded pages reach (over 1 GB), far above what bounded ones need (about 10 MB). */
const MAX_GROWTH_BYTES = 200 * 1024 * 1024;

const ENTRIES = 200;
const COMMENTS = 200;
const DESCRIPTION_LENGTH = 100_000;
const COMMENT_LENGTH = 20_000;
const ATTEMPTS_PER_DELIVERY = 5;

let database: TempDatabase | undefined;
let server: Serving | undefined;
after(async () => {
  await server?.stop();
  killAll();
  await database?.remove();
});

/** A field of /proc/<pid>/status, in bytes (VmRSS: resident now; VmHWM: the most resident since the last reset). */
function memory(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  assert.ok(match, `no ${field} in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

/** Makes VmHWM start again from the process's current RSS (Linux: `5` to /proc/<pid>/clear_refs). */
const resetPeak = (pid: number) => writeFileSync(`/proc/${pid}/clear_refs`, '5');

/** GETs `path`, counting the answer's bytes without holding them. */
function readSize(baseUrl: string, path: string, key: string): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = http.get(new URL(path, baseUrl), { headers: { 'x-api-key': key } }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

const MiB = 1024 * 1024;
const mb = (bytes: number) => `${(bytes / MiB).toFixed(0)} MB`;

test(
  `the server's memory stays bounded while ${CONCURRENT_READS} reads of lists of the largest items run at once (${TEST_STORE}, FUZZ_SEED=${SEED})`,
  { timeout: 15 * 60_000 },
  async (t) => {
    database = await tempDatabase();
    server = await serve(database.url, { ...TEST_WEBHOOK_ENV, RATE_LIMIT_PER_MINUTE: '0' });
    const { key } = printedKey(server.stdout());
    const api = new Client(server.url, key);

    // Every change below queues a delivery to this webhook (nothing is sent: WEBHOOK_DELIVERY=off).
    const webhook = expectStatus(await api.post('/v1/webhooks', { url: 'http://127.0.0.1:9/memory' }), 201);
    const task = expectStatus(await api.post('/v1/tasks', { title: 'Long history' }), 201);
    for (let i = 0; i < COMMENTS; i++) {
      const body = `Comment ${i} `.padEnd(COMMENT_LENGTH, 'klmnopqrst');
      expectStatus(await api.post(`/v1/tasks/${task.id}/comments`, { body }), 201);
    }
    for (let i = 0; i < ENTRIES; i++) {
      const description = `Version ${i} `.padEnd(DESCRIPTION_LENGTH, 'abcdefghij');
      expectStatus(await api.patch(`/v1/tasks/${task.id}`, { description }), 200);
    }
    // What the worker would have written had it sent them: the body (a task's detail and its
    // description's change, about 300 KB) and a log of attempts with the first 4 KB of each answer.
    const store = openStore(database.url);
    try {
      const payload = JSON.stringify({
        type: 'task.updated',
        timestamp: new Date().toISOString(),
        data: { id: task.id, description: 'd'.repeat(DESCRIPTION_LENGTH) },
        changes: { description: { from: 'f'.repeat(DESCRIPTION_LENGTH), to: 't'.repeat(DESCRIPTION_LENGTH) } },
      });
      const now = new Date().toISOString();
      await store.db
        .updateTable('webhook_deliveries')
        .set({ payload, status: 'failed', finished_at: now })
        .where('webhook_id', '=', webhook.id)
        .execute();
      const ids = await store.db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('webhook_id', '=', webhook.id)
        .execute();
      for (const { id } of ids) {
        await store.db
          .insertInto('webhook_attempts')
          .values(
            Array.from({ length: ATTEMPTS_PER_DELIVERY }, () => ({
              delivery_id: id,
              attempted_at: now,
              duration_ms: 10_000,
              status_code: 500,
              response_body: 'r'.repeat(4096),
              error: 'The endpoint answered 500.',
              next_attempt_at: null,
            })),
          )
          .execute();
      }
    } finally {
      await store.close();
    }

    const lists = {
      activity: { path: `/v1/tasks/${task.id}/activity`, most: 200, cursor: 'before' },
      comments: { path: `/v1/tasks/${task.id}/comments`, most: 200, cursor: 'after' },
      deliveries: { path: `/v1/webhooks/${webhook.id}/deliveries`, most: 100, cursor: 'before' },
    } as const;
    // Large pages of each list, mostly from the start (the newest activity entries are the
    // descriptions' changes), sometimes from a cursor within it.
    const readArb = fc
      .record({
        list: fc.constantFrom(...(Object.keys(lists) as (keyof typeof lists)[])),
        limitShare: fc.oneof({ weight: 3, arbitrary: fc.constant(100) }, fc.integer({ min: 50, max: 100 })),
        cursor: fc.oneof(
          { weight: 4, arbitrary: fc.constant(null) },
          fc.integer({ min: 1, max: 2 * (ENTRIES + COMMENTS) }),
        ),
      })
      .map(({ list, limitShare, cursor }) => {
        const { path, most, cursor: name } = lists[list];
        const query = new URLSearchParams({ limit: String(Math.ceil((most * limitShare) / 100)) });
        if (cursor !== null) query.set(name, String(cursor));
        return `${path}?${query.toString()}`;
      });
    const reads = fc.sample(readArb, { numRuns: CONCURRENT_READS, seed: SEED });

    // Warm up each route (its schemas compiled, its statements prepared), then measure from here.
    for (const { path } of Object.values(lists)) {
      assert.equal((await readSize(server.url, `${path}?limit=1`, key)).status, 200);
    }
    const pid = server.child.pid!;
    resetPeak(pid);
    const before = memory(pid, 'VmRSS');
    const answers = await Promise.all(reads.map((path) => readSize(server!.url, path, key)));
    const peak = memory(pid, 'VmHWM');

    const sizes = answers.map((answer, i) => `${reads[i]} → ${answer.status}, ${mb(answer.bytes)}`);
    t.diagnostic(`RSS before the reads ${mb(before)}, peak during them ${mb(peak)}: grew ${mb(peak - before)}`);
    t.diagnostic(`largest answer ${mb(Math.max(...answers.map((a) => a.bytes)))}`);
    if (process.env.FUZZ_VERBOSE) t.diagnostic(sizes.join('\n'));
    for (const [i, answer] of answers.entries()) assert.equal(answer.status, 200, sizes[i]);
    assert.ok(
      peak - before < MAX_GROWTH_BYTES,
      `the server's RSS grew by ${mb(peak - before)} (from ${mb(before)} to ${mb(peak)}), more than ${mb(MAX_GROWTH_BYTES)}:\n${sizes.join('\n')}`,
    );
  },
);
