/**
 * `x-api-key` (or the web app's session cookie) → caller. Runs first on every /v1 request, so an
 * unauthenticated request is a 401 whatever else is wrong with it. Nothing is cached: a revoked key or a removed member is
 * refused on the very next request.
 */
import { timingSafeEqual } from 'node:crypto';
import diagnostics from 'node:diagnostics_channel';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../caller.js';
import { checkApiKey } from '../keys/key-auth.js';
import { hashSecret } from '../secret-hash.js';
import { findLiveSession } from '../sessions/sessions.repository.js';
import type { Store } from '../storage/database.js';
import { CHANGING_METHODS, checkCallerOnChange, formerMemberMessage, SESSION_ENDED_MESSAGE } from './caller-check.js';
import { AppError, forbidden, unauthorized } from '../http/errors.js';
import { sessionTokenOf } from '../http/session-cookie.js';
import { publicUrlOf, resourceMetadataUrl } from '../http/public-url.js';

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
  }
  interface FastifyContextConfig {
    /** GET /v1/me answers a former member itself (404, as the spec says); other routes refuse them. */
    allowFormerMember?: boolean;
    /**
     * An agent's protocol (POST /mcp): the key may also come as `Authorization: Bearer`, a web
     * session does not count, a 401 says `WWW-Authenticate: Bearer`, and the caller carries
     * `via` (the key's name), which marks the activity of its changes.
     */
    agentProtocol?: boolean;
  }
}

/** What a 401 of an agent's protocol carries, as RFC 6750 (and the MCP authorization spec) asks. */
export const AGENT_CHALLENGE = 'Bearer realm="tasklane"';

/**
 * AGENT_CHALLENGE with where the protected-resource metadata is (RFC 9728 §5.1), from which an MCP
 * client finds this server's OAuth endpoints (docs/mcp.md, "Authorization (OAuth 2.1)").
 */
const agentChallenge = (request: FastifyRequest, publicUrl: string | null): string =>
  `${AGENT_CHALLENGE}, resource_metadata="${resourceMetadataUrl(publicUrlOf({ publicUrl }, request))}"`;
export const MISSING_AGENT_KEY_MESSAGE =
  'Missing API key. Send your key as Authorization: Bearer <key> (or in the x-api-key header).';

/** The key of `Authorization: Bearer <key>`, if the header is that. */
function bearerToken(request: FastifyRequest): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
}

/**
 * Published with `{ request }` once a request is authenticated, before its body is read: for
 * tracing, and for tests that act between the headers and the body (the caller's re-check,
 * caller-check.ts). Free while nobody subscribes.
 */
export const authenticatedChannel = diagnostics.channel('tasklane:request-authenticated');

function sameToken(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Resolves the caller from `x-api-key`, or else from the web app's session cookie. A change
 * made with a session must carry the session's CSRF token in `x-csrf-token`: a cross-site page
 * can make the browser send the cookie, but it can neither read the token nor set the header.
 */
export function authenticate(store: Store, publicUrl: string | null = null) {
  return async function authenticateRequest(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const agent = request.routeOptions.config.agentProtocol === true;
    const header = request.headers['x-api-key'];
    const key = (Array.isArray(header) ? header[0] : header) || (agent ? bearerToken(request) : undefined);
    const sessionToken = key || agent ? undefined : sessionTokenOf(request);

    let caller: Caller | undefined;
    /** Why the presented key was refused (malformed, unknown or revoked, expired). */
    let keyRefusal: string | undefined;
    if (key) {
      const { owner, refusal } = await checkApiKey(store.db, key);
      keyRefusal = refusal;
      if (owner) {
        caller = {
          userId: owner.userId,
          teamId: owner.teamId,
          role: owner.role,
          credential: { kind: 'key', id: owner.keyId },
          // A scoped or list-limited key (issue 33); a key with neither has no limits at all.
          ...((owner.scopes !== null || owner.listIds !== null) && {
            limits: { scopes: owner.scopes, listIds: owner.listIds, name: owner.name },
          }),
          // On an agent's protocol (/mcp), its changes' activity names the key.
          ...(agent && { via: { kind: 'agent', keyName: owner.name } }),
        };
      }
    } else if (sessionToken) {
      const session = await findLiveSession(store.db, hashSecret(sessionToken));
      if (session) {
        if (CHANGING_METHODS.has(request.method)) {
          const sent = request.headers['x-csrf-token'];
          if (typeof sent !== 'string' || !sameToken(sent, session.csrfToken)) {
            throw forbidden('Missing or invalid CSRF token: send the x-csrf-token header from GET /auth/session.');
          }
        }
        caller = {
          userId: session.userId,
          teamId: session.teamId,
          role: session.role,
          credential: { kind: 'session', id: session.sessionId, csrfToken: session.csrfToken },
        };
      }
    }

    if (!caller) {
      // The 401 spends the address's failed-authentication budget (http/rate-limit.ts).
      if (agent) {
        throw new AppError('unauthorized', keyRefusal ?? MISSING_AGENT_KEY_MESSAGE, {
          'www-authenticate': agentChallenge(request, publicUrl),
        });
      }
      throw unauthorized(
        key
          ? keyRefusal!
          : sessionToken
            ? SESSION_ENDED_MESSAGE
            : 'Missing API key. Send your key in the x-api-key header.',
      );
    }
    if (caller.role === null && !request.routeOptions.config.allowFormerMember) {
      const challenge: Record<string, string> = agent ? { 'www-authenticate': agentChallenge(request, publicUrl) } : {};
      throw new AppError('unauthorized', formerMemberMessage(caller), challenge);
    }
    request.caller = caller;
    checkCallerOnChange(request);
    if (authenticatedChannel.hasSubscribers) authenticatedChannel.publish({ request });
  };
}
