/**
 * One `GET /v1/events` connection over plain node:http, parsed with `eventsource-parser`: the
 * base of the shared SSE client (stream.ts, for tests), and what the events benchmark and the
 * soak hold hundreds or thousands of at once. It keeps no history of its own, so a holder of
 * many long streams keeps only what it counts.
 */
import http from 'node:http';
import { createParser } from 'eventsource-parser';

export interface SseEvent {
  /** The stream's last event id when the event was dispatched (EventSource's `lastEventId`). */
  id: string | undefined;
  /** The `event` field, or `message` when absent (as EventSource names it). */
  type: string;
  /** The `data` lines joined with newlines. */
  data: string;
}

export interface SseHandlers {
  /** Each complete event, with performance.now() when the chunk that completed it arrived. */
  onEvent?(event: SseEvent, receivedAt: number): void;
  /** Each `:` comment line, without the colon and one leading space (`connected`, `ping`). */
  onComment?(text: string, receivedAt: number): void;
}

/**
 * A parser that adds EventSource's two defaults to eventsource-parser's output: the type
 * `message`, and an id carried over from earlier events (tasklane sends an id with every event,
 * so this only matters for a stream that does not).
 */
export function createEventParser(handlers: SseHandlers): { feed(chunk: string, receivedAt?: number): void } {
  let lastId: string | undefined;
  let receivedAt = 0;
  const parser = createParser({
    onEvent: ({ id, event, data }) => {
      if (id !== undefined) lastId = id;
      handlers.onEvent?.({ id: lastId, type: event ?? 'message', data }, receivedAt);
    },
    onComment: (text) => handlers.onComment?.(text, receivedAt),
  });
  return {
    feed(chunk, at = performance.now()) {
      receivedAt = at;
      parser.feed(chunk);
    },
  };
}

export interface ConnectOptions {
  /** Sent as `x-api-key`. */
  key?: string;
  lastEventId?: string;
  /** More request headers (a session cookie, say). */
  headers?: Record<string, string>;
  /** Defaults to a connection of its own (`agent: false`), so a test controls when it closes. */
  agent?: http.Agent | false;
  /** How long the response head may take; past it the promise rejects with code TIMEOUT. */
  timeoutMs?: number;
}

export interface ConnectionHandlers extends SseHandlers {
  /**
   * Raw body text as it arrives: the stream's own bytes on a 200, the refusal's body otherwise.
   * Called after the events and comments the chunk completed, so a waiter woken here sees them.
   */
  onText?(text: string): void;
  /** Once, when the response is over: `clean` when the server ended it, not when it broke off. */
  onClose?(clean: boolean): void;
}

/** An answered GET /v1/events. */
export interface SseResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Drops the connection (as a client that goes away); resolves once its socket is closed. */
  close(): Promise<void>;
}

/**
 * Opens GET /v1/events at `baseUrl`. When the response head arrives, `listen` is given the
 * response and returns the handlers for what follows (only a 200 is parsed as events); the
 * promise then resolves with the same response. It rejects on a connection error or timeout
 * before the head.
 */
export function connectEvents(
  baseUrl: string | URL,
  options: ConnectOptions,
  listen: (response: SseResponse) => ConnectionHandlers,
): Promise<SseResponse> {
  const headers: Record<string, string> = { accept: 'text/event-stream', ...options.headers };
  if (options.key !== undefined) headers['x-api-key'] = options.key;
  if (options.lastEventId !== undefined) headers['last-event-id'] = options.lastEventId;
  const timeoutMs = options.timeoutMs ?? 5_000;
  return new Promise((resolve, reject) => {
    const request = http.get(new URL('/v1/events', baseUrl), { headers, agent: options.agent ?? false }, (res) => {
      clearTimeout(timer);
      const socketClosed = new Promise<void>((done) => request.once('close', () => done()));
      const response: SseResponse = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        close: async () => {
          request.destroy();
          await Promise.race([socketClosed, new Promise((done) => setTimeout(done, 5_000).unref())]);
        },
      };
      const handlers = listen(response);
      const parser = response.status === 200 ? createEventParser(handlers) : undefined;
      let closed = false;
      const close = (clean: boolean) => {
        if (closed) return;
        closed = true;
        handlers.onClose?.(clean);
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        parser?.feed(chunk, performance.now());
        handlers.onText?.(chunk);
      });
      res.on('end', () => close(true));
      res.on('close', () => close(false));
      res.on('error', () => close(false));
      request.on('error', () => close(false));
      resolve(response);
    });
    const timer = setTimeout(() => {
      const error = new Error(`GET /v1/events: no response head within ${timeoutMs} ms`);
      request.destroy(Object.assign(error, { code: 'TIMEOUT' }));
    }, timeoutMs);
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(error); // no effect once the head has arrived: the promise is settled by then
    });
  });
}
