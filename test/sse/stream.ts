/**
 * The SSE client of the tests: opens GET /v1/events (connection.ts, so a test controls exactly
 * when a stream opens and closes), records every event and `:` comment as it arrives, and bounds
 * every wait, naming what it waited for and what it got instead.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { connectEvents, type ConnectionHandlers, type SseEvent, type SseResponse } from './connection.js';

export type { SseEvent } from './connection.js';

export interface ReceivedEvent extends SseEvent {
  /** performance.now() when the event was complete (its blank line arrived). */
  at: number;
}

/**
 * `type id`, e.g. `task.created 12`: the object id from `data`, for readable comparisons; a
 * notification's event as its type alone (its id is the recipient's notification's).
 */
export function show(event: SseEvent): string {
  try {
    const data = JSON.parse(event.data);
    if (data.notificationId !== undefined) return event.type;
    return `${event.type} ${data.listId ?? data.taskId ?? data.statusId ?? data.labelId ?? event.data}`;
  } catch {
    return `${event.type} ${event.data}`;
  }
}

/** Every stream opened and not yet closed, so an after-hook can close what a failed test left open. */
const openStreams = new Set<SseStream>();

export class SseStream {
  readonly events: ReceivedEvent[] = [];
  readonly comments: string[] = [];
  /** The body, when the server answered something other than a stream. */
  body = '';
  ended = false;
  /** The server ended the response properly (rather than the connection breaking off). */
  endedCleanly = false;
  /** Date.now() when the stream ended. */
  endedAt: number | undefined;
  /** The first few kilobytes received, as text. */
  firstBytes = '';
  readonly status: number;
  /** The response headers. */
  readonly headers: SseResponse['headers'];
  /** Events handed out by next()/waitFor()/collectUntil()/waitForCount(). */
  private consumed = 0;
  private readonly waiters = new Set<() => void>();

  constructor(
    readonly label: string,
    private readonly response: SseResponse,
  ) {
    this.status = response.status;
    this.headers = response.headers;
    openStreams.add(this);
  }

  /** What the connection reports to. */
  handlers(): ConnectionHandlers {
    return {
      onEvent: (event, at) => this.events.push({ ...event, at }),
      onComment: (text) => this.comments.push(text),
      onText: (text) => {
        if (this.firstBytes.length < 4096) this.firstBytes += text;
        if (this.status !== 200) this.body += text;
        this.notify();
      },
      onClose: (clean) => {
        this.ended = true;
        this.endedCleanly = clean;
        this.endedAt = Date.now();
        openStreams.delete(this);
        this.notify();
      },
    };
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
  next(timeoutMs = 3_000, what = 'next event'): Promise<ReceivedEvent> {
    return this.until(
      () => (this.consumed < this.events.length ? this.events[this.consumed++] : undefined),
      timeoutMs,
      what,
    );
  }

  /** Hands out events up to and including the first that matches; returns them all. */
  async collectUntil(
    predicate: (event: ReceivedEvent) => boolean,
    timeoutMs = 3_000,
    what = 'matching event',
  ): Promise<ReceivedEvent[]> {
    const collected: ReceivedEvent[] = [];
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
      what,
    );
    return collected;
  }

  /** The first matching event (the ones before it are handed out and dropped). */
  async waitFor(
    predicate: (event: ReceivedEvent) => boolean,
    timeoutMs = 3_000,
    what?: string,
  ): Promise<ReceivedEvent> {
    return (await this.collectUntil(predicate, timeoutMs, what)).at(-1)!;
  }

  /** Waits until `count` events have arrived in all, and hands them out. */
  async waitForCount(count: number, timeoutMs: number): Promise<void> {
    await this.until(() => (this.events.length >= count ? true : undefined), timeoutMs, `${count} events in all`);
    this.consumed = Math.max(this.consumed, count);
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

  /** Drops the connection; resolves once its socket is closed. */
  close(): Promise<void> {
    openStreams.delete(this);
    return this.response.close();
  }
}

/**
 * Opens GET /v1/events with an API key (or, with `headers`, any credential); resolves once the
 * response head has arrived (any status).
 */
export async function openStream(
  server: { url: string },
  key: string | undefined,
  options: { lastEventId?: string; label?: string; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<SseStream> {
  let stream: SseStream | undefined;
  await connectEvents(server.url, { ...options, key }, (response) => {
    stream = new SseStream(options.label ?? 'stream', response);
    return stream.handlers();
  });
  return stream!;
}

/** Closes every stream still open (for after-hooks); resolves once their sockets are closed. */
export async function closeAllStreams(): Promise<void> {
  await Promise.all([...openStreams].map((stream) => stream.close()));
}
