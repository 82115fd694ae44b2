/**
 * The event hub: holds this process's open SSE streams and feeds each one, in order and once,
 * the outbox events its user is a recipient of.
 *
 * - Live: on a wake-up for a team (or the periodic poll), one query reads the team's new
 *   events with their recipients and fans them out to the team's live streams.
 * - Joining: a new stream first joins its team, where it only collects the team's live events,
 *   while its head is written and, with Last-Event-ID, what it missed is replayed from the
 *   outbox (replay.ts). Only then does it go live and take what it collected, so nothing is
 *   duplicated or reordered. Heartbeats, the stall sweep and closing reach live streams only, and
 *   a credential check only marks a joining stream: nothing reaches a stream before its head.
 *   An id older than retention gets a `sync.required` event instead of a replay.
 * - Safety: every few seconds each stream's key and membership are checked again, and a team's
 *   streams at once when access to it ended (`accessEnded`, called by the bus: changes/bus.ts); a revoked key or a removed member
 *   loses the stream (a joining one as soon as it is set up). A stream whose
 *   unsent output passes a bound (a client that stopped reading) is cut off, so it can neither
 *   slow the others nor grow without limit.
 */
import type { ServerResponse } from 'node:http';
import type { Caller } from '../caller.js';
import { eventsAfter, eventWindow, type StoredEvent } from '../changes/outbox.js';
import { liveKeyIds } from '../keys/keys.repository.js';
import { liveSessionTeams } from '../sessions/sessions.repository.js';
import type { Store } from '../storage/database.js';
import { startStream } from './replay.js';
import { EventStream, STALL_MS } from './stream.js';

export interface HubOptions {
  heartbeatMs: number;
  /** How often streams' keys and memberships are checked again. */
  recheckMs: number;
  /** Safety net for missed wake-ups (another process's NOTIFY lost, say). */
  pollMs: number;
  /** Unsent bytes a stream may queue before it is disconnected. */
  maxBufferBytes: number;
}

/** Events read per query when fanning out. */
const FAN_OUT_PAGE = 1_000;

export const DEFAULT_HUB_OPTIONS: HubOptions = {
  heartbeatMs: 20_000,
  recheckMs: 5_000,
  pollMs: 2_000,
  maxBufferBytes: 1024 * 1024,
};

/** A stream being set up: it collects live events aside until its head and replay are written. */
interface Joining {
  held: StoredEvent[];
  /** Its credential was found revoked meanwhile: it ends instead of going live. */
  lostAccess: boolean;
}

interface TeamStreams {
  /** Streams whose head and replay are written: the only ones anything writes to. */
  live: Set<EventStream>;
  joining: Map<EventStream, Joining>;
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

export class EventHub {
  private readonly teams = new Map<string, TeamStreams>();
  private readonly timers: NodeJS.Timeout[] = [];
  private closed = false;

  /** Feeds streams on its own polls; the bus (changes/bus.ts) calls `changed` and `accessEnded` to hurry it. */
  constructor(
    private readonly store: Store,
    private readonly options: HubOptions = DEFAULT_HUB_OPTIONS,
  ) {
    const every = (ms: number, task: () => unknown) => {
      const timer = setInterval(() => void Promise.resolve(task()).catch(() => {}), ms);
      timer.unref();
      this.timers.push(timer);
    };
    every(options.heartbeatMs, () => this.eachLive((stream) => stream.write(': ping\n\n')));
    // Cuts off streams whose client stopped reading, even when no new event would notice.
    every(STALL_MS, () => this.eachLive((stream) => stream.checkBacklog()));
    every(options.recheckMs, () => this.recheckCredentials());
    every(options.pollMs, () => Promise.all([...this.teams.keys()].map((teamId) => this.fanOut(teamId))));
  }

  /** The team has new events (committed by any process): feeds them to its streams here now. */
  changed(teamId: string): void {
    void this.fanOut(teamId);
  }

  /** Someone's access to the team ended: checks its streams' credentials now. */
  accessEnded(teamId: string): void {
    void this.recheckCredentials(teamId).catch(() => {});
  }

  /** Open streams on this process, live or being set up. */
  get size(): number {
    let count = 0;
    for (const team of this.teams.values()) count += team.live.size + team.joining.size;
    return count;
  }

