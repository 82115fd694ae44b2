/**
 * The environment, read once at start-up into a frozen, typed object.
 * Nothing else in tasklane reads `process.env`; every bad variable is reported at once.
 */
import { isIP } from 'node:net';
import { parseS3Url } from './s3-config.js';

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
   * Which proxies to believe about the client address and scheme (X-Forwarded-For/-Proto), for
   * per-address limits and Secure cookies: false (default), the number of proxies in front, or
   * their addresses/CIDRs. Never "any": then a client could name its own address.
   */
  readonly trustProxy: false | number | readonly string[];
  /** Seconds between `: ping` comments on event streams (the contract asks for at most 25). */
  readonly eventsHeartbeatSeconds: number;
  /** Unsent bytes an event stream may queue before its client is disconnected. */
  readonly eventsMaxBufferBytes: number;
  /** Event streams one API key or web session may hold open on this process. */
  readonly eventsMaxStreamsPerCredential: number;
  /** Event streams this process holds open in all (each holds a socket and some memory). */
  readonly eventsMaxStreams: number;
  /** Browser origins (exact `scheme://host[:port]`) allowed to call the API cross-origin; empty = CORS closed. */
  readonly corsOrigins: readonly string[];
  /** Longest a client may take to send a request's headers. */
  readonly headersTimeoutMs: number;
  /** Longest a client may take to send a whole request (headers and body). */
  readonly requestTimeoutMs: number;
  /** Longest a connection may see no traffic at all while a request is open (longer than the events heartbeat). */
  readonly connectionTimeoutMs: number;
  /** Longest an idle keep-alive connection stays open between requests. */
  readonly keepAliveTimeoutMs: number;
  /** Longest a shutdown waits for requests in flight before it closes their connections and exits. */
  readonly shutdownTimeoutMs: number;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /**
   * The address people open tasklane at (`https://tasks.example.com`, perhaps with a path), for
   * the links it hands out (invitations); null: a link takes the origin of the request that made it.
   */
  readonly publicUrl: string | null;
  /** Outgoing webhooks (WEBHOOK_*). */
  readonly webhooks: WebhookConfig;
  /** Notification email (SMTP_URL, MAIL_*). */
  readonly mail: MailConfig;
  readonly jobs: JobsConfig;
  /** Files on tasks (ATTACHMENTS_*, issue 31). */
  readonly attachments: AttachmentsConfig;
  /** Shifts the clock of time-based work (clock.ts); 0 but in tests. */
  readonly clockOffsetMs: number;
}

/** Attachments (issue 31): where files are kept, and how large they may be. */
export interface AttachmentsConfig {
  /**
   * `ATTACHMENTS_DIR`: the disk store's folder; null: the default, `attachments` beside the SQLite
   * database file, or `./data/attachments` (from the working directory) on PostgreSQL
   * (attachments/storage/index.ts).
   */
  readonly dir: string | null;
  /** `ATTACHMENTS_S3_URL`: an S3-compatible bucket instead of the disk (read as a plain string for now). */
  readonly s3Url: string | null;
  readonly maxFileBytes: number;
  readonly teamQuotaBytes: number;
  /** How old a stored file no row names must be before the reconciliation deletes it. */
  readonly orphanGraceSeconds: number;
  /** How long an upload's body may take to arrive, once its caller may make it (http/body-deadline.ts). */
  readonly uploadTimeoutMs: number;
}

/** How this process sends notification email; null transport: email is off. Durations in milliseconds. */
/** The scheduled jobs (due-date reminders): whether this process runs them, and how often it looks. */
export interface JobsConfig {
  readonly run: boolean;
  readonly pollMs: number;
  /** How long a claim holds: a process that dies holding jobs delays them by this much. */
  readonly leaseMs: number;
}

export interface MailConfig {
  /** `SMTP_URL`: `smtp://` or `smtps://`, with credentials and options as nodemailer reads them; null: email is off. */
  readonly smtpUrl: string | null;
  /** `MAIL_FROM`: the sender, as `Name <address>` or a bare address. */
  readonly from: string | null;
  /** What happens to a person within this window after the first item arrives as one mail. */
  readonly batchMs: number;
  /** Whether this process sends (`MAIL_DELIVERY=off`: other processes do). */
  readonly deliver: boolean;
  /** The first retry's delay; each next one doubles, up to `retryMaxDelayMs`. */
  readonly retryFirstDelayMs: number;
  readonly retryMaxDelayMs: number;
  /** How long after its first attempt a mail is still retried; then it is failed, and `admin mail status` shows it. */
  readonly retryForMs: number;
  /** How often a sending process looks for due mail it was not told about. */
  readonly pollMs: number;
}

