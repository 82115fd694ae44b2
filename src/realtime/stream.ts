/**
 * One client's SSE response, and the only code that writes to it: the response head, events
 * filtered by recipient and cursor, comments, and the bounds that cut off a client that stopped
 * reading. The hub decides *when* a stream may be written to (only once it is live, see hub.ts);
 * this class decides *what* goes on the wire.
 */
import type { ServerResponse } from 'node:http';
import type { Caller } from '../caller.js';
import type { StoredEvent } from '../changes/outbox.js';

/** How long a stream may stay over its output bound, taking nothing, before it counts as stalled. */
export const STALL_MS = 1_000;
/** Past this backlog a stream is cut off even if its client still reads (slower than it is written to). */
const hardBound = (maxBufferBytes: number) => Math.max(16 * maxBufferBytes, 4 * 1024 * 1024);

function formatEvent(event: StoredEvent): string {
  return `id: ${event.seq}\nevent: ${event.type}\ndata: ${event.data}\n\n`;
}

export class EventStream {
  /** Seq of the last event this stream has been given (or skipped as not its own). */
  cursor = 0;
  /** Bytes the socket had flushed at the last sweep that found the stream over its bound, or null. */
  private flushedAtSweep: number | null = null;

  constructor(
    readonly caller: Caller,
    readonly res: ServerResponse,
    /** Unsent bytes the stream may queue before it counts as stalled. */
    private readonly maxBufferBytes: number,
  ) {}

  /** The client left, or the stream was ended or cut off: nothing more can be written. */
  get gone(): boolean {
    return this.res.destroyed || this.res.writableEnded;
  }

  /** Sends the response head and the reconnection delay; called once, before anything else. */
  writeHead(): void {
    if (this.gone) return;
    this.res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no', // nginx: do not buffer the stream
    });
    this.write('retry: 2000\n: connected\n\n');
  }

  /**
   * Hands the stream the events addressed to it that it has not had yet, in one write: one chunk
   * per batch keeps a socket's pending output short even for a slow client.
   */
  send(events: readonly StoredEvent[]): void {
    let text = '';
    for (const event of events) {
      if (event.seq <= this.cursor) continue;
      if (event.recipients.has(this.caller.userId)) text += formatEvent(event);
      this.cursor = event.seq;
    }
    if (text) this.write(text);
  }

  /** Tells the client it missed events that can no longer be replayed: it must refetch everything. */
  requireSync(latest: number, reason: string): void {
    this.cursor = Math.max(this.cursor, latest);
    this.write(`id: ${latest}\nevent: sync.required\ndata: ${JSON.stringify({ reason })}\n\n`);
  }

  write(text: string): void {
    if (this.gone) return;
    this.res.write(text);
    // Past the hard bound a stream is cut off at once, however slowly its client still reads,
    // so no stream's memory grows without limit. (Stalls below it: see checkBacklog.)
    if (this.res.writableLength > hardBound(this.maxBufferBytes)) this.drop();
  }

  /**
   * Lets the client take what was written: yields to the event loop (so sockets flush even when
   * every query answers at once), then waits while the backlog is over the bound and the client
   * keeps taking data; a client that takes nothing for STALL_MS is dropped.
   */
  async drained(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    let flushed = this.res.socket?.bytesWritten ?? 0;
    let progressAt = Date.now();
    while (!this.gone && this.res.writableLength > this.maxBufferBytes) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const now = this.res.socket?.bytesWritten ?? 0;
      if (now > flushed) {
        flushed = now;
        progressAt = Date.now();
      } else if (Date.now() - progressAt >= STALL_MS) {
        return this.drop();
      }
    }
  }

  /**
   * A burst may put a reading client over the bound for a moment; a stream that is over it and
   * whose client took nothing since the last check has stopped reading, and is cut off.
   * (Run every STALL_MS: socket.bytesWritten walks the pending chunks, too slow for every write.)
   */
  checkBacklog(): void {
    if (this.res.writableLength <= this.maxBufferBytes) {
      this.flushedAtSweep = null;
      return;
    }
    const flushed = this.res.socket?.bytesWritten ?? 0;
    if (this.flushedAtSweep !== null && flushed <= this.flushedAtSweep) this.drop();
    else this.flushedAtSweep = flushed;
  }

  /** Ends the stream cleanly: an EventSource reconnects (elsewhere, after a shutdown) and resumes. */
  end(): void {
    if (!this.gone) this.res.end();
  }

  /** Cuts the stream off at once (its client stopped reading, or the database failed). */
  drop(): void {
    this.res.destroy();
  }
}