  /** Serves one SSE stream on `res` until the client leaves, loses access, or the hub closes. */
  async open(caller: Caller, lastEventId: string | undefined, res: ServerResponse): Promise<void> {
    const stream = new EventStream(caller, res, this.options.maxBufferBytes);
    // Listen first: a client may leave while the stream is still being set up.
    res.on('close', () => this.forget(stream));
    try {
      await this.join(stream);
      if (!stream.gone) await startStream(this.store.db, stream, lastEventId, () => this.settingUpStops(stream));
    } catch {
      stream.drop(); // the database failed during set-up: the client reconnects and resumes
    }
    this.goLive(stream);
  }

  /**
   * Puts the stream among its team's joining streams, creating the team's entry (its fan-out
   * cursor at the team's latest event) if needed. From here on the stream collects every event
   * past that cursor, so whatever its replay does not cover reaches it through fan-out.
   */
  private async join(stream: EventStream): Promise<void> {
    const { teamId } = stream.caller;
    const latest = this.teams.has(teamId) ? null : (await eventWindow(this.store.db, teamId)).latest;
    // A client that left meanwhile has had its 'close' already; after close() nothing joins.
    if (this.closed || stream.gone) return;
    // Another stream of the team may have joined meanwhile; from here on nothing awaits, so the
    // entry cannot be discarded before the stream is in it.
    if (!this.teams.has(teamId)) {
      this.teams.set(teamId, { live: new Set(), joining: new Map(), cursor: latest!, running: false, again: false });
    }
    this.teams.get(teamId)!.joining.set(stream, { held: [], lostAccess: false });
  }

  /** Whether a stream being set up will end instead of going live. */
  private settingUpStops(stream: EventStream): boolean {
    return this.closed || stream.gone || this.teams.get(stream.caller.teamId)?.joining.get(stream)?.lostAccess === true;
  }

  /**
   * Moves a stream whose head and replay are written from joining to live, handing it the
   * events it collected meanwhile; one that will not go live is ended instead (its head is out,
   * so an EventSource reconnects and resumes), or forgotten if it is already gone.
   */
  private goLive(stream: EventStream): void {
    const team = this.teams.get(stream.caller.teamId);
    const joining = team?.joining.get(stream);
    team?.joining.delete(stream);
    if (!team || !joining || joining.lostAccess || this.closed || stream.gone) {
      stream.end();
      return this.forget(stream);
    }
    stream.send(joining.held);
    team.live.add(stream);
  }

  private forget(stream: EventStream): void {
    const team = this.teams.get(stream.caller.teamId);
    if (!team) return;
    team.live.delete(stream);
    team.joining.delete(stream);
    if (team.live.size + team.joining.size === 0 && !team.running) this.teams.delete(stream.caller.teamId);
  }

  private eachLive(action: (stream: EventStream) => void): void {
    for (const team of this.teams.values()) for (const stream of team.live) action(stream);
  }

  /** Reads the team's events past its cursor: live streams take theirs, joining ones collect them. */
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
        for (const stream of team.live) stream.send(events);
        for (const joining of team.joining.values()) joining.held.push(...events);
        if (events.length > 0) team.cursor = events[events.length - 1]!.seq;
        if (events.length === FAN_OUT_PAGE) team.again = true;
      } while (team.again && !this.closed);
    } catch {
      // The database is unavailable; the next wake-up or poll tries again from the same cursor.
    } finally {
      team.running = false;
      if (team.live.size + team.joining.size === 0 && this.teams.get(teamId) === team) this.teams.delete(teamId);
    }
  }

  /**
   * Ends the streams (of one team, or of all) whose key was revoked, whose session ended or moved
   * to another team, or whose user left the team. A stream still being set up is marked, and ends
   * once its head is out.
   */
  private async recheckCredentials(teamId?: string): Promise<void> {
    const teams =
      teamId === undefined ? [...this.teams.values()] : [this.teams.get(teamId)].filter((t) => t !== undefined);
    const streams = teams.flatMap((team) => [...team.live, ...team.joining.keys()]);
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
      if (!valid) this.loseAccess(stream);
    }
  }

  /** Ends a live stream at once; marks a joining one (it may have gone live during the check). */
  private loseAccess(stream: EventStream): void {
    const team = this.teams.get(stream.caller.teamId);
    const joining = team?.joining.get(stream);
    if (joining) {
      joining.lostAccess = true;
    } else if (team?.live.has(stream)) {
      this.forget(stream);
      stream.end();
    }
  }

  /**
   * Ends every live stream (clients reconnect elsewhere and resume) and stops the timers. Streams
   * still being set up end by themselves, after their head, once their current step (a query, or
   * a slow client's drain) is done.
   */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearInterval(timer);
    this.eachLive((stream) => stream.end());
    this.teams.clear();
  }
}
