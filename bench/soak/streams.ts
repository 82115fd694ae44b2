/**
 * The soak's event streams: N `GET /v1/events` spread over the processes and the users, each
 * starting at the team's event id before the load. Every event of the team reaches every user
 * (team.ts), so a stream must see each id after its start exactly once, in order: one counter
 * per stream tells missed ids (a gap) and duplicates (an id at or below the last one) apart.
 *
 * A stream whose connection drops (its process was killed or stopped) reconnects to a live
 * process with Last-Event-ID set to the last id it saw: at once (the balancer already routes
 * around a dead process), then every 0.5–1 s until a process accepts it.
 */
import { connectEvents, type SseResponse } from '../../test/sse/connection.js';
import { sleep } from '../support.js';
import type { Fleet, Member } from './fleet.js';
import { now, type Ledger } from './ledger.js';
import type { SoakTeam } from './team.js';

export interface StreamState {
  index: number;
  userIndex: number;
  /** The last event id seen (the start id until the first event). */
  last: number;
  missed: number;
  duplicated: number;
  /** sync.required events: the server could not replay (must never happen within retention). */
  syncRequired: number;
  /** Connections that dropped and were opened again. */
  reconnects: number;
  /** Drops at times no fault explains, for the report. */
  drops: { at: number; member: string }[];
  /** The process it is connected to now, if any. */
  member?: string;
}

/** Opening waits this long for response headers. */
const OPEN_TIMEOUT_MS = 15_000;
/** Pause between failed connection attempts (the server sends `retry: 2000`; a little less, with jitter). */
const RECONNECT_MS = 500;

export class Streams {
  readonly states: StreamState[] = [];
  /** The streams open now, so close() can drop them. */
  private readonly responses = new Set<SseResponse>();
  private closing = false;

  constructor(
    private readonly fleet: Fleet,
    private readonly ledger: Ledger,
    private readonly team: SoakTeam,
  ) {}

  /** Opens `count` streams, user by user and process by process; resolves once all are connected. */
  async open(count: number, concurrency = 20): Promise<void> {
    for (let index = 0; index < count; index++) {
      this.states.push({
        index,
        userIndex: index % this.team.users.length,
        last: this.team.baseline,
        missed: 0,
        duplicated: 0,
        syncRequired: 0,
        reconnects: 0,
        drops: [],
      });
    }
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < count) await this.connect(this.states[next++]!);
      }),
    );
  }

  /** Connects (retrying until a process accepts), then keeps the stream going until `close()`. */
  private async connect(state: StreamState): Promise<void> {
    while (!this.closing) {
      const member = this.fleet.pick();
      if (!member) {
        await sleep(100);
        continue;
      }
      if (await this.attempt(state, member)) return;
      await sleep(RECONNECT_MS + Math.random() * RECONNECT_MS);
    }
  }

  /** One connection attempt; true once the 200 arrived (the stream then runs by itself). */
  private attempt(state: StreamState, member: Member): Promise<boolean> {
    const user = this.team.users[state.userIndex]!;
    const sentAt = now();
    const record = (outcome: number | string) =>
      this.ledger.record({ op: 'stream open', member: member.label, expected: 200, outcome, sentAt, doneAt: now() });
    const open = connectEvents(
      member.url,
      { key: user.key, lastEventId: String(state.last), timeoutMs: OPEN_TIMEOUT_MS },
      // Runs as the head arrives, before any event or the end of the stream can.
      (response) => {
        record(response.status);
        if (response.status !== 200) return {}; // its body is read to the end, and the connection closes
        state.member = member.label;
        this.responses.add(response);
        return {
          onEvent: (event) => this.receive(state, event.type, event.id),
          // Ended or cut off: either way the stream reconnects.
          onClose: () => this.dropped(state, response, member),
        };
      },
    );
    return open.then(
      (response) => response.status === 200,
      (error: NodeJS.ErrnoException) => {
        record(`connection error (${error.code ?? error.message})`);
        return false;
      },
    );
  }

  private receive(state: StreamState, type: string, rawId: string | undefined): void {
    const id = Number(rawId);
    if (type === 'sync.required') {
      state.syncRequired++;
      this.ledger.finding(`stream ${state.index} on ${state.member} got sync.required after id ${state.last}`);
      if (Number.isInteger(id) && id > state.last) state.last = id;
      return;
    }
    if (!Number.isInteger(id)) {
      this.ledger.finding(`stream ${state.index} on ${state.member} got ${type} without a numeric id (${rawId})`);
      return;
    }
    if (id <= state.last) state.duplicated++;
    else {
      state.missed += id - state.last - 1;
      state.last = id;
    }
  }

  private dropped(state: StreamState, response: SseResponse, member: Member): void {
    this.responses.delete(response);
    if (this.closing) return;
    state.member = undefined;
    state.reconnects++;
    state.drops.push({ at: now(), member: member.label });
    void this.connect(state);
  }

  /** Resolves once every stream has seen `lastId`, or after `timeoutMs`; returns whether all did. */
  async caughtUp(lastId: number, timeoutMs: number): Promise<boolean> {
    const deadline = now() + timeoutMs;
    while (now() < deadline) {
      if (this.states.every((s) => s.last >= lastId)) return true;
      await sleep(100);
    }
    return this.states.every((s) => s.last >= lastId);
  }

  close(): void {
    this.closing = true;
    for (const response of this.responses) void response.close();
    this.responses.clear();
  }
}
