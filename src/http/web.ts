/**
 * Serves the built web app (web/dist) at `/`: hashed assets as static files, and index.html for
 * every other page path (`/lists/3`, `/settings`), so the app's own router takes over.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from './app-types.js';

/** From dist/src/http/web.js (and src/http/web.ts) up to the checkout, then web/dist. */
export const WEB_ROOT = fileURLToPath(new URL('../../../web/dist', import.meta.url));

/** Scripts only from this origin, no inline script at all: a description can never run code. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

const API_PATHS = /^\/(v1|auth|docs|openapi\.json|healthz)(\/|$|\?)/;

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
      res.header('x-content-type-options', 'nosniff');
      // Vite names assets by content hash, so they never change under the same name.
      if (path.includes('/assets/')) res.header('cache-control', 'public, max-age=31536000, immutable');
    },
  });

  const sendIndex = (reply: FastifyReply) =>
    reply
      .code(200)
      .headers({
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-cache',
        'content-security-policy': CONTENT_SECURITY_POLICY,
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'same-origin',
      })
      .send(indexHtml);

  app.get('/', { schema: { hide: true } }, async (_request, reply) => sendIndex(reply));
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
  }
}
