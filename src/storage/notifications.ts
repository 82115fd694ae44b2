/**
 * Signals between the processes that share one database: a payload notified on a channel reaches
 * every process listening on it, the sender's included. PostgreSQL: NOTIFY, heard on a dedicated
 * LISTEN connection. SQLite: one server process serves a database file, so there is no other
 * process to reach; nothing is sent and nothing is heard (a `tasklane admin` beside it relies on
 * the server's own polling instead). A signal may be lost (a dropped connection, a restart), so
 * it may only ever hurry up work that also happens without it.
 */
import { sql } from 'kysely';
import pg from 'pg';
import type { Store } from './database.js';

export interface NotificationListener {
  /** Stops listening and ends the connection, also one still being opened. */
  close(): Promise<void>;
}

/** Channel names go into LISTEN as identifiers, which cannot be bound as parameters. */
const CHANNEL_NAME = /^[a-z_][a-z0-9_]*$/;

/** Sends `payload` on `channel` to every process listening on the store's database. */
export async function notifyListeners(store: Pick<Store, 'db' | 'dialect'>, channel: string, payload: string) {
  if (store.dialect !== 'postgres') return;
  await sql`select pg_notify(${channel}, ${payload})`.execute(store.db);
}

/**
 * Calls `onPayload` with each payload notified on `channel` by any process on the database named
 * by `databaseUrl` (the store's), until closed. It keeps listening across outages by reconnecting.
 */
export function listenForNotifications(
  store: Pick<Store, 'dialect'>,
  databaseUrl: string,
  channel: string,
  onPayload: (payload: string) => void,
): NotificationListener {
  if (!CHANNEL_NAME.test(channel)) throw new Error(`not a channel name: ${channel}`);
  if (store.dialect !== 'postgres') return { close: async () => {} };
  return new PostgresListener(databaseUrl, channel, onPayload);
}

class PostgresListener implements NotificationListener {
  private client: pg.Client | undefined;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly databaseUrl: string,
    private readonly channel: string,
    private readonly onPayload: (payload: string) => void,
  ) {
    void this.listen();
  }

  /**
   * Keeps one LISTEN connection open, reconnecting after any failure. The connection is `client`
   * (which close() ends) from before it starts connecting, so a close() that comes while it is
   * still being opened ends it too, and nothing is left holding the process open.
   */
  private async listen(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.databaseUrl, connectionTimeoutMillis: 3_000 });
    let failed = false;
    // Ends this connection, and opens another in a second unless the listener is closed.
    const reconnect = () => {
      if (failed) return; // 'error' and 'end' both arrive for one failure
      failed = true;
      if (this.client === client) this.client = undefined;
      client.end().catch(() => {});
      if (!this.closed) this.retry = setTimeout(() => void this.listen(), 1_000);
    };
    client.on('error', reconnect);
    client.on('end', reconnect);
    client.on('notification', (message) => {
      if (message.payload) this.onPayload(message.payload);
    });
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
    } catch {
      reconnect();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }
}
