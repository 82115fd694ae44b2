/**
 * A store whose reads from one table wait at a gate the test shuts and opens: a slow query on
 * demand, on either store, for tests that need a wide window in the middle of code that reads
 * the database. Queries are compiled as usual and wait *before* they take a connection, then run
 * on the real store: a held read keeps no connection (SQLite has only one) and, once let through,
 * sees the data as it is then, like a query that waited for a lock.
 */
import {
  AliasNode,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SelectQueryNode,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  TableNode,
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type OperationNode,
} from 'kysely';
import type { Store } from '../src/storage/database.js';
import type { Db } from '../src/storage/schema.js';

/** The table a FROM item names, through an alias (`events as e`) if there is one. */
function tableName(node: OperationNode): string | undefined {
  const table = AliasNode.is(node) ? node.node : node;
  return TableNode.is(table) ? table.table.identifier.name : undefined;
}

export class ReadGate {
  /** Reads held back right now. */
  waiting = 0;
  private shut: { opened: Promise<void>; open: () => void } | null = null;

  constructor(private readonly table: string) {}

  /** From now on, reads from the table wait for `open()`. */
  close(): void {
    if (this.shut) return;
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    this.shut = { opened, open };
  }

  /** Lets every held read (and every later one) through. */
  open(): void {
    this.shut?.open();
    this.shut = null;
  }

  /** Waits while the gate is shut, if the query reads the table. */
  async pass(query: CompiledQuery): Promise<void> {
    const node = query.query;
    if (!this.shut || !SelectQueryNode.is(node) || !node.from?.froms.some((f) => tableName(f) === this.table)) return;
    this.waiting++;
    await this.shut.opened;
    this.waiting--;
  }
}

/** Runs each query on the real store once the gate lets it through; reads only (no transactions). */
class GatedDriver implements Driver {
  constructor(
    private readonly target: Db,
    private readonly gate: ReadGate,
  ) {}
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return {
      executeQuery: async <R>(query: CompiledQuery) => {
        await this.gate.pass(query);
        return this.target.executeQuery<R>(query);
      },
      streamQuery: () => {
        throw new Error('not supported by the gated store');
      },
    };
  }
  async beginTransaction(): Promise<void> {
    throw new Error('the gated store reads only');
  }
  async commitTransaction(): Promise<void> {}
  async rollbackTransaction(): Promise<void> {}
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {}
}

/** `store`, except that its `db` reads `table` only when `gate` lets it. */
export function gatedStore(store: Store, table: string): { store: Store; gate: ReadGate } {
  const gate = new ReadGate(table);
  const sqlite = store.dialect === 'sqlite';
  const db = new Kysely<any>({
    dialect: {
      createAdapter: () => (sqlite ? new SqliteAdapter() : new PostgresAdapter()),
      createQueryCompiler: () => (sqlite ? new SqliteQueryCompiler() : new PostgresQueryCompiler()),
      createIntrospector: (kysely) => (sqlite ? new SqliteIntrospector(kysely) : new PostgresIntrospector(kysely)),
      createDriver: () => new GatedDriver(store.db, gate),
    },
  }) as Db;
  return {
    gate,
    store: {
      db,
      dialect: store.dialect,
      transaction: (work) => store.transaction(work),
      close: async () => {},
    },
  };
}
