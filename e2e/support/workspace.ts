/**
 * The world the browser tests run in: the real `tasklane serve` (a child process, as an
 * operator runs it) on a fresh database, with teams, people, passwords and keys made by
 * `tasklane admin`.
 */
import { tempDatabase, type TempDatabase } from '../../test/harness.js';
import { admin, serve, type Serving } from '../../test/processes.js';

export interface Person {
  id: string;
  name: string;
  email: string;
  password: string;
  /** An API key, for checking what the app did through the API. */
  key: string;
}

export interface Workspace {
  url: string;
  /** The server's database, for a suite that must put something there no request can (an expired invitation). */
  databaseUrl: string;
  rocket: { id: string; name: string };
  moon: { id: string; name: string };
  /** Owner of Rocket and member of Moon base: two teams, so she picks one at sign-in. */
  ada: Person;
  /** Member of Rocket only. */
  ben: Person;
  /** Admin of Rocket. */
  cy: Person;
  /** A request with an API key; answers status and JSON body. */
  api(person: Person, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /**
   * Stops the server and starts it again on the same port and database with these settings (a
   * clock moved on): open pages reconnect to it as to a server restarted by its operator.
   */
  restart(env: Record<string, string>): Promise<void>;
  close(): Promise<void>;
}

/** `env`: more settings for the server (a suite's webhooks, say). */
export async function startWorkspace(env: Record<string, string> = {}): Promise<Workspace> {
  const database: TempDatabase = await tempDatabase();
  const url = database.url;
  const rocket = await admin(url, 'org', 'create', '--name', 'Rocket');
  const moon = await admin(url, 'org', 'create', '--name', 'Moon base');

  const person = async (name: string, email: string, team: string, role: string): Promise<Person> => {
    const password = `${email.split('@')[0]}-password-1`;
    const user = await admin(url, 'user', 'create', '--email', email, '--name', name, '--password', password);
    await admin(url, 'member', 'add', '--org', team, '--user', user.id, '--role', role);
    const { key } = await admin(url, 'key', 'create', '--org', team, '--user', user.id, '--name', 'e2e checks');
    return { id: user.id, name, email, password, key };
  };
  const ada = await person('Ada Lovelace', 'ada@example.test', rocket.id, 'owner');
  const ben = await person('Ben Okafor', 'ben@example.test', rocket.id, 'member');
  const cy = await person('Cy Park', 'cy@example.test', rocket.id, 'admin');
  await admin(url, 'member', 'add', '--org', moon.id, '--user', ada.id, '--role', 'member');

  let server: Serving | undefined;
  try {
    server = await serve(url, { RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'error', ...env });
  } catch (error) {
    await database.remove();
    throw error;
  }
  const base = server.url;

  return {
    url: base,
    databaseUrl: url,
    rocket,
    moon,
    ada,
    ben,
    cy,
    async api(who, method, path, body) {
      const response = await fetch(base + path, {
        method,
        headers: { 'x-api-key': who.key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    },
    async restart(more) {
      await server?.stop();
      server = undefined;
      server = await serve(url, { RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'error', ...more, PORT: new URL(base).port });
    },
    async close() {
      await server?.stop();
      await database.remove();
    },
  };
}

/** Retries `check` until it stops throwing (the server and the other browser catch up). */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  }
}
