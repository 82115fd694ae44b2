/**
 * Recognises failures that mean "the database cannot answer right now" (PostgreSQL gone,
 * restarting, out of connections, a statement timeout; SQLite locked past its busy timeout),
 * so the HTTP layer answers 503 instead of 500 and the pool recovers by itself.
 */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
]);

/**
 * SQLSTATE classes and codes: 08 connection exception, 57P0x shutdown/crash, 53300 too many
 * connections, 57014 statement timeout, 40P01 deadlock, 25P02 a transaction already aborted.
 */
const UNAVAILABLE_SQLSTATES = /^(08...|57P0[1-4]|53300|57014|40P01|25P02)$/;

const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  // pg's own connect timeout (connectionTimeoutMillis of a client), e.g. a server gone silent.
  'timeout expired',
  'Client has encountered a connection error',
  'Query read timeout',
];

export function isDatabaseUnavailable(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATES.test(code)) return true;
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return true;
  }
  return typeof message === 'string' && UNAVAILABLE_MESSAGES.some((m) => message.includes(m));
}

/**
 * Whether a statement failed on a unique constraint (PostgreSQL 23505, SQLite's
 * SQLITE_CONSTRAINT_UNIQUE or _PRIMARYKEY): a row that a check just before found absent was
 * inserted by a concurrent transaction. Callers turn it into the same answer as the check's.
 */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
