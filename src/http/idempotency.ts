/**
 * `Idempotency-Key` on every POST under /v1: a retry of a request (same credential, same key, same
 * method, URL and body) gets the original response again, with `Idempotent-Replayed: true`, and
 * changes nothing; the same key on a different request is a 422.
 *
 * How a keyed request runs:
 *   preValidation  check the header (400 if malformed); fingerprint the body as the client sent it
 *   handler        open one transaction; reserve the key in it (a unique insert); a used key is
 *                  answered from its record (replay or 422) and the transaction rolled back;
 *                  otherwise run the route inside the transaction (see idempotency-transaction.ts)
 *   onSend         < 500: save the sealed response on the reservation and commit: the change and
 *                  its response become durable together. ≥ 500: roll everything back, so a retry
 *                  runs afresh.
 * A duplicate that arrives while the first is running waits on the reservation: in PostgreSQL on
 * the unique index (up to CONCURRENT_WAIT_MS, then 409 and Retry-After), in SQLite on the single
 * write lock. A crash at any point loses the reservation together with the change, so no
 * reservation is ever left behind and nothing is ever half-recorded.
 */
import type { FastifyReply, FastifyRequest, RouteHandlerMethod, RouteOptions } from 'fastify';
import type { Caller } from '../caller.js';
import type { App } from './app-types.js';
import { sessionTokenOf } from './session-cookie.js';
import { AppError } from './errors.js';
import { reserve, saveResponse, type RecordScope, type Reservation } from './idempotency-records.js';
import { IdempotencySeal, type StoredResponse } from './idempotency-seal.js';
import { openRequestTransaction, storeInTransaction, type RequestTransaction } from './idempotency-transaction.js';
import { addRouteHook } from './route-hooks.js';

/** How long a key is remembered: a retry within this time replays, later it runs as new. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * The longest a keyed request may hold its transaction. Past it the transaction is rolled back
 * (Kysely then refuses any further query on it) and the request answers 503: a stuck request,
 * or a hook waiting on the database the request itself holds, must not hold the store forever.
 */
const TRANSACTION_LIMIT_MS = 30_000;

const HEADER = 'idempotency-key';
const VALID_KEY = /^[\x20-\x7e]{1,255}$/;
/** The response headers a replay repeats; the rest (rate limits, security headers) are the retry's own. */
const REPLAYED_HEADERS = ['content-type', 'etag', 'location', 'error-detail'];

export const MESSAGES = {
  invalidKey: 'Idempotency-Key must be 1 to 255 printable ASCII characters.',
  severalKeys: 'Send one Idempotency-Key header, not several.',
  reused:
    'This Idempotency-Key was already used for a different request (another method, URL or body). ' +
    'Use a new key for a new request.',
  inProgress: 'A request with this Idempotency-Key is still in progress. Retry it in a moment.',
  abandoned: 'The request could not be completed, and nothing was changed. Retry it.',
};

interface Claim {
  scope: RecordScope;
  seal: IdempotencySeal;
  fingerprint: string;
}

interface Running {
  claim: Claim;
  transaction: RequestTransaction;
  finishing: boolean;
  abandoned: boolean;
  watchdog?: NodeJS.Timeout;
}

const claims = new WeakMap<FastifyRequest, Claim>();
const running = new WeakMap<FastifyRequest, Running>();

/**
 * Whether a route takes Idempotency-Key: every POST under /v1 but a streamed upload
 * (`config.idempotency: false`), whose body is never held to fingerprint and which must not hold
 * a transaction open while its file arrives; there the header is ignored.
 */
export function takesIdempotencyKey(route: Pick<RouteOptions, 'method' | 'url' | 'config'>): boolean {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  if ((route.config as { idempotency?: boolean } | undefined)?.idempotency === false) return false;
  return methods.includes('POST') && (route.url === '/v1' || route.url.startsWith('/v1/'));
}

/**
 * Adds Idempotency-Key handling to every POST under /v1 registered after this call. A keyed
 * request's route finds the request's transaction as `request.store`.
 */
export function registerIdempotency(app: App): void {
  app.addHook('onRoute', (route) => {
    if (!takesIdempotencyKey(route)) return;
    addRouteHook(route, 'preValidation', 'last', claimKey);
    route.handler = idempotentHandler(route.handler as RouteHandlerMethod);
  });
  app.addHook('onSend', finish);
  // Never reached in practice (onSend always ends the transaction); a safety net against leaks.
  app.addHook('onResponse', async (request) => {
    const entry = running.get(request);
    if (entry?.transaction.open) {
      request.log.error('idempotent request ended without saving its response; rolled back');
      await entry.transaction.rollback();
    }
  });
}

/** The secret the caller authenticated with, as auth.ts reads it: the API key, else the session cookie. */
function credentialSecret(request: FastifyRequest, caller: Caller): string | undefined {
  if (caller.credential.kind === 'key') {
    const header = request.headers['x-api-key'];
    const key = Array.isArray(header) ? header[0] : header;
    const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
    return key || bearer;
  }
  return sessionTokenOf(request);
}

