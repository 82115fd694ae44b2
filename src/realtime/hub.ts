/**
 * The event hub: holds this process's open SSE streams and feeds each one, in order and once,
 * the outbox events its user is a recipient of.
 *
 * - Live: on a wake-up for a team (or the periodic poll), one query reads the team's new
 *   events with their recipients and fans them out to the team's streams.
 * - Resume: a stream opened with Last-Event-ID first replays what it missed from the outbox;
 *   live events that arrive meanwhile are held back and sent after the replay, so nothing is
 *   duplicated or reordered. An id older than retention gets a `sync.required` event instead.
 * - Safety: every few seconds each stream's key and membership are checked again; a revoked key
 *   or a removed member loses the stream. A stream whose unsent output passes a bound (a client
 *   that stopped reading) is cut off, so it can neither slow the others nor grow without limit.
 */
import type { ServerResponse } from 'node:http';
import type { Caller } from '../caller.js';
import { liveKeyIds } from '../keys/keys.repository.js';
import { liveSessionTeams } from '../sessions/sessions.repository.js';
import type { Store } from '../storage/database.js';
import type { EventBus } from './bus.js';
import { eventsAfter, eventWindow, pruneEvents, type StoredEvent } from './outbox.js';

export interface HubOptions {
  heartbeatMs: number;
  /** How often streams' keys and memberships are checked again. */
  recheckMs: number;
  /** Safety net for missed wake-ups (another process's NOTIFY lost, say). */
  pollMs: number;
  pruneMs: number;
  /** Unsent bytes a stream may queue before it is disconnected. */
  maxBufferBytes: number;
}

/** Events read per query when fanning out and when replaying. */
const FAN_OUT_PAGE = 1_000;
const REPLAY_PAGE = 1_000;
/** How long a stream may stay over its output bound, taking nothing, before it counts as stalled. */
const STALL_MS = 1_000;
/** Past this backlog a stream is cut off even if its client still reads (slower than it is written to). */
const hardBound = (maxBufferBytes: number) => Math.max(16 * maxBufferBytes, 4 * 1024 * 1024);

export const DEFAULT_HUB_OPTIONS: HubOptions = {
  heartbeatMs: 20_000,
  recheckMs: 5_000,
  pollMs: 2_000,
  pruneMs: 60_000,
  maxBufferBytes: 1024 * 1024,
};

interface Stream {
  caller: Caller;
  res: ServerResponse;
  /** Seq of the last event this stream has been given (or skipped as not its own). */
  cursor: number;
  /** Live events held back while the stream replays what it missed. */
  held: StoredEvent[] | null;
  /** Bytes the socket had flushed at the last sweep that found the stream over its bound, or null. */
  flushedAtSweep: number | null;
}

interface TeamStreams {
  streams: Set<Stream>;
  /** Seq up to which live events have been fanned out. */
  cursor: number;
  /** Serializes fan-out per team; `again` asks for one more pass when a wake-up came meanwhile. */
  running: boolean;
  again: boolean;
}

/** Ids in chunks small enough for any SQL parameter limit. */
function chunks(ids: string[], size = 500): string[][] {
  const result: string[][] = [];
  for (let i = 0; i < ids.length; i += size) result.push(ids.slice(i, i + size));
  return result;
}

function formatEvent(event: StoredEvent): string {
  return `id: ${event.seq}\nevent: ${event.type}\ndata: ${event.data}\n\n`;
}

export class EventHub {
  private readonly teams = new Map<string, TeamStreams>();
  private readonly timers: NodeJS.Timeout[] = [];
  private closed = false;

  constructor(
    private readonly store: Store,
    private readonly bus: EventBus,
    private readonly options: HubOptions = DEFAULT_HUB_OPTIONS,
  ) {
    store.changes.on('events', (teamId: string) => bus.announce(teamId));
    bus.onAnnounce((teamId) => void this.fanOut(teamId));
    const every = (ms: number, task: () => unknown) => {
      const timer = setInterval(() => void Promise.resolve(task()).catch(() => {}), ms);
      timer.unref();
      this.timers.push(timer);
    };
    every(options.heartbeatMs, () => this.heartbeat());
    every(STALL_MS, () => this.sweepStalled());
    every(options.recheckMs, () => this.recheckCredentials());
    every(options.pollMs, () => Promise.all([...this.teams.keys()].map((teamId) => this.fanOut(teamId))));
    every(options.pruneMs, () => this.prune());
  }

  /** Open streams on this process. */
  get size(): number {
    let count = 0;
    for (const team of this.teams.values()) count += team.streams.size;
    return count;
  }

