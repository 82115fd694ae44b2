/**
 * Test harness: starts the real server on a fresh temporary database and speaks HTTP to it.
 * Every response is checked for 5xx (a 5xx is always a bug), and failing assertions print
 * the whole response.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ConfigError, loadConfig, type Config } from '../src/config.js';
import { startServer, type RunningServer } from '../src/server.js';

export interface TestServer extends RunningServer {
  /** A client that sends this API key (or none). */
  client(key?: string): Client;
  /** Where this server keeps attachments' files (ATTACHMENTS_DIR). */
  attachmentsDir: string;
}

export interface TempDatabase {
  url: string;
  remove(): Promise<void>;
}

/**
 * The store this run of the suite targets: SQLite unless TASKLANE_TEST_STORE=postgres, in which
 * case TEST_DATABASE_URL names a PostgreSQL server to create throwaway databases on.
 */
export const TEST_STORE: 'sqlite' | 'postgres' = process.env.TASKLANE_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';

/** A fresh, empty database of the store under test: a file in a temp folder, or a new PostgreSQL database. */
export async function tempDatabase(): Promise<TempDatabase> {
  if (TEST_STORE === 'postgres') return tempPostgresDatabase();
  const dir = mkdtempSync(join(tmpdir(), 'tasklane-test-'));
  return {
    url: `sqlite:${join(dir, 'tasklane.db')}`,
    remove: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

async function tempPostgresDatabase(): Promise<TempDatabase> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) throw new Error('TASKLANE_TEST_STORE=postgres needs TEST_DATABASE_URL');
  return createPostgresDatabase(serverUrl, `tasklane_test_${randomBytes(6).toString('hex')}`);
}

/** Runs one statement on the PostgreSQL server itself (databases cannot be made from inside one). */
async function onServer(serverUrl: string, statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}

/** Creates an empty database `name` on the server of `serverUrl`; `remove()` drops it. */
export async function createPostgresDatabase(serverUrl: string, name: string): Promise<TempDatabase> {
  await onServer(serverUrl, `CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), remove: () => onServer(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/**
 * Webhooks in test servers: a fixed sealing key, loopback receivers allowed, and no delivery
 * unless a suite turns it on (WEBHOOK_DELIVERY=on, test/webhooks/support.ts): a worker writing
 * in the background would make "a refused request changed nothing" checks flaky.
 */
export const TEST_WEBHOOK_ENV = {
  WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
  WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
  WEBHOOK_DELIVERY: 'off',
} as const;

/**
 * Starts tasklane on port 0 with a temporary database; `env` overrides the environment.
 * With `env.DATABASE_URL` it uses that database instead, and leaves it in place on close.
 */
export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const database = env.DATABASE_URL ? undefined : await tempDatabase();
  // Each server its own attachments folder (on PostgreSQL the default would be shared: ./data/attachments).
  const attachmentsDir = env.ATTACHMENTS_DIR ? undefined : mkdtempSync(join(tmpdir(), 'tasklane-files-'));
  const config: Config = loadConfig({
    ...(attachmentsDir ? { ATTACHMENTS_DIR: attachmentsDir } : {}),
    DATABASE_URL: database?.url ?? env.DATABASE_URL,
    PORT: '0',
    HOST: '127.0.0.1',
    RATE_LIMIT_PER_MINUTE: '0',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error', // a 5xx prints its cause
    ...TEST_WEBHOOK_ENV,
    // No reminder fires in the background unless a suite turns the scheduled jobs on
    // (test/reminders/): a test that sets a due date of today must not be notified at 09:00 UTC.
    SCHEDULED_JOBS: 'off',
    ...env,
  });
  const server = await startServer(config);
  return {
    ...server,
    client: (key?: string) => new Client(server.url, key),
    attachmentsDir: attachmentsDir ?? env.ATTACHMENTS_DIR!,
    close: async () => {
      await server.close();
      await database?.remove();
      if (attachmentsDir) rmSync(attachmentsDir, { recursive: true, force: true });
    },
  };
}

export interface Response<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** Renders a response for assertion messages. */
export function show(response: Response): string {
  return `${response.status} ${response.text}`;
}

export class Client {
  constructor(
    readonly baseUrl: string,
    readonly key?: string,
  ) {}

  async request<T = any>(
    method: string,
    path: string,
    options: { body?: unknown; rawBody?: string | Buffer; headers?: Record<string, string> } = {},
  ): Promise<Response<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (this.key !== undefined) headers['x-api-key'] = this.key;
    let body: string | Buffer | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(this.baseUrl + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    const response = { status: res.status, headers: res.headers, body: parsed as T, text };
    assert.ok(res.status < 500, `${method} ${path} answered a server error: ${show(response)}`);
    return response;
  }

  get<T = any>(path: string, headers?: Record<string, string>) {
    return this.request<T>('GET', path, { headers });
  }
  post<T = any>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('POST', path, { body, headers });
  }
  patch<T = any>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('PATCH', path, { body, headers });
  }
  delete<T = any>(path: string, headers?: Record<string, string>) {
    return this.request<T>('DELETE', path, { headers });
  }
}

/** Asserts the status, printing the whole response when it differs; returns the body. */
export function expectStatus<T>(response: Response<T>, status: number): T {
  assert.equal(response.status, status, `expected ${status}, got ${show(response)}`);
  return response.body;
}

/** Asserts an error response: the status and a body that is exactly `{"error": message}`. */
export function expectError(response: Response, status: number, message?: string | RegExp): void {
  assert.equal(response.status, status, `expected ${status}, got ${show(response)}`);
  assert.ok(response.headers.get('content-type')?.startsWith('application/json'), `not JSON: ${show(response)}`);
  assert.deepEqual(
    Object.keys(response.body ?? {}),
    ['error'],
    `error body must be exactly {"error"}: ${show(response)}`,
  );
  assert.equal(typeof response.body.error, 'string');
  assert.ok(response.body.error.length > 0, 'error message must not be empty');
  if (typeof message === 'string') assert.equal(response.body.error, message, show(response));
  else if (message) assert.match(response.body.error, message, show(response));
}

/** The problems `loadConfig` reports for `env`, none when it accepts it. */
export function configProblems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.problems;
  }
}
