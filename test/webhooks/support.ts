/**
 * What the webhook suites share: a real HTTP receiver on loopback that records every request
 * (and answers as a test tells it), a test server that delivers with a compressed retry schedule,
 * and verification with the reference `standardwebhooks` package, never with tasklane's signer.
 */
import assert from 'node:assert/strict';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';
import { expectStatus, startTestServer, type Client, type TestServer } from '../harness.js';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as it arrived. */
  body: string;
  json: any;
  webhookId: string;
  startedAt: number;
  /** When the receiver finished answering it (undefined while it is still answering). */
  endedAt?: number;
}

export interface Answer {
  status: number;
  body?: string;
  headers?: Record<string, string>;
  /** Wait this long before answering. */
  delayMs?: number;
}

export type Responder = (request: Received) => Answer;

export interface Receiver {
  url: string;
  requests: Received[];
  /** Changes how it answers from now on. */
  respond(responder: Responder): void;
  /** The requests so far whose body's `type` is `type`. */
  ofType(type: string): Received[];
  close(): Promise<void>;
}

/** The most of `requests` the receiver was answering at one moment. */
export function mostAtOnce(requests: readonly Received[]): number {
  const edges = requests.flatMap((r) => [
    [r.startedAt, 1],
    [r.endedAt ?? Infinity, -1],
  ]) as [number, number][];
  // At equal times an end goes first: one answered and the next begun in the same millisecond.
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let most = 0;
  for (const [, change] of edges) most = Math.max(most, (now += change));
  return most;
}

export async function startReceiver(responder: Responder = () => ({ status: 204 })): Promise<Receiver> {
  const requests: Received[] = [];
  let answer = responder;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const received: Received = {
        path: req.url ?? '',
        headers: req.headers,
        body,
        json,
        webhookId: String(req.headers['webhook-id'] ?? ''),
        startedAt: Date.now(),
      };
      requests.push(received);
      const reply = answer(received);
      if (reply.delayMs) await sleep(reply.delayMs);
      received.endedAt = Date.now();
      if (!res.destroyed) res.writeHead(reply.status, reply.headers).end(reply.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    respond: (next) => (answer = next),
    ofType: (type) => requests.filter((r) => r.json?.type === type),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A fast retry schedule (0.2 s doubling up to 0.8 s, for 60 s) so suites see retries without waiting days. */
export const FAST_RETRIES = {
  WEBHOOK_RETRY_FIRST_DELAY_MS: '200',
  WEBHOOK_RETRY_MAX_DELAY_MS: '800',
  WEBHOOK_RETRY_FOR_MS: '60000',
};

/** A test server that sends webhooks, with FAST_RETRIES unless `env` says otherwise. */
export function webhookServer(env: Record<string, string> = {}): Promise<TestServer> {
  return startTestServer({ WEBHOOK_DELIVERY: 'on', ...FAST_RETRIES, ...env });
}

export interface CreatedWebhook {
  id: string;
  secret: string;
  [field: string]: any;
}

/** Creates a webhook for `api`'s user pointing at `url`. */
export async function createWebhook(
  api: Client,
  url: string,
  fields: Record<string, unknown> = {},
): Promise<CreatedWebhook> {
  return expectStatus(await api.post('/v1/webhooks', { url, ...fields }), 201);
}

/** The body, verified with the reference library and the given secret (throws when the signature is wrong). */
export function verify(secret: string, received: Received): any {
  return new Webhook(secret).verify(received.body, {
    'webhook-id': String(received.headers['webhook-id']),
    'webhook-timestamp': String(received.headers['webhook-timestamp']),
    'webhook-signature': String(received.headers['webhook-signature']),
  });
}

/** Polls `check` until it returns something other than undefined/false, or fails saying `what`. */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(25);
  }
}

/**
 * The webhook's deliveries as its owner reads them, whole: the log's newest page (summaries), then
 * each delivery with its body and attempts (GET …/deliveries/{deliveryId}).
 */
export async function deliveriesOf(api: Client, webhookId: string): Promise<any[]> {
  const log: { id: number }[] = expectStatus(await api.get(`/v1/webhooks/${webhookId}/deliveries?limit=100`), 200);
  const whole = [];
  for (const { id } of log) whole.push(expectStatus(await api.get(`/v1/webhooks/${webhookId}/deliveries/${id}`), 200));
  return whole;
}
