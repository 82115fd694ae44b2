/**
 * The server's event stream (GET /v1/events, Server-Sent Events with the session cookie).
 * Events carry only an id; each view refetches what it shows. While the browser reconnects by
 * itself it resumes with Last-Event-ID, so nothing is missed. A stream opened afresh starts at
 * "now", so its first `open` is announced as `sync.required`: whatever changed before (while
 * the page was loading or the stream was down) is fetched again.
 */
import { STREAM_EVENT_TYPES, SYNC_REQUIRED, type StreamEventType } from '@contract/enums';

export type LiveEventType = StreamEventType | typeof SYNC_REQUIRED;
const EVENT_TYPES: readonly LiveEventType[] = [...STREAM_EVENT_TYPES, SYNC_REQUIRED];

export interface LiveEvent {
  type: LiveEventType;
  listId?: number;
  taskId?: number;
  /** Of `member.*`: whose membership changed. */
  userId?: string;
}

export type ConnectionState = 'connecting' | 'live' | 'offline';

type Listener<T> = (value: T) => void;

export class LiveEvents {
  private source: EventSource | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private retryDelayMs = 1000;
  private readonly eventListeners = new Set<Listener<LiveEvent>>();
  private readonly stateListeners = new Set<Listener<ConnectionState>>();
  state: ConnectionState = 'connecting';

  /** `stillSignedIn` is asked before a closed stream is opened again. */
  constructor(private readonly stillSignedIn: () => Promise<boolean>) {}

  start(): void {
    this.stop();
    const source = new EventSource('/v1/events');
    this.source = source;
    for (const type of EVENT_TYPES) {
      source.addEventListener(type, (message) => this.emit(parseEvent(type, (message as MessageEvent<string>).data)));
    }
    let opened = false;
    source.onopen = () => {
      this.retryDelayMs = 1000;
      this.setState('live');
      if (!opened) {
        opened = true;
        this.emit({ type: SYNC_REQUIRED });
      }
    };
    source.onerror = () => {
      if (source.readyState !== EventSource.CLOSED) return this.setState('connecting'); // the browser retries
      // Closed for good (an error status such as 401): open a new stream later, if still signed in.
      this.setState('offline');
      this.retryTimer = setTimeout(async () => {
        if (this.source === source && (await this.stillSignedIn())) this.start();
      }, this.retryDelayMs);
      this.retryDelayMs = Math.min(this.retryDelayMs * 2, 30_000);
    };
  }

  stop(): void {
    clearTimeout(this.retryTimer);
    this.source?.close();
    this.source = null;
  }

  onEvent(listener: Listener<LiveEvent>): () => void {
    this.eventListeners.add(listener);
    return () => void this.eventListeners.delete(listener);
  }

  onState(listener: Listener<ConnectionState>): () => void {
    this.stateListeners.add(listener);
    return () => void this.stateListeners.delete(listener);
  }

  private emit(event: LiveEvent): void {
    for (const listener of this.eventListeners) listener(event);
  }

  private setState(state: ConnectionState): void {
    if (this.state === state) return;
    this.state = state;
    for (const listener of this.stateListeners) listener(state);
  }
}

function parseEvent(type: LiveEventType, data: string): LiveEvent {
  try {
    const body = JSON.parse(data) as { listId?: unknown; taskId?: unknown; userId?: unknown };
    return {
      type,
      listId: typeof body.listId === 'number' ? body.listId : undefined,
      taskId: typeof body.taskId === 'number' ? body.taskId : undefined,
      userId: typeof body.userId === 'string' ? body.userId : undefined,
    };
  } catch {
    return { type };
  }
}
