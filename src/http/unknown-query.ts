/**
 * Unknown query parameters are refused, on every /v1 and /auth route: a typo (`listId` for
 * `taskListId`) silently ignored would answer a question the client did not ask, such as every
 * task instead of one list's. The 400 names the parameter and the closest known one, or else the
 * ones the endpoint takes. It runs first in preValidation, so after authentication (an onRequest
 * hook: a request without a valid key gets its 401 whatever its query string) and before the
 * schemas judge the values of the known parameters.
 *
 * Outside /v1 and /auth (the web app, /docs, /openapi.json, /healthz) query strings stay free:
 * browsers and tools add their own (cache busters, the docs page's state).
 */
import type { FastifyRequest, RouteOptions } from 'fastify';
import type { App } from './app-types.js';
import { invalidInput } from './errors.js';
import { addRouteHook } from './route-hooks.js';

/**
 * The API's routes: the ones the check applies to. The OAuth endpoints' JSON routes too; not the
 * authorization page (/oauth/authorize), whose unknown parameters OAuth says to ignore.
 */
const API_ROUTE = /^\/(?:v1|auth|\.well-known)\/|^\/oauth\/(?:register|token)$/;

/** A name longer than this is cut in the message: it quotes the client, it need not repeat an essay. */
const MAX_QUOTED = 60;

/**
 * Query names people send for what the API takes as a header (lower-cased, letters and digits
 * only): the stream's resume point, mostly, since EventSource cannot set headers on its first
 * request (and never needs to: the browser sends Last-Event-ID itself when it reconnects).
 */
const HEADER_LOOKALIKES = new Map([
  ['lasteventid', 'Last-Event-ID'],
  ['idempotencykey', 'Idempotency-Key'],
  ['ifmatch', 'If-Match'],
]);

/** Levenshtein distance: the fewest single-character insertions, deletions and substitutions. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The known names closest to `name`, ignoring case: the same name in another case first; then
 * names containing it (`listId` → `taskListId`, `dueDate` → `dueDateFrom` and `dueDateTo`), ranked
 * with names one typo away; then names a few typos away (more for longer names). Ties are all returned.
 */
export function closestNames(name: string, known: readonly string[]): string[] {
  const wanted = name.toLowerCase();
  const typos = wanted.length <= 3 ? 1 : wanted.length <= 7 ? 2 : 3;
  let best = Infinity;
  let closest: string[] = [];
  for (const candidate of known) {
    const lower = candidate.toLowerCase();
    const distance = editDistance(wanted, lower);
    const contains = wanted.length >= 3 && (lower.includes(wanted) || wanted.includes(lower));
    const score = distance === 0 ? 0 : contains ? 1 : distance <= typos ? distance : Infinity;
    if (score === Infinity || score > best) continue;
    if (score < best) closest = [];
    best = score;
    closest.push(candidate);
  }
  return closest;
}

/** The sentence that refuses the unknown parameter `name` of an endpoint that takes `known`. */
export function unknownQueryMessage(name: string, known: readonly string[]): string {
  if (name === '') return 'The query string has a parameter with no name (an = with nothing before it).';
  const quoted = name.length > MAX_QUOTED ? `${name.slice(0, MAX_QUOTED)}...` : name;
  const refusal = `Unknown query parameter ${quoted}.`;
  const header = HEADER_LOOKALIKES.get(name.toLowerCase().replace(/[^a-z0-9]/g, ''));
  if (header) return `${refusal} Send it as the ${header} header instead.`;
  const closest = closestNames(name, known);
  if (closest.length > 0) return `${refusal} Did you mean ${closest.join(' or ')}?`;
  if (known.length === 0) return `${refusal} This endpoint takes no query parameters.`;
  return `${refusal} This endpoint takes ${known.join(', ')}.`;
}

/** The query parameter names a route's querystring schema declares. */
function declaredNames(route: RouteOptions): string[] {
  const schema = route.schema?.querystring as { properties?: Record<string, unknown> } | undefined;
  return Object.keys(schema?.properties ?? {});
}

/** Makes every /v1 and /auth route registered after this call refuse query parameters it does not declare. */
export function registerUnknownQueryCheck(app: App): void {
  app.addHook('onRoute', (route) => {
    if (!API_ROUTE.test(route.url)) return;
    const known = declaredNames(route);
    const knownSet = new Set(known);
    addRouteHook(route, 'preValidation', 'first', async (request: FastifyRequest) => {
      const unknown = Object.keys(request.query as object).find((name) => !knownSet.has(name));
      if (unknown !== undefined) throw invalidInput(unknownQueryMessage(unknown, known));
    });
  });
}