/** How this process sends webhooks; every duration in milliseconds. */
export interface WebhookConfig {
  /** Whether this process sends deliveries (`WEBHOOK_DELIVERY=off`: other processes do). */
  readonly deliver: boolean;
  /**
   * The 32-byte key that seals webhook secrets at rest; null: webhooks cannot be created. Unset on
   * SQLite, `tasklane serve` fills it from the key file beside the database (webhooks/secret-key-file.ts).
   */
  readonly secretKey: Buffer | null;
  /** `WEBHOOK_SECRET_KEY=off`: the operator turned webhooks off (and wants no key file made). */
  readonly switchedOff: boolean;
  /** Hosts (as written in URLs, lower case) that may use http and resolve to private addresses. */
  readonly allowHosts: readonly string[];
  readonly timeoutMs: number;
  /** The first retry's delay; each next one doubles, up to `retryMaxDelayMs`, with jitter. */
  readonly retryFirstDelayMs: number;
  readonly retryMaxDelayMs: number;
  /** How long after its first attempt a delivery is still retried. */
  readonly retryForMs: number;
  /** An endpoint failing without a success for this long is disabled. */
  readonly disableAfterMs: number;
  /** Attempts in flight at once to one endpoint, across processes. */
  readonly maxInFlightPerEndpoint: number;
  /** Attempts in flight at once in this process, all endpoints together. */
  readonly concurrency: number;
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

