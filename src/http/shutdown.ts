/**
 * Stopping within a bound. On SIGTERM the server stops accepting connections, ends its event
 * streams, lets the requests in flight finish, closes each connection as soon as it has nothing
 * more to answer, then closes the database. Past `SHUTDOWN_TIMEOUT_MS` whatever is still open is
 * cut (HTTP connections, and the database connections of requests still running, whose
 * transactions roll back), so the process always ends.
 */
import type { Store } from '../storage/database.js';
import type { App } from './app-types.js';

/** After the cut, how long each closing step left (the database, Fastify's onClose hooks) may still take. */
const AFTER_CUT_MS = 1_000;

/**
 * Prepares `app` (before it listens) to be shut down by the returned function, which resolves
 * once the app and `store` are closed, at most about `windowMs` later.
 */
export function prepareShutdown(app: App, store: Store, windowMs: number): () => Promise<void> {
  let closing = false;
  // Node closes idle keep-alive connections once, when close() is called. A request still in
  // flight then leaves its connection idle when it finishes, and nothing closed it until its
  // keep-alive timeout (KEEP_ALIVE_TIMEOUT_MS, 72 s): close() waited on it all that time. So
  // while closing, every finished response closes the connections that have become idle. A
  // connection with a pipelined request still to answer is not idle, so that request is
  // answered first (Fastify marks it Connection: close).
  const closeIdle = () => app.server.closeIdleConnections();
  app.addHook('onResponse', (_request, _reply, done) => {
    if (closing) setImmediate(closeIdle);
    done();
  });

  let shutdown: Promise<void> | undefined;
  return () =>
    (shutdown ??= (async () => {
      closing = true;
      closeIdle();
      const deadline = Date.now() + windowMs;
      const closed = app.close();
      if (await settlesWithin(closed, windowMs)) {
        const storeClosed = store.close();
        if (await settlesWithin(storeClosed, deadline - Date.now())) {
          await closed; // an error closing the app still fails the shutdown, now that the store is closed
          return storeClosed;
        }
      }
      app.log.warn(`shutdown: work still open after SHUTDOWN_TIMEOUT_MS (${windowMs} ms); closing its connections`);
      // Still listening if a closing step before Fastify's own server.close() is what hangs.
      if (app.server.listening) app.server.close();
      app.server.closeAllConnections();
      await settlesWithin(store.close({ force: true }), AFTER_CUT_MS);
      await settlesWithin(closed, AFTER_CUT_MS);
    })());
}

/** True if `promise` settles within `ms` (a rejection counts as settled). */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, ms))));
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      expired,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
