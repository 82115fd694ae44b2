/**
 * The wake-up signal "team X has new events". It carries no event data: the outbox is the source
 * of truth, so a lost or late signal only delays delivery until the hub's next poll.
 * SQLite runs in one process, so an in-memory emitter is enough; with PostgreSQL every process
 * LISTENs, and a commit on any of them NOTIFYs all.
 */
import { EventEmitter } from 'node:events';
import pg from 'pg';
import { sql } from 'kysely';
import type { Store } from '../storage/database.js';

export interface EventBus {
  /** Tells every process (this one first) that the team has new events. */
  announce(teamId: string): void;
  onAnnounce(listener: (teamId: string) => void): void;
  close(): Promise<void>;
}

const CHANNEL = 'tasklane_events';

export function createEventBus(store: Store, databaseUrl: string): EventBus {
  return store.dialect === 'postgres' ? new PostgresBus(store, databaseUrl) : new LocalBus();
}

/**
 * Wakes the hubs of every server process on a PostgreSQL database (a no-op on SQLite). Sent after
 * commit, outside the transaction: if it fails, the servers still find the events on their next poll.
 */
export async function notifyServers(store: Store, teamId: string): Promise<void> {
  if (store.dialect !== 'postgres') return;
  await sql`select pg_notify(${CHANNEL}, ${teamId})`.execute(store.db).catch(() => {});
}

class LocalBus implements EventBus {
  protected readonly local = new EventEmitter().setMaxListeners(0);
  announce(teamId: string): void {
    this.local.emit('team', teamId);
  }
  onAnnounce(listener: (teamId: string) => void): void {
    this.local.on('team', listener);
  }
  async close(): Promise<void> {
    this.local.removeAllListeners();
  }
}

class PostgresBus extends LocalBus {
  private listener: pg.Client | undefined;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: Store,
    private readonly databaseUrl: string,
  ) {
    super();
    void this.listen();
  }

  override announce(teamId: string): void {
    super.announce(teamId);
    void notifyServers(this.store, teamId);
  }

  /**
   * Keeps one dedicated LISTEN connection open, reconnecting after any failure. The connection is
   * `listener` (which close() ends) from before it starts connecting, so a close() that comes
   * while it is still being opened ends it too, and nothing is left holding the process open.
   */
  private async listen(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.databaseUrl, connectionTimeoutMillis: 3_000 });
    let failed = false;
    // Ends this connection, and opens another in a second unless the bus is closed.
    const reconnect = () => {
      if (failed) return; // 'error' and 'end' both arrive for one failure
      failed = true;
      if (this.listener === client) this.listener = undefined;
      client.end().catch(() => {});
      if (!this.closed) this.retry = setTimeout(() => void this.listen(), 1_000);
    };
    client.on('error', reconnect);
    client.on('end', reconnect);
    client.on('notification', (message) => {
      if (message.payload) this.local.emit('team', message.payload);
    });
    this.listener = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch {
      reconnect();
    }
  }

  override async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => {});
    await super.close();
  }
}
