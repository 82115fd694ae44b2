/**
 * Cross-origin access, closed unless `CORS_ORIGINS` names origins. Without it no response carries
 * an `Access-Control-*` header and a preflight is a 404, so a browser page of another site can
 * never read an answer. With it, only those exact origins get answers; others are treated as if
 * CORS were closed.
 */
import cors from '@fastify/cors';
import { ERROR_DETAIL_HEADER, NEXT_PAGE_HEADER } from '../contract/common.js';
import type { App } from './app-types.js';

/** Request headers a cross-origin API client may send (beyond the CORS-safelisted ones). */
export const CORS_ALLOWED_HEADERS = [
  'x-api-key',
  'content-type',
  'idempotency-key',
  'if-match',
  // POST /mcp (docs/mcp.md): the key as a bearer token, and the MCP version the client speaks.
  'authorization',
  'mcp-protocol-version',
];
/** Response headers a cross-origin API client may read. */
export const CORS_EXPOSED_HEADERS = [
  ERROR_DETAIL_HEADER,
  'ETag',
  // The next page of a list capped by size (docs/api.md, "Page sizes").
  NEXT_PAGE_HEADER,
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'Retry-After',
];

/** Registers CORS for `origins`; registers nothing at all when the list is empty. */
export async function registerCors(app: App, origins: readonly string[]): Promise<void> {
  if (origins.length === 0) return;
  const allowed = new Set(origins);
  await app.register(cors, {
    // An unlisted origin gets no CORS headers at all, and its preflight falls through to 404.
    origin: (origin, callback) => callback(null, origin !== undefined && allowed.has(origin) ? origin : false),
    methods: ['GET', 'POST', 'PATCH', 'DELETE'],
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    // API keys travel in a header; the web app's session cookie is SameSite=Strict and stays same-site.
    credentials: false,
    maxAge: 600,
    // An OPTIONS request from a listed origin without Access-Control-Request-Method is answered
    // like a preflight rather than with the plugin's plain-text 400.
    strictPreflight: false,
  });
}
