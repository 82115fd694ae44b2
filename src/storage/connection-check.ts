/**
 * The first contact with the database, before any migration: a PostgreSQL that cannot be reached
 * or refuses us (no such role or database, a wrong password, nothing listening) is reported as
 * what it is, a connection error naming the host, database and user (never the password), rather
 * than as a migration that failed. SQLite has nothing to connect to: the file opened already.
 */
import { sql } from 'kysely';
import pg from 'pg';
import type { Store } from './database.js';

/** The database could not be reached at start; the message names where and says what to do. */
export class DatabaseConnectionError extends Error {}

/** Resolves once the store answers a query; else throws a DatabaseConnectionError saying why. */
export async function checkConnection(store: Store, databaseUrl: string): Promise<void> {
  try {
    await sql`select 1`.execute(store.db);
  } catch (error) {
    if (store.dialect !== 'postgres') throw error;
    throw new DatabaseConnectionError(describeFailure(databaseUrl, error));
  }
}

function describeFailure(databaseUrl: string, error: unknown): string {
  // pg's own reading of the URL, with its defaults (PGUSER, the login name, port 5432), is what it
  // tried; the client is only made to read them, never connected.
  const { host, port, database, user } = new pg.Client({ connectionString: databaseUrl });
  const where = `PostgreSQL at ${host}:${port}, database "${database}", user "${user}"`;
  const { code, message } = error as { code?: unknown; message?: unknown };
  const reason = typeof message === 'string' && message ? message : String(error);
  return `Cannot connect to ${where}: ${reason}.${hintFor(code, reason, { host, port, database, user })}`;
}

/** What to do about the commonest failures, as a sentence after the reason (or nothing). */
function hintFor(
  code: unknown,
  reason: string,
  {
    host,
    port,
    database,
    user,
  }: { host: string; port: number; database: string | undefined; user: string | undefined },
): string {
  if (code === 'ECONNREFUSED') return ` Is PostgreSQL running and listening on ${host}:${port}?`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return ' Check the host name in DATABASE_URL.';
  if (/timeout/i.test(reason)) return ` Nothing answered in time: is ${host}:${port} reachable from here?`;
  // 28000 invalid_authorization_specification: among others, a role that does not exist.
  if (code === '28000' && /role .* does not exist/.test(reason)) {
    return ` Create it as the postgres user: sudo -u postgres createuser ${user}`;
  }
  if (code === '3D000') return ` Create it as the postgres user: sudo -u postgres createdb --owner ${user} ${database}`;
  if (code === '28P01') return ' Check the password in DATABASE_URL.';
  return '';
}