function headerCount(rawHeaders: string[]): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === HEADER) count++;
  return count;
}

/** preValidation: before Ajv drops unknown fields or fills defaults, so the body is what was sent. */
async function claimKey(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
  const count = headerCount(request.raw.rawHeaders);
  if (count === 0) return undefined;
  const key = request.headers[HEADER];
  // Answered here, not thrown: routes whose 400s all say "Invalid input." would hide the reason.
  // Returning the reply (a thenable) holds the hook chain until it is sent.
  if (count > 1) return reply.code(400).send({ error: MESSAGES.severalKeys });
  if (typeof key !== 'string' || !VALID_KEY.test(key)) return reply.code(400).send({ error: MESSAGES.invalidKey });

  const caller = request.caller;
  const secret = credentialSecret(request, caller);
  // authenticate() accepted a credential this module cannot read: a bug, never a silent skip.
  if (!secret) throw new Error('Idempotency-Key: cannot find the secret of the authenticated credential');
  const seal = new IdempotencySeal(secret, key);
  claims.set(request, {
    scope: {
      credential: `${caller.credential.kind}:${caller.credential.id}`,
      teamId: caller.teamId,
      keyHash: seal.keyHash,
    },
    seal,
    fingerprint: seal.fingerprint(request.method, request.url, request.body),
  });
  return undefined;
}

function idempotentHandler(handler: RouteHandlerMethod): RouteHandlerMethod {
  return async function handleIdempotently(this: unknown, request, reply) {
    const claim = claims.get(request);
    if (!claim) return handler.call(this as never, request, reply);

    // The request's store: for a change, it confirms the caller as the transaction begins.
    const transaction = await openRequestTransaction(request.store);
    let reservation: Reservation;
    try {
      const now = new Date();
      const expiredBefore = new Date(now.getTime() - IDEMPOTENCY_TTL_MS);
      reservation = await reserve(
        transaction.trx,
        request.store.dialect,
        claim.scope,
        claim.fingerprint,
        now,
        expiredBefore,
      );
    } catch (error) {
      await transaction.rollback();
      throw error;
    }
    if (reservation.kind !== 'reserved') {
      await transaction.rollback();
      return answerUsedKey(reply, claim, reservation);
    }

    const entry: Running = { claim, transaction, finishing: false, abandoned: false };
    entry.watchdog = setTimeout(() => abandon(request, entry), TRANSACTION_LIMIT_MS).unref();
    running.set(request, entry);
    // Not awaited here: a handler that returns `reply` settles only once the response is out,
    // which is after onSend (finish) has ended the transaction.
    request.store = storeInTransaction(request.store, transaction);
    return handler.call(this as never, request, reply);
  };
}

function abandon(request: FastifyRequest, entry: Running): void {
  if (entry.finishing || !entry.transaction.open) return;
  entry.abandoned = true;
  request.log.error(`idempotent request held its transaction over ${TRANSACTION_LIMIT_MS} ms; rolled back`);
  void entry.transaction.rollback();
}

function answerUsedKey(reply: FastifyReply, claim: Claim, reservation: Exclude<Reservation, { kind: 'reserved' }>) {
  if (reservation.kind === 'busy' || reservation.response === null) {
    return reply.code(409).header('retry-after', '1').send({ error: MESSAGES.inProgress });
  }
  if (reservation.fingerprint !== claim.fingerprint) return reply.code(422).send({ error: MESSAGES.reused });
  const original = claim.seal.open(reservation.response);
  return reply
    .code(original.status)
    .headers(original.headers)
    .header('idempotent-replayed', 'true')
    .send(original.body);
}

/** onSend: makes the change and its response durable together (< 500), or neither (≥ 500). */
async function finish(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  const entry = running.get(request);
  // A second pass (the error response of a failed commit) finds the transaction already ended.
  if (!entry || entry.finishing) return payload;
  entry.finishing = true;
  clearTimeout(entry.watchdog);
  if (entry.abandoned) throw new AppError('unavailable', MESSAGES.abandoned, { 'retry-after': '1' });
  if (reply.statusCode >= 500) {
    await entry.transaction.rollback();
    return payload;
  }
  try {
    await saveResponse(entry.transaction.trx, entry.claim.scope, entry.claim.seal.seal(responseOf(reply, payload)));
  } catch (error) {
    await entry.transaction.rollback();
    throw error;
  }
  // If the commit fails the client gets an error, never a success that was not recorded.
  await entry.transaction.commit();
  return payload;
}

function responseOf(reply: FastifyReply, payload: unknown): StoredResponse {
  const headers: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const value = reply.getHeader(name);
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : '';
  return { status: reply.statusCode, headers, body };
}
