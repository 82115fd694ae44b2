/**
 * Headers every response carries, whoever answers it (a route, the error or 404 handler, a
 * hijacked event stream): browsers must not guess content types or frame our pages, and API
 * answers, which hold a team's private data, must not be stored by browsers or proxies.
 * The web app's own page headers (Content-Security-Policy and friends) live in web.ts.
 */
import type { App } from './app-types.js';

/** Paths whose answers are private data: never stored by a browser or a shared cache. */
const PRIVATE_PATHS = /^\/(v1|auth)(\/|\?|$)/;

export function registerSecurityHeaders(app: App): void {
  app.addHook('onRequest', (request, reply, done) => {
    // Set on the raw response so that they survive reply.hijack(); a route's own value for the
    // same header (an event stream's cache-control, a static asset's) still wins.
    reply.raw.setHeader('x-content-type-options', 'nosniff');
    reply.raw.setHeader('x-frame-options', 'DENY');
    if (PRIVATE_PATHS.test(request.url)) reply.raw.setHeader('cache-control', 'no-store');
    done();
  });
}
