/**
 * Serves the built web app (web/dist) at `/`: hashed assets as static files, and index.html for
 * every other page path (`/lists/3`, `/settings`), so the app's own router takes over.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from './app-types.js';

/**
 * From dist/src/http/web.js up to the checkout, then web/dist; from src/http/web.ts when the tests
 * run from source (`npm run test:one`).
 */
export const WEB_ROOT = fileURLToPath(
  new URL(import.meta.url.endsWith('.ts') ? '../../web/dist' : '../../../web/dist', import.meta.url),
);

/** Scripts only from this origin, no inline script at all: a description can never run code. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "frame-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

/** Browser features the app never uses, switched off so injected content cannot ask for them either. */
const PERMISSIONS_POLICY = [
  'accelerometer=()',
  'camera=()',
  'geolocation=()',
  'gyroscope=()',
  'magnetometer=()',
  'microphone=()',
  'payment=()',
  'usb=()',
].join(', ');

/**
 * The page's headers. Framing is refused twice (CSP frame-ancestors, and X-Frame-Options for
 * older browsers, set for every response in security-headers.ts); the page keeps its own
 * browsing-context group, so a window it opens (a link in a description) cannot reach back.
 */
export const WEB_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-cache',
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': PERMISSIONS_POLICY,
};

const API_PATHS = /^\/(v1|auth|docs|openapi\.json|healthz|oauth|\.well-known)(\/|$|\?)/;

export async function registerWebApp(app: App): Promise<void> {
  const indexFile = `${WEB_ROOT}/index.html`;
  if (!existsSync(indexFile)) return; // an API-only build: nothing to serve
  const indexHtml = readFileSync(indexFile, 'utf8');

  await app.register(fastifyStatic, {
    root: WEB_ROOT,
    prefix: '/',
    index: false,
    decorateReply: false,
    setHeaders: (res, path) => {
      // Every file gets the page's policies, so one opened directly (/index.html, an SVG) is no
      // weaker than the page; for scripts and styles they cost nothing. CORP keeps them ours.
      for (const [name, value] of Object.entries(WEB_PAGE_HEADERS)) {
        if (name !== 'content-type' && name !== 'cache-control') res.header(name, value);
      }
      // Vite names assets by content hash, so they never change under the same name.
      if (path.includes('/assets/')) res.header('cache-control', 'public, max-age=31536000, immutable');
    },
  });

  const sendIndex = (reply: FastifyReply) => reply.code(200).headers(WEB_PAGE_HEADERS).send(indexHtml);

  app.get('/', { schema: { hide: true } }, async (_request, reply) => sendIndex(reply));
  app.decorate('sendWebPage', (reply: FastifyReply) => sendIndex(reply));
  app.decorate('sendWebApp', (request: FastifyRequest, reply: FastifyReply) => {
    if (request.method !== 'GET' || API_PATHS.test(request.url)) return false;
    if (!request.headers.accept?.includes('text/html')) return false;
    sendIndex(reply);
    return true;
  });
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Answers a page path with the web app; false when the request is not for a page. */
    sendWebApp?: (request: FastifyRequest, reply: FastifyReply) => boolean;
    /** Answers with the web app's page whatever the path (a route that checked its request first: /oauth/authorize). */
    sendWebPage?: (reply: FastifyReply) => FastifyReply;
  }
}
