/**
 * The real app with every SQL statement it sends recorded: a Kysely plugin on its store sees each
 * query as it is compiled. For tests of what a request, or an idle server, costs in statements.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  UnknownRow,
} from 'kysely';
import BetterSqlite3 from 'better-sqlite3';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openStore, type Store } from '../src/storage/database.js';
import { migrateToLatest } from '../src/storage/migrate.js';
import { Client, TEST_WEBHOOK_ENV } from './harness.js';

export interface Statement {
  /** Kysely's node kind: SelectQueryNode, InsertQueryNode, … */
  kind: string;
  /** The tables it names, sorted. */
  tables: string[];
  /** Sent while answering a request, rather than by a background job (the webhook worker, housekeeping). */
  inRequest: boolean;
  /** For raw SQL (Kysely's `sql` template, a RawNode): its text, with `?` where a value or fragment goes. */
  text?: string;
}

function tablesIn(node: unknown, found = new Set<string>()): Set<string> {
  if (node && typeof node === 'object') {
    const table = node as { kind?: string; table?: { identifier?: { name?: string } } };
    if (table.kind === 'TableNode' && table.table?.identifier?.name) found.add(table.table.identifier.name);
    for (const child of Object.values(node)) tablesIn(child, found);
  }
  return found;
}

/**
 * Records every statement sent through the store it is plugged into, marking those sent while
 * answering a request (the plugin sees each query in the asynchronous context of the code that
 * sent it): a background job's statements run in no request's context, whenever they happen.
 */
export class StatementLog implements KyselyPlugin {
  readonly statements: Statement[] = [];
  private readonly request = new AsyncLocalStorage<true>();

  /** Marks everything `server` does for each request it receives, from the moment it arrives. */
  watch(server: Server): void {
    // Listeners run in order in one synchronous call: the app's own handler, after this one, and
    // all the work it starts, run inside the context entered here.
    server.prependListener('request', () => this.request.enterWith(true));
  }

  transformQuery({ node }: PluginTransformQueryArgs) {
    this.statements.push({
      kind: node.kind,
      tables: [...tablesIn(node)].sort(),
      inRequest: this.request.getStore() === true,
      ...(node.kind === 'RawNode' && { text: (node as unknown as { sqlFragments: string[] }).sqlFragments.join('?') }),
    });
    return node;
  }

  /** What requests sent while `work` ran (a background job's statements left out, whenever it ran). */
  async requestsDuring<T>(work: () => Promise<T>): Promise<{ result: T; statements: Statement[] }> {
    const start = this.statements.length;
    const result = await work();
    return { result, statements: this.statements.slice(start).filter((s) => s.inRequest) };
  }

  async transformResult({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return result;
  }
}

export interface CountedApp {
  log: StatementLog;
  /** The app's store without the log: for a test's own setup, which is not counted. */
  store: Store;
  client(key?: string): Client;
  close(): Promise<void>;
}

/** The real app on its own port over `databaseUrl` (migrated here), with every statement it sends recorded. */
export async function startCountedApp(databaseUrl: string, env: Record<string, string> = {}): Promise<CountedApp> {
  const store = openStore(databaseUrl, { poolSize: 2 });
  await migrateToLatest(store);
  const log = new StatementLog();
  const counted: Store = { ...store, db: store.db.withPlugin(log) };
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    PORT: '0',
    HOST: '127.0.0.1',
    RATE_LIMIT_PER_MINUTE: '0',
    LOG_LEVEL: 'error',
    ...TEST_WEBHOOK_ENV,
    ...env,
  });
  const app = await buildApp({ store: counted, config });
  log.watch(app.server);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return {
    log,
    store,
    client: (key?: string) => new Client(url, key),
    close: async () => {
      await app.close();
      await store.close();
    },
  };
}

/**
 * The text of every statement better-sqlite3 runs in this process from now until `stop`,
 * transactions included: a plugin on a store's `db` does not see those, which run on the store's
 * own Kysely (database.ts).
 */
export function sqliteStatements(): { texts: string[]; stop(): void } {
  const probe = new BetterSqlite3(':memory:');
  const statement = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, unknown>;
  probe.close();
  const texts: string[] = [];
  const originals = (['all', 'get', 'run', 'iterate'] as const).map((name) => [name, statement[name]] as const);
  for (const [name, original] of originals) {
    statement[name] = function (this: BetterSqlite3.Statement, ...args: unknown[]) {
      texts.push(this.source);
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    };
  }
  return {
    texts,
    stop: () => {
      for (const [name, original] of originals) statement[name] = original;
    },
  };
}
