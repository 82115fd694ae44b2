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
 * planning for 0.27 ms of execution (BENCHMARKS.md, issue 15).
 *
 * The write path's statements are named too, wherever they were built: inserts, updates,
 * deletes, `WITH` statements and locking reads (`… for update`, `for key share`). Each changes
 * or locks rows found by key, so one plan serves every value, and naming them roughly halved
 * PostgreSQL's CPU per create. Other reads built per call (a page of tasks, a search:
 * task-query.ts) stay unnamed: their best plan depends on their values, so they are planned
 * afresh each time. At most `MAX_STATEMENT_NAMES` texts are named, so a connection holds a
 * bounded set of statements even if some caller's SQL varied without end.
 */
import type { CompiledQuery, Compilable, DialectAdapter } from 'kysely';
import type { Db } from './schema.js';

/** Stands in for the parameter `name` while the query is compiled. */
class Placeholder {
  constructor(readonly name: string) {}
}

export type PreparedQuery<P, R> = (db: Db, params: P) => Promise<R[]>;

/** Server-side statement names by SQL text. */
const statementNames = new Map<string, string>();

/** Bounds what each PostgreSQL connection keeps prepared (a few hundred texts in practice). */
export const MAX_STATEMENT_NAMES = 1_000;

function nameStatement(sql: string): string | undefined {
  if (statementNames.size >= MAX_STATEMENT_NAMES) return undefined;
  const name = `tasklane_${statementNames.size + 1}`;
  statementNames.set(sql, name);
  return name;
}

/** A statement of the write path: a change, or a read that locks what it finds. */
const isWritePath = (sql: string) =>
  /^\s*(insert|update|delete|with)\b/i.test(sql) ||
  (/^\s*\(?select\b/i.test(sql) && /\bfor (update|no key update|share|key share)\b/i.test(sql));

/**
 * The name to prepare `sql` under on the server: a fixed-shape read compiled here, or a statement
 * of the write path; undefined for a read to plan afresh each time.
 */
export function statementName(sql: string): string | undefined {
  return statementNames.get(sql) ?? (isWritePath(sql) ? nameStatement(sql) : undefined);
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
      if (!statementNames.has(query.sql)) nameStatement(query.sql);
    }
    const parameters = query.parameters.map((value) => (value instanceof Placeholder ? params[value.name] : value));
    return (await db.executeQuery<R>({ ...query, parameters })).rows;
  };
}

/**
 * `prepared` in two shapes, chosen per call by `variant`: for a clause only some callers need (a
 * key limited to lists, issue 33, adds one to the task-access rule), each shape compiled once.
 */
export function preparedVariants<P extends Record<string, unknown>, R>(
  build: (db: Db, params: P, variant: boolean) => Compilable<R>,
): (db: Db, params: P, variant: boolean) => Promise<R[]> {
  const plain = prepared<P, R>((db, params) => build(db, params, false));
  const other = prepared<P, R>((db, params) => build(db, params, true));
  return (db, params, variant) => (variant ? other : plain)(db, params);
}
