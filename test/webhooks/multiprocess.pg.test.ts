/**
 * Three `tasklane serve` processes on one PostgreSQL database share the delivery queue: changes
 * made through all three reach each webhook once each (with retries after failures), no attempt
 * is ever made twice at the same moment (one webhook-id's requests never overlap), and no
 * endpoint ever has more than WEBHOOK_MAX_IN_FLIGHT attempts in flight across the processes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client, expectStatus, TEST_WEBHOOK_ENV, tempDatabase } from '../harness.js';
import { killAll, printedKey, serve, type Serving } from '../processes.js';
import { mostAtOnce, startReceiver, waitFor, type Received } from './support.js';

const PROCESSES = 3;
const TASKS = 100;
const MAX_IN_FLIGHT = 2;
const ENV = {
  ...TEST_WEBHOOK_ENV,
  WEBHOOK_DELIVERY: 'on',
  WEBHOOK_MAX_IN_FLIGHT: String(MAX_IN_FLIGHT),
  WEBHOOK_RETRY_FIRST_DELAY_MS: '50',
  WEBHOOK_RETRY_MAX_DELAY_MS: '200',
  RATE_LIMIT_PER_MINUTE: '0',
  LOG_LEVEL: 'error',
};

/** Whether two requests were being answered at the same moment. */
const overlap = (a: Received, b: Received) => a.startedAt < b.endedAt! && b.startedAt < a.endedAt!;

test(
  `${PROCESSES} processes on PostgreSQL: every event reaches every webhook, no attempt is made twice at the same moment, and no endpoint exceeds its in-flight bound`,
  { timeout: 180_000 },
  async (t) => {
    const database = await tempDatabase();
    // A flaky receiver: one answer in four is a 500 (so there are retries), each takes a few ms.
    let answered = 0;
    const receiver = await startReceiver(() => ({
      status: ++answered % 4 === 0 ? 500 : 200,
      delayMs: 5 + (answered % 20),
    }));
    const servers: Serving[] = [];
    try {
      servers.push(await serve(database.url, ENV));
      const { key } = printedKey(servers[0]!.stdout());
      servers.push(...(await Promise.all(Array.from({ length: PROCESSES - 1 }, () => serve(database.url, ENV)))));
      const apis = servers.map((s) => new Client(s.url, key));
      const paths = ['/a', '/b', '/c'];
      for (const path of paths) expectStatus(await apis[0]!.post('/v1/webhooks', { url: receiver.url + path }), 201);

      const begun = Date.now();
      await Promise.all(
        Array.from({ length: TASKS }, (_, n) => apis[n % PROCESSES]!.post('/v1/tasks', { title: `Spread ${n}` })),
      );

      const succeeded = (path: string) =>
        new Set(receiver.requests.filter((r) => r.path === path && r.endedAt !== undefined).map((r) => r.webhookId));
      await waitFor(
        `${TASKS} deliveries at each of ${paths.length} endpoints`,
        () => paths.every((path) => succeeded(path).size === TASKS),
        120_000,
      );
      t.diagnostic(`delivered everything ${Date.now() - begun} ms after the burst began`);
      // Let attempts that were still going finish before judging overlaps.
      await waitFor('answers in progress', () => receiver.requests.every((r) => r.endedAt !== undefined));

      const byMessage = new Map<string, Received[]>();
      for (const request of receiver.requests) {
        byMessage.set(`${request.path} ${request.webhookId}`, [
          ...(byMessage.get(`${request.path} ${request.webhookId}`) ?? []),
          request,
        ]);
      }
      for (const [message, requests] of byMessage) {
        for (let i = 0; i < requests.length; i++) {
          for (let j = i + 1; j < requests.length; j++) {
            assert.ok(!overlap(requests[i]!, requests[j]!), `${message} was being attempted twice at the same moment`);
          }
        }
      }
      for (const path of paths) {
        const atOnce = mostAtOnce(receiver.requests.filter((r) => r.path === path));
        assert.ok(atOnce <= MAX_IN_FLIGHT, `${path} had ${atOnce} attempts in flight at once`);
      }
      const retried = [...byMessage.values()].filter((requests) => requests.length > 1).length;
      t.diagnostic(`${receiver.requests.length} requests, ${retried} messages retried at least once`);
      assert.ok(retried > 0, 'the flaky receiver caused retries');
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
      killAll();
      await receiver.close();
      await database.remove();
    }
  },
);
