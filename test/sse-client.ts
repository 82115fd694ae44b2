/**
 * A small SSE client for the event-stream tests: opens GET /v1/events over plain node:http (so a
 * test controls exactly when a stream opens and closes), parses events and `:` comments as they
 * arrive (test/sse-parser.ts), and bounds every wait.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../src/storage/schema.js';
import { SseParser } from './sse-parser.js';

export interface SseEvent {
  id: string | undefined;
  type: string;
  data: string;
}

/** `type id`, e.g. `task.created 12`: the object id from `data`, for readable comparisons. */
export function show(event: SseEvent): string {
  try {
    const data = JSON.parse(event.data);
    return `${event.type} ${data.listId ?? data.taskId ?? event.data}`;
  } catch {
    return `${event.type} ${event.data}`;
  }
}

/** Every stream opened and not yet closed, so an after-hook can close what a failed test left open. */
const openStreams = new Set<SseStream>();

export class SseStream {
  readonly events: SseEvent[] = [];
  readonly comments: string[] = [];
  /** The body, when the server answered something other than a stream. */
  body = '';
  ended = false;
  /** The server ended the response properly (rather than the connection breaking off). */
  endedCleanly = false;
  /** The first few kilobytes received, as text. */
  firstBytes = '';
  /** Events handed out by next()/waitFor()/collectUntil(). */
  private consumed = 0;
  private readonly waiters = new Set<() => void>();
  private readonly parser = new SseParser({
    onEvent: ({ id, event, data }) => this.events.push({ id, type: event, data }),
    onComment: (text) => this.comments.push(text),
  });

  constructor(
    readonly label: string,
    readonly status: number,
    /** The response headers. */
    readonly headers: http.IncomingHttpHeaders,
    private readonly req: http.ClientRequest,
    res: http.IncomingMessage,
  ) {
    openStreams.add(this);
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      if (this.firstBytes.length < 4096) this.firstBytes += chunk;
      if (status !== 200) this.body += chunk;
      else this.parser.feed(chunk);
      this.notify();
    });
    const finish = () => {
      if (this.ended) return;
      this.ended = true;
      openStreams.delete(this);
      this.notify();
    };
    res.on('end', () => {
      this.endedCleanly = true;
      finish();
    });
    res.on('close', finish);
    res.on('error', finish);
    req.on('error', finish);
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  private describe(): string {
    const recent = this.events.slice(-15).map((e) => `${e.id}:${show(e)}`);
    return `${this.events.length} events (last: ${recent.join(', ') || 'none'}), ended=${this.ended}`;
  }

  /** Polls `check` on every arrival until it returns a value; fails after `timeoutMs`. */
  private async until<T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = check();
      if (value !== undefined) return value;
      const left = deadline - Date.now();
      if (this.ended) assert.fail(`${this.label}: stream ended while waiting for ${what}; ${this.describe()}`);
      if (left <= 0) assert.fail(`${this.label}: no ${what} within ${timeoutMs} ms; ${this.describe()}`);
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, left);
        this.waiters.add(wake);
      });
    }
  }

  /** The next event not handed out yet. */
  next(timeoutMs = 3_000): Promise<SseEvent> {
    return this.until(
      () => (this.consumed < this.events.length ? this.events[this.consumed++] : undefined),
      timeoutMs,
      'next event',
    );
  }

  /** Hands out events up to and including the first that matches; returns them all. */
  async collectUntil(predicate: (event: SseEvent) => boolean, timeoutMs = 3_000): Promise<SseEvent[]> {
    const collected: SseEvent[] = [];
    await this.until(
      () => {
        while (this.consumed < this.events.length) {
          const event = this.events[this.consumed++]!;
          collected.push(event);
          if (predicate(event)) return true;
        }
        return undefined;
      },
      timeoutMs,
      'matching event',
    );
    return collected;
  }

  /** The first matching event (the ones before it are handed out and dropped). */
  async waitFor(predicate: (event: SseEvent) => boolean, timeoutMs = 3_000): Promise<SseEvent> {
    return (await this.collectUntil(predicate, timeoutMs)).at(-1)!;
  }

  /** Waits for a comment line (`: text`) that arrives after `afterCount` comments. */
  waitForComment(text: string, timeoutMs = 3_000, afterCount = 0): Promise<true> {
    return this.until(
      () => (this.comments.slice(afterCount).includes(text) ? true : undefined),
      timeoutMs,
      `comment ": ${text}"`,
    );
  }

  /** Asserts that no event beyond those handed out arrives within `ms`. */
  async expectNothingFor(ms: number): Promise<void> {
    await sleep(ms);
    this.expectNothingPending();
  }

  expectNothingPending(): void {
    assert.deepEqual(
      this.events.slice(this.consumed).map((e) => `${e.id}:${show(e)}`),
      [],
      `${this.label}: unexpected events`,
    );
  }

  /** Resolves once the server has ended the stream. */
  waitClosed(timeoutMs: number): Promise<true> {
    return this.until(() => (this.ended ? true : undefined), timeoutMs, 'end of stream').catch((error) => {
      if (this.ended) return true as const;
      throw error;
    });
  }

  close(): void {
    this.req.destroy();
    openStreams.delete(this);
  }
}

/**
 * Opens GET /v1/events with an API key (or, with `headers`, any credential); resolves once the
 * response head has arrived (any status).
 */
export function openStream(
  server: { url: string },
  key: string | undefined,
  options: { lastEventId?: string; label?: string; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<SseStream> {
  const headers: Record<string, string> = { accept: 'text/event-stream', ...options.headers };
  if (key !== undefined) headers['x-api-key'] = key;
  if (options.lastEventId !== undefined) headers['last-event-id'] = options.lastEventId;
  const timeoutMs = options.timeoutMs ?? 5_000;
  return new Promise((resolve, reject) => {
    const req = http.request(new URL('/v1/events', server.url), { headers, agent: false }, (res) => {
      clearTimeout(timer);
      resolve(new SseStream(options.label ?? 'stream', res.statusCode ?? 0, res.headers, req, res));
    });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`GET /v1/events: no response head within ${timeoutMs} ms`));
    }, timeoutMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.end();
  });
}

/** Closes every stream still open (for after-hooks). */
export function closeAllStreams(): void {
  for (const stream of [...openStreams]) stream.close();
}

/** The team's newest event id (what a client that is up to date would send as Last-Event-ID). */
export async function latestSeq(server: { store: { db: Db } }, teamId: string): Promise<number> {
  const row = await server.store.db
    .selectFrom('teams')
    .select('event_counter')
    .where('id', '=', teamId)
    .executeTakeFirstOrThrow();
  return Number(row.event_counter);
}
