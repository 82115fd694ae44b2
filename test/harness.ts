/**
 * Test harness: starts the real server on a fresh temporary database and speaks HTTP to it.
 * Every response is checked for 5xx (a 5xx is always a bug), and failing assertions print
 * the whole response.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../src/config.js';
import { startServer, type RunningServer } from '../src/server.js';

export interface TestServer extends RunningServer {
  /** A client that sends this API key (or none). */
  client(key?: string): Client;
}

/** A fresh, empty SQLite database file in its own temporary folder. */
export function tempDatabase(): { url: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'tasklane-test-'));
  return { url: `sqlite:${join(dir, 'tasklane.db')}`, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Starts tasklane on port 0 with a temporary database; `env` overrides the environment. */
export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const database = tempDatabase();
  const config: Config = loadConfig({
    DATABASE_URL: database.url,
    PORT: '0',
    HOST: '127.0.0.1',
    RATE_LIMIT_PER_MINUTE: '0',
    LOG_LEVEL: 'silent',
    ...env,
  });
  const server = await startServer(config);
  return {
    ...server,
    client: (key?: string) => new Client(server.url, key),
    close: async () => {
      await server.close();
      database.remove();
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
