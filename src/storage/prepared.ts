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
 */
import type { CompiledQuery, Compilable, DialectAdapter } from 'kysely';
import type { Db } from './schema.js';

/** Stands in for the parameter `name` while the query is compiled. */
class Placeholder {
  constructor(readonly name: string) {}
}

export type PreparedQuery<P, R> = (db: Db, params: P) => Promise<R[]>;

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
    }
    const parameters = query.parameters.map((value) => (value instanceof Placeholder ? params[value.name] : value));
    return (await db.executeQuery<R>({ ...query, parameters })).rows;
  };
}
