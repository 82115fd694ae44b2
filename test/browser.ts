/**
 * A browser for tests: fetch with a cookie jar, and the sign-in steps the web app takes.
 * Shared by the suites that test web sessions (sessions, sign-in budgets, proxies).
 */
import assert from 'node:assert/strict';
import { randomBytes, scrypt } from 'node:crypto';
import { hashPassword } from '../src/team/passwords.js';
import { setPasswordHash } from '../src/team/users.repository.js';
import { createTestTeam, type Actor, type Team } from './factories.js';
import { expectError, expectStatus, show, type Response, type TestServer } from './harness.js';

export const COOKIE = 'tasklane_session';
/** The session cookie's name when the request came over HTTPS through a trusted proxy. */
export const SECURE_COOKIE = `__Host-${COOKIE}`;
export const PASSWORD = 'correct horse battery staple';
/** The one answer to a wrong password and to an unknown email alike. */
export const WRONG_CREDENTIALS = 'Wrong email or password.';

// ---------------------------------------------------------------------------------------------
// A browser: fetch with a cookie jar
// ---------------------------------------------------------------------------------------------

export interface BrowserResponse<T = any> extends Response<T> {
  /** The Set-Cookie headers of this response, one string each. */
  setCookies: string[];
}

export class Browser {
  readonly jar = new Map<string, string>();
  /** The session's CSRF token, from the sign-in answer. */
  csrfToken = '';

  /** `headers` go with every request (say, what a proxy in front would add). */
  constructor(
    readonly baseUrl: string,
    readonly headers: Record<string, string> = {},
  ) {}

  /** The session cookie's value, if the jar holds one. */
  get sessionToken(): string | undefined {
    return this.jar.get(COOKIE) ?? this.jar.get(SECURE_COOKIE);
  }

  /** The header that makes a change with this session legitimate. */
  csrf(): Record<string, string> {
    return { 'x-csrf-token': this.csrfToken };
  }

  /** A second browser holding the same cookie (another tab, or a stolen cookie). */
  clone(): Browser {
    const copy = new Browser(this.baseUrl, this.headers);
    for (const [name, value] of this.jar) copy.jar.set(name, value);
    copy.csrfToken = this.csrfToken;
    return copy;
  }

  async request<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<BrowserResponse<T>> {
    const sent: Record<string, string> = { ...this.headers, ...headers };
    if (this.jar.size > 0) sent.cookie = [...this.jar].map(([name, value]) => `${name}=${value}`).join('; ');
    if (body !== undefined) sent['content-type'] = 'application/json';
    const res = await fetch(this.baseUrl + path, {
      method,
      headers: sent,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    const setCookies = res.headers.getSetCookie();
    const response = { status: res.status, headers: res.headers, body: parsed as T, text, setCookies };
    assert.ok(res.status < 500, `${method} ${path} answered a server error: ${show(response)}`);
    for (const header of setCookies) {
      const [pair = '', ...attributes] = header.split(';').map((part) => part.trim());
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      const expired = attributes.some((a) => /^max-age=(0|-\d+)$/i.test(a));
      if (expired || value === '') this.jar.delete(name);
      else this.jar.set(name, value);
    }
    return response;
  }

  get<T = any>(path: string, headers?: Record<string, string>) {
    return this.request<T>('GET', path, undefined, headers);
  }
  post<T = any>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('POST', path, body, headers);
  }
  patch<T = any>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('PATCH', path, body, headers);
  }
  delete<T = any>(path: string, headers?: Record<string, string>) {
    return this.request<T>('DELETE', path, undefined, headers);
  }
}

/** The session cookie among a response's Set-Cookie headers, split into its value and attributes. */
export function sessionCookie(response: BrowserResponse, name = COOKIE): { value: string; attributes: string[] } {
  const header = response.setCookies.find((c) => c.startsWith(`${name}=`));
  assert.ok(header, `no ${name} cookie was set: ${JSON.stringify(response.setCookies)}`);
  const [pair, ...attributes] = header.split(';').map((part) => part.trim());
  return { value: pair!.slice(name.length + 1), attributes };
}

// ---------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------

/** Gives a factory-made user a password (factories make users without one). */
export async function setPassword(server: TestServer, actor: Actor, password = PASSWORD): Promise<void> {
  await setPasswordHash(server.store.db, actor.userId, await hashPassword(password));
}

/** A new team whose owner has a password. */
export async function teamWithPassword(server: TestServer): Promise<Team> {
  const team = await createTestTeam(server);
  await setPassword(server, team.owner);
  return team;
}

/** Signs in through the API, asserting success; the browser then holds the cookie and CSRF token. */
export async function signIn(
  server: TestServer,
  email: string,
  password = PASSWORD,
  teamId?: string,
): Promise<{ browser: Browser; info: any; response: BrowserResponse }> {
  const browser = new Browser(server.url);
  const response = await browser.post('/auth/sign-in', { email, password, ...(teamId ? { teamId } : {}) });
  const info = expectStatus(response, 200);
  browser.csrfToken = info.csrfToken;
  assert.ok(browser.sessionToken, 'sign-in stored no session cookie');
  return { browser, info, response };
}

export async function signedInOwner(server: TestServer): Promise<{ team: Team; browser: Browser; info: any }> {
  const team = await teamWithPassword(server);
  const { browser, info } = await signIn(server, team.owner.email);
  return { team, browser, info };
}

/** A failed sign-in: asserts the status and message, and that no cookie was set. */
export async function expectSignInRefused(
  server: TestServer,
  body: Record<string, unknown>,
  status: number,
  message?: string | RegExp,
): Promise<void> {
  const browser = new Browser(server.url);
  const response = await browser.post('/auth/sign-in', body);
  expectError(response, status, message);
  assert.deepEqual(
    response.setCookies.filter((c) => c.startsWith(`${COOKIE}=`)),
    [],
    'a refused sign-in set a cookie',
  );
}

/** A password hash as releases before argon2id stored it: `scrypt$N$r$p$salt$hash`. */
export function legacyScryptHash(password: string): Promise<string> {
  const salt = randomBytes(16);
  const [N, r, p] = [2 ** 15, 8, 1];
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, 64, { N, r, p, maxmem: 256 * N * r }, (error, key) =>
      error ? reject(error) : resolve(['scrypt', N, r, p, salt.toString('base64'), key.toString('base64')].join('$')),
    ),
  );
}
