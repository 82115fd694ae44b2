/**
 * The web app's session cookie: its name (a `__Host-` one over TLS) and the token a request
 * carries in it. Authentication (auth/authenticate.ts) reads it, sign-in and sign-out set and clear it.
 */
import { parseCookie } from 'cookie';
import type { FastifyRequest } from 'fastify';

export const SESSION_COOKIE = 'tasklane_session';
/**
 * The session cookie's name on requests that arrived over TLS (through a trusted proxy). A
 * browser accepts a `__Host-` cookie only if it is Secure, for the whole host (no Domain) and
 * set over HTTPS, so a plain-HTTP page or a sibling subdomain cannot plant one.
 */
export const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;

/** Which session cookie this request's connection uses: the `__Host-` one over TLS, the plain one otherwise. */
export function sessionCookieName(request: FastifyRequest): string {
  return request.protocol === 'https' ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
}

/**
 * The session token the request carries, if any. The `cookie` package never throws on a
 * malformed header or a broken %-escape, so such a cookie is just a session that is not found.
 */
export function sessionTokenOf(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  return header ? parseCookie(header)[sessionCookieName(request)] || undefined : undefined;
}