  /** Serves one SSE stream on `res` until the client leaves, loses access, or the hub closes. */
  async open(caller: Caller, lastEventId: string | undefined, res: ServerResponse): Promise<void> {
    const stream: Stream = { caller, res, cursor: 0, held: [], flushedAtSweep: null };
    // Listen first: a client may leave while the stream is still being set up.
    res.on('close', () => this.detach(stream));
    await this.attach(stream);
    if (res.destroyed) return this.detach(stream);
    if (this.closed) return void res.end();

    try {
      await this.replay(stream, lastEventId);
    } catch {
      return this.drop(stream); // the database failed mid-replay: the client reconnects and resumes
    }
    const held = stream.held ?? [];
    stream.held = null;
    this.send(stream, held);
  }

  /**
   * Starts the stream: from Last-Event-ID if given (replaying what was missed), else from now.
   * The response head goes out only once the starting point is fixed, so a client that has seen
   * the 200 cannot miss a change made after it.
   */
  private async replay(stream: Stream, lastEventId: string | undefined): Promise<void> {
    const { teamId, userId } = stream.caller;
    const { latest, oldest } = await eventWindow(this.store.db, teamId);
    stream.res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no', // nginx: do not buffer the stream
    });
    this.writeRaw(stream, 'retry: 2000\n: connected\n\n');

    const from = lastEventId !== undefined && /^\d{1,15}$/.test(lastEventId.trim()) ? Number(lastEventId) : null;
    if (lastEventId === undefined || from === latest) {
      stream.cursor = Math.max(stream.cursor, latest);
      return;
    }
    if (from === null || from > latest || from + 1 < (oldest ?? latest + 1)) {
      const reason =
        from === null
          ? 'Last-Event-ID is not an event id'
          : from > latest
            ? 'unknown event id'
            : 'events since then are no longer kept';
      return this.requireSync(stream, latest, reason);
    }
    // Page through what was missed, letting a slow client drain between pages.
    stream.cursor = from;
    for (;;) {
      const page = await eventsAfter(this.store.db, teamId, stream.cursor, { userId, limit: REPLAY_PAGE });
      if (page.length > 0) {
        this.writeRaw(stream, page.map(formatEvent).join(''));
        // Events committed after `latest` was read come here and among the held live ones:
        // advancing the cursor past them sends each of them once.
        stream.cursor = page[page.length - 1]!.seq;
      }
      if (page.length < REPLAY_PAGE || stream.res.destroyed) break;
      await this.drained(stream);
    }
    stream.cursor = Math.max(stream.cursor, latest);
  }

  /**
   * Lets the client take what was written: yields to the event loop (so sockets flush even when
   * every query answers at once), then waits while the backlog is over the bound and the client
   * keeps taking data; a client that takes nothing for STALL_MS is dropped.
   */
  private async drained(stream: Stream): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    let flushed = stream.res.socket?.bytesWritten ?? 0;
    let progressAt = Date.now();
    while (!stream.res.destroyed && stream.res.writableLength > this.options.maxBufferBytes) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const now = stream.res.socket?.bytesWritten ?? 0;
      if (now > flushed) {
        flushed = now;
        progressAt = Date.now();
      } else if (Date.now() - progressAt >= STALL_MS) {
        return this.drop(stream);
      }
    }
  }

  /** Tells a client it missed events that can no longer be replayed: it must refetch everything. */
  private requireSync(stream: Stream, latest: number, reason: string): void {
    stream.cursor = Math.max(stream.cursor, latest);
    this.writeRaw(stream, `id: ${latest}\nevent: sync.required\ndata: ${JSON.stringify({ reason })}\n\n`);
  }

  /** Adds the stream to its team's set, creating the set (cursor at the team's latest event) if needed. */
  private async attach(stream: Stream): Promise<void> {
    const { teamId } = stream.caller;
    if (!this.teams.has(teamId)) {
      const { latest } = await eventWindow(this.store.db, teamId);
      // Another stream of the team may have attached meanwhile; from here on nothing awaits,
      // so the set cannot be discarded before the stream is in it.
      if (!this.teams.has(teamId))
        this.teams.set(teamId, { streams: new Set(), cursor: latest, running: false, again: false });
    }
    this.teams.get(teamId)!.streams.add(stream);
  }

  private detach(stream: Stream): void {
    const team = this.teams.get(stream.caller.teamId);
    if (!team) return;
    team.streams.delete(stream);
    if (team.streams.size === 0 && !team.running) this.teams.delete(stream.caller.teamId);
  }

  /** Reads the team's events past its cursor and hands each stream those addressed to it. */
  private async fanOut(teamId: string): Promise<void> {
    const team = this.teams.get(teamId);
    if (!team) return;
    if (team.running) {
      team.again = true;
      return;
    }
    team.running = true;
    try {
      do {
        team.again = false;
        const events = await eventsAfter(this.store.db, teamId, team.cursor, { limit: FAN_OUT_PAGE });
        for (const stream of team.streams) this.send(stream, events);
        if (events.length > 0) team.cursor = events[events.length - 1]!.seq;
        if (events.length === FAN_OUT_PAGE) team.again = true;
      } while (team.again && !this.closed);
    } catch {
      // The database is unavailable; the next wake-up or poll tries again from the same cursor.
    } finally {
      team.running = false;
      if (team.streams.size === 0 && this.teams.get(teamId) === team) this.teams.delete(teamId);
    }
  }

  /**
   * Hands a stream the events addressed to it that it has not had yet, in one write: one chunk
   * per batch keeps a socket's pending output short even for a slow client.
   */
  private send(stream: Stream, events: StoredEvent[]): void {
    if (stream.held) {
      stream.held.push(...events);
      return;
    }
    let text = '';
    for (const event of events) {
      if (event.seq <= stream.cursor) continue;
      if (event.recipients.has(stream.caller.userId)) text += formatEvent(event);
      stream.cursor = event.seq;
    }
    if (text) this.writeRaw(stream, text);
  }

  private writeRaw(stream: Stream, text: string): void {
    if (stream.res.destroyed) return;
    stream.res.write(text);
    // Past the hard bound a stream is cut off at once, however slowly its client still reads,
    // so no stream's memory grows without limit. (Stalls below it: see sweepStalled.)
    if (stream.res.writableLength > hardBound(this.options.maxBufferBytes)) this.drop(stream);
  }

  /**
   * A burst may put a reading client over the bound for a moment; a stream that is over it and
   * whose client took nothing since the last sweep has stopped reading, and is cut off.
   * (Runs every STALL_MS: socket.bytesWritten walks the pending chunks, too slow for every write.)
   */
  private checkBacklog(stream: Stream): void {
    if (stream.res.writableLength <= this.options.maxBufferBytes) {
      stream.flushedAtSweep = null;
      return;
    }
    const flushed = stream.res.socket?.bytesWritten ?? 0;
    if (stream.flushedAtSweep !== null && flushed <= stream.flushedAtSweep) this.drop(stream);
    else stream.flushedAtSweep = flushed;
  }

  /** Cuts a stream off at once (its client stopped reading, or lost its access). */
  private drop(stream: Stream): void {
    this.detach(stream);
    stream.res.destroy();
  }

  private heartbeat(): void {
    for (const team of this.teams.values()) {
      for (const stream of team.streams) this.writeRaw(stream, ': ping\n\n');
    }
  }

  /** Cuts off streams whose client stopped reading, even when no new event would notice. */
  private sweepStalled(): void {
    for (const team of this.teams.values()) for (const stream of team.streams) this.checkBacklog(stream);
  }

  /**
   * Ends the streams whose key was revoked, whose session ended or moved to another team, or
   * whose user left the team.
   */
  private async recheckCredentials(): Promise<void> {
    const streams = [...this.teams.values()].flatMap((team) => [...team.streams]);
    if (streams.length === 0) return;
    const idsOf = (kind: 'key' | 'session') => [
      ...new Set(streams.filter((s) => s.caller.credential.kind === kind).map((s) => s.caller.credential.id)),
    ];
    const keys = new Set<string>();
    const sessions = new Map<string, string>();
    for (const ids of chunks(idsOf('key'))) for (const id of await liveKeyIds(this.store.db, ids)) keys.add(id);
    for (const ids of chunks(idsOf('session'))) {
      for (const [id, teamId] of await liveSessionTeams(this.store.db, ids)) sessions.set(id, teamId);
    }
    for (const stream of streams) {
      const { kind, id } = stream.caller.credential;
      const valid = kind === 'key' ? keys.has(id) : sessions.get(id) === stream.caller.teamId;
      if (!valid) this.end(stream);
    }
  }

  private end(stream: Stream): void {
    this.detach(stream);
    stream.res.end();
  }

  async prune(now = Date.now()): Promise<number> {
    return pruneEvents(this.store.db, now);
  }

  /** Ends every stream (clients reconnect elsewhere and resume) and stops the timers. */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearInterval(timer);
    for (const team of this.teams.values()) for (const stream of team.streams) stream.res.end();
    this.teams.clear();
    await this.bus.close();
  }
}
