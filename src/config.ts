/**
 * The environment, read once at start-up into a frozen, typed object.
 * Nothing else in tasklane reads `process.env`; every bad variable is reported at once.
 */
export interface Config {
  readonly databaseUrl: string;
  readonly port: number;
  readonly host: string;
  /** Requests a minute per API key (or per client address without a valid key); 0 disables limiting. */
  readonly rateLimitPerMinute: number;
  readonly bodyLimitBytes: number;
  /** Connections in the PostgreSQL pool (ignored for SQLite). */
  readonly databasePoolSize: number;
  /** Longest a PostgreSQL statement may run before it is cancelled (ignored for SQLite). */
  readonly databaseStatementTimeoutMs: number;
  /**
   * Which proxies to believe about the client address (X-Forwarded-For), for per-address limits:
   * false (default), true (any), or a comma-separated list of proxy addresses/CIDRs.
   */
  readonly trustProxy: boolean | string;
  /** Seconds between `: ping` comments on event streams (the contract asks for at most 25). */
  readonly eventsHeartbeatSeconds: number;
  /** Unsent bytes an event stream may queue before its client is disconnected. */
  readonly eventsMaxBufferBytes: number;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
}

export const DEFAULT_DATABASE_URL = 'sqlite:./data/tasklane.db';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** Parses the environment; throws a ConfigError listing every problem found. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];

  function integer(name: string, fallback: number, min: number, max: number): number {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return Number(raw);
  }

  const databaseUrl = env.DATABASE_URL || DEFAULT_DATABASE_URL;
  if (!/^(sqlite:|postgres(ql)?:\/\/)/.test(databaseUrl)) {
    problems.push(`DATABASE_URL must start with sqlite: or postgres:// (got "${databaseUrl}")`);
  }

  const logLevel = (env.LOG_LEVEL || 'warn') as Config['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) {
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${logLevel}")`);
  }

  const config: Config = {
    databaseUrl,
    port: integer('PORT', 3000, 0, 65535),
    host: env.HOST || '127.0.0.1',
    rateLimitPerMinute: integer('RATE_LIMIT_PER_MINUTE', 1200, 0, 1_000_000_000),
    bodyLimitBytes: integer('BODY_LIMIT_BYTES', 1_048_576, 1, 1_073_741_824),
    databasePoolSize: integer('DATABASE_POOL_SIZE', 10, 1, 1000),
    databaseStatementTimeoutMs: integer('DATABASE_STATEMENT_TIMEOUT_MS', 10_000, 100, 600_000),
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    eventsHeartbeatSeconds: integer('EVENTS_HEARTBEAT_SECONDS', 20, 1, 25),
    eventsMaxBufferBytes: integer('EVENTS_MAX_BUFFER_BYTES', 1_048_576, 1024, 1_073_741_824),
    logLevel,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}

function parseTrustProxy(raw: string | undefined): boolean | string {
  if (raw === undefined || raw === '' || raw === 'false') return false;
  return raw === 'true' ? true : raw;
}
