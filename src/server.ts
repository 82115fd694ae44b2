/**
 * Starting and stopping the service: store → migrations → first-start bootstrap → app → listen.
 * `tasklane serve` and the tests both start tasklane through here.
 */
import type { AddressInfo } from 'node:net';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import type { App } from './http/app-types.js';
import { prepareShutdown } from './http/shutdown.js';
import { applyTimeouts } from './http/timeouts.js';
import { checkConnection } from './storage/connection-check.js';
import { openStore, type Store } from './storage/database.js';
import { migrateToLatest } from './storage/migrate.js';
import { bootstrapIfEmpty, type Bootstrap } from './membership/accounts.service.js';

export interface RunningServer {
  app: App;
  store: Store;
  /** `http://host:port`, with the port actually bound (PORT=0 picks a free one). */
  url: string;
  /** Secrets of the starter team when this start created it, else null. */
  bootstrap: Bootstrap | null;
  /**
   * Stops accepting, ends event streams, finishes requests in flight, then closes the database;
   * past `SHUTDOWN_TIMEOUT_MS` it cuts what is left (http/shutdown.ts).
   */
  close(): Promise<void>;
}

export async function startServer(config: Config): Promise<RunningServer> {
  const store = openStore(config.databaseUrl, {
    poolSize: config.databasePoolSize,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
  });
  let app: App | undefined;
  try {
    await checkConnection(store, config.databaseUrl);
    await migrateToLatest(store);
    app = await buildApp({ store, config });
    applyTimeouts(app.server, config);
    const close = prepareShutdown(app, store, config.shutdownTimeoutMs);
    await app.listen({ port: config.port, host: config.host });
    // Only once listening: a start that cannot listen (a port in use) must not make the starter
    // team's secrets, which it could never print, and the next start would not print either.
    const bootstrap = await bootstrapIfEmpty(store);
    const { port } = app.server.address() as AddressInfo;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    return { app, store, url: `http://${host}:${port}`, bootstrap, close };
  } catch (error) {
    await app?.close();
    await store.close();
    throw error;
  }
}
