/**
 * Queries of a fixed shape, built and compiled by Kysely once and then run with new values.
 *
 * Building and compiling a query costs more CPU than SQLite takes to run a simple one: in a
 * profile of GET /v1/tasks/{id}, Kysely's builder and compiler took about 45% of the request.
 * The hottest queries (authentication, a task's detail) are therefore compiled once per
 * dialect and reused with each request's values.
 *
 * The builder receives placeholders for its parameters, so it must use each only as a whole
 * value (`where(column, '=', params.id)`): never inspect it, and never pass an array to `in`,
 * whose SQL varies with the array's length. A database with plugins compiles afresh every
 * time, since a plugin may rewrite each query it sees.
 *
 * On PostgreSQL these statements are also prepared on the server, once per connection, under
 * the name `statementName` gives their text (database.ts): PostgreSQL then parses each once
 * and, after a few runs, keeps its plan. Planning was most of what a detail cost it: 2.2 ms of
 * planning for 0.27 ms of execution (BENCHMARKS.md, issue 15). Only the reads among these
 * fixed-shape statements are named, so a connection holds a bounded set, and queries whose best
 * plan depends on their values (task-query.ts) are planned afresh each time.
 */
import type { CompiledQuery, Compilable, DialectAdapter } from 'kysely';
import type { Db } from './schema.js';

/** Stands in for the parameter `name` while the query is compiled. */
class Placeholder {
  constructor(readonly name: string) {}
}

export type PreparedQuery<P, R> = (db: Db, params: P) => Promise<R[]>;

/** Server-side statement names by SQL text: one per statement compiled here. */
const statementNames = new Map<string, string>();

/** Reads: planning is what costs there; a write of a fixed shape plans in microseconds. */
const isRead = (sql: string) => /^select\b/i.test(sql);

/** The name to prepare `sql` under on the server, if it is a statement compiled here. */
export function statementName(sql: string): string | undefined {
  return statementNames.get(sql);
}

export function prepared<P extends Record<string, unknown>, R>(
  build: (db: Db, params: P) => Compilable<R>,
): PreparedQuery<P, R> {
  const placeholders = new Proxy({} as P, { get: (_, name) => new Placeholder(String(name)) });
  const compiled = new WeakMap<DialectAdapter, CompiledQuery<R>>();
  return async (db, params) => {
    const executor = db.getExecutor();
    if (executor.plugins.length > 0) return (await db.executeQuery(build(db, params))).rows;
    let query = compiled.get(executor.adapter);
    if (!query) {
      query = build(db, placeholders).compile();
      compiled.set(executor.adapter, query);
      if (isRead(query.sql) && !statementNames.has(query.sql)) {
        statementNames.set(query.sql, `tasklane_${statementNames.size + 1}`);
      }
    }
    const parameters = query.parameters.map((value) => (value instanceof Placeholder ? params[value.name] : value));
    return (await db.executeQuery<R>({ ...query, parameters })).rows;
  };
}