  function signedInteger(name: string, fallback: number, min: number, max: number): number {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (!/^-?\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return Number(raw);
  }

  function onOff(name: string, fallback: boolean): boolean {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (raw !== 'on' && raw !== 'off') problems.push(`${name} must be on or off (got "${raw}")`);
    return raw === 'on';
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
    trustProxy: parseTrustProxy(env.TRUST_PROXY, problems),
    eventsHeartbeatSeconds: integer('EVENTS_HEARTBEAT_SECONDS', 20, 1, 25),
    eventsMaxBufferBytes: integer('EVENTS_MAX_BUFFER_BYTES', 1_048_576, 1024, 1_073_741_824),
    eventsMaxStreamsPerCredential: integer('EVENTS_MAX_STREAMS_PER_CREDENTIAL', 100, 1, 1_000_000),
    eventsMaxStreams: integer('EVENTS_MAX_STREAMS', 10_000, 1, 1_000_000),
    corsOrigins: parseCorsOrigins(env.CORS_ORIGINS, problems),
    publicUrl: parsePublicUrl(env.PUBLIC_URL, problems),
    headersTimeoutMs: integer('HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
    requestTimeoutMs: integer('REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000),
    connectionTimeoutMs: integer('CONNECTION_TIMEOUT_MS', 60_000, 100, 3_600_000),
    keepAliveTimeoutMs: integer('KEEP_ALIVE_TIMEOUT_MS', 72_000, 100, 3_600_000),
    shutdownTimeoutMs: integer('SHUTDOWN_TIMEOUT_MS', 8_000, 100, 600_000),
    logLevel,
    webhooks: Object.freeze({
      deliver: onOff('WEBHOOK_DELIVERY', true),
      secretKey: env.WEBHOOK_SECRET_KEY?.trim() === 'off' ? null : parseSecretKey(env.WEBHOOK_SECRET_KEY, problems),
      switchedOff: env.WEBHOOK_SECRET_KEY?.trim() === 'off',
      allowHosts: parseAllowHosts(env.WEBHOOK_ALLOW_HOSTS),
      timeoutMs: integer('WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
      retryFirstDelayMs: integer('WEBHOOK_RETRY_FIRST_DELAY_MS', 30_000, 1, DAY),
      retryMaxDelayMs: integer('WEBHOOK_RETRY_MAX_DELAY_MS', 12 * HOUR, 1, 7 * DAY),
      retryForMs: integer('WEBHOOK_RETRY_FOR_MS', 3 * DAY, 0, 30 * DAY),
      disableAfterMs: integer('WEBHOOK_DISABLE_AFTER_MS', 5 * DAY, 1, 60 * DAY),
      maxInFlightPerEndpoint: integer('WEBHOOK_MAX_IN_FLIGHT', 1, 1, 100),
      concurrency: integer('WEBHOOK_CONCURRENCY', 64, 1, 10_000),
    }),
    mail: Object.freeze({
      smtpUrl: parseSmtpUrl(env.SMTP_URL, problems),
      from: env.MAIL_FROM?.trim() || null,
      batchMs: integer('MAIL_BATCH_SECONDS', 300, 0, 86_400) * 1000,
      deliver: onOff('MAIL_DELIVERY', true),
      retryFirstDelayMs: integer('MAIL_RETRY_FIRST_DELAY_MS', 60_000, 1, DAY),
      retryMaxDelayMs: integer('MAIL_RETRY_MAX_DELAY_MS', HOUR, 1, DAY),
      retryForMs: integer('MAIL_RETRY_FOR_MS', 2 * DAY, 0, 30 * DAY),
      pollMs: integer('MAIL_POLL_MS', 30_000, 10, HOUR),
    }),
    jobs: Object.freeze({
      run: onOff('SCHEDULED_JOBS', true),
      pollMs: integer('JOBS_POLL_MS', 30_000, 10, HOUR),
      leaseMs: integer('JOBS_LEASE_SECONDS', 60, 1, 3600) * 1000,
    }),
    attachments: Object.freeze({
      dir: env.ATTACHMENTS_DIR?.trim() || null,
      // Checked here (its problems reported with the rest); attachments/storage/ builds the store from it.
      s3Url: parseS3Url(env.ATTACHMENTS_S3_URL, problems) ? env.ATTACHMENTS_S3_URL!.trim() : null,
      maxFileBytes: integer('ATTACHMENTS_MAX_FILE_BYTES', 25 * 1024 * 1024, 1, Number.MAX_SAFE_INTEGER),
      teamQuotaBytes: integer('ATTACHMENTS_TEAM_QUOTA_BYTES', 10 * 1024 ** 3, 0, Number.MAX_SAFE_INTEGER),
      orphanGraceSeconds: integer('ATTACHMENTS_ORPHAN_GRACE_SECONDS', 3600, 0, 365 * 86_400),
      // Shorter than the orphan grace (1 h), so an upload still arriving is never taken for an orphan.
      uploadTimeoutMs: integer('ATTACHMENTS_UPLOAD_TIMEOUT_MS', 30 * 60 * 1000, 100, 24 * HOUR),
    }),
    clockOffsetMs: signedInteger('TASKLANE_CLOCK_OFFSET_MS', 0, -100 * 365 * DAY, 100 * 365 * DAY),
  };
  checkTimeouts(config, problems);
  if ((config.mail.smtpUrl === null) !== (config.mail.from === null)) {
    problems.push('SMTP_URL and MAIL_FROM go together: set both to send notification email, or neither');
  }
  if (config.mail.smtpUrl !== null && config.publicUrl === null) {
    // A mail's links (the task, the settings, unsubscribing) must work from outside the server.
    problems.push('PUBLIC_URL must be set to send notification email: its links point there');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

/** `WEBHOOK_SECRET_KEY`: 32 random bytes in base64 (`openssl rand -base64 32`), or `off`. */
function parseSecretKey(raw: string | undefined, problems: string[]): Buffer | null {
  if (raw === undefined || raw.trim() === '') return null;
  const key = Buffer.from(raw.trim(), 'base64');
  if (key.length !== 32 || !/^[A-Za-z0-9+/]+={0,2}$/.test(raw.trim())) {
    problems.push('WEBHOOK_SECRET_KEY must be 32 bytes in base64, as `openssl rand -base64 32` prints (or off)');
    return null;
  }
  return key;
}

/** `value` as a URL, or undefined when it is none. */
function parseUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

/** `SMTP_URL`: smtp:// or smtps:// with a host; unset or empty: email is off. */
function parseSmtpUrl(raw: string | undefined, problems: string[]): string | null {
  const value = raw?.trim();
  if (!value) return null;
  const url = parseUrl(value);
  if (!url || (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || !url.hostname) {
    // Never echo the value: it may hold the SMTP password.
    problems.push(
      'SMTP_URL must be an smtp:// or smtps:// URL with a host, such as smtps://user:password@mail.example.com',
    );
    return null;
  }
  return value;
}

/** `WEBHOOK_ALLOW_HOSTS`: comma-separated host names or IP addresses (IPv6 with or without brackets). */
function parseAllowHosts(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((host) =>
      host
        .trim()
        .toLowerCase()
        .replace(/^\[(.*)\]$/, '$1'),
    )
    .filter(Boolean);
}

/** proxy-addr's names for whole address ranges, accepted beside addresses and CIDRs. */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/**
 * `TRUST_PROXY`: unset or `false`; a hop count (`1`: believe the last X-Forwarded-For entry,
 * which the one proxy in front appended); or the proxies' addresses (`127.0.0.1,10.0.0.0/8`).
 * `true` is refused: trusting every hop makes the client's own, left-most entry its address.
 */
function parseTrustProxy(raw: string | undefined, problems: string[]): Config['trustProxy'] {
  if (raw === undefined || raw.trim() === '' || raw === 'false') return false;
  if (raw === 'true') {
    problems.push(
      'TRUST_PROXY=true would let any client choose its own address with X-Forwarded-For; set the number of ' +
        'proxies in front of tasklane (TRUST_PROXY=1) or their addresses (TRUST_PROXY=127.0.0.1,10.0.0.0/8)',
    );
    return false;
  }
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops < 1 || hops > 10) problems.push(`TRUST_PROXY as a number of proxies must be from 1 to 10 (got "${raw}")`);
    return hops;
  }
  const entries = raw.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    if (!isAddressOrRange(entry)) {
      problems.push(
        `TRUST_PROXY must be a number of proxies or a comma-separated list of proxy addresses or CIDRs (got "${entry}")`,
      );
    }
  }
  return entries;
}

function isAddressOrRange(entry: string): boolean {
  if (PROXY_RANGE_NAMES.includes(entry)) return true;
  const [address = '', bits, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (version === 4 ? 32 : 128);
}

/** `CORS_ORIGINS`: comma-separated exact origins such as `https://app.example.com`; no wildcards. */
function parseCorsOrigins(raw: string | undefined, problems: string[]): string[] {
  const origins = (raw ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  for (const origin of origins) {
    let normalised: string | undefined;
    try {
      normalised = new URL(origin).origin;
    } catch {
      normalised = undefined;
    }
    // Exact scheme://host[:port] as browsers send it: lower case, no path, no wildcard.
    const exact = /^https?:\/\/(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d+)?$/.test(origin);
    if (normalised !== origin || !exact) {
      problems.push(`CORS_ORIGINS must list exact origins such as https://app.example.com (got "${origin}")`);
    }
  }
  return origins;
}

/** `PUBLIC_URL`: an http(s) URL without query or fragment; kept without its trailing slash. */
function parsePublicUrl(raw: string | undefined, problems: string[]): string | null {
  const value = raw?.trim();
  if (!value) return null;
  const url = parseUrl(value);
  if (!url || !/^https?:$/.test(url.protocol) || url.search || url.hash || url.username || url.password) {
    problems.push(`PUBLIC_URL must be an http or https URL such as https://tasks.example.com (got "${value}")`);
    return null;
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

/** Timeouts that contradict each other would cut requests or event streams the server meant to keep. */
function checkTimeouts(config: Config, problems: string[]): void {
  if (config.headersTimeoutMs > config.requestTimeoutMs) {
    problems.push('HEADERS_TIMEOUT_MS must not be longer than REQUEST_TIMEOUT_MS');
  }
  if (config.attachments.uploadTimeoutMs < config.requestTimeoutMs) {
    problems.push('ATTACHMENTS_UPLOAD_TIMEOUT_MS must not be shorter than REQUEST_TIMEOUT_MS');
  }
  if (config.connectionTimeoutMs <= config.eventsHeartbeatSeconds * 1000) {
    // An event stream is quiet between heartbeats; a shorter idle timeout would cut every stream.
    problems.push('CONNECTION_TIMEOUT_MS must be longer than EVENTS_HEARTBEAT_SECONDS');
  }
}
