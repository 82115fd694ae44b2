/**
 * OAuth 2.1 authorization for MCP clients (issue 33; docs/mcp.md, "Authorization (OAuth 2.1)"):
 * a client registers itself, a signed-in person consents on the web app's page, and the client
 * exchanges the code (with its PKCE verifier) for an access token, which is a scoped API key of
 * that person: authentication, scopes, list limits, expiry and revocation are the keys' own.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Caller } from '../caller.js';
import { AGENT_SCOPES, KEY_SCOPES, type KeyScope } from '../contract/keys.js';
import {
  OAUTH_CODE_SECONDS,
  OAUTH_TOKEN_DAYS,
  type AuthorizationRequest,
  type ConsentAnswer,
  type ConsentBody,
  type ConsentInfo,
  type RegisterClientBody,
  type RegisteredClient,
  type TokenAnswer,
  type TokenBody,
} from '../contract/oauth.js';
import { invalidInput } from '../http/errors.js';
import type { PasswordAttempt } from '../http/rate-limit.js';
import { issueKey } from '../keys/keys.service.js';
import { listsUsableBy, revokeKey } from '../keys/keys.repository.js';
import { endedAccess } from '../changes/publisher.js';
import { hashSecret } from '../secret-hash.js';
import { requireSession } from '../sessions/sessions.service.js';
import type { Store } from '../storage/database.js';
import { findMembership } from '../team/teams.repository.js';
import * as repo from './oauth.repository.js';
import { isRegisteredRedirect, redirectUriProblem } from './redirect-uris.js';

/**
 * An OAuth error: the token and registration endpoints answer `{"error": code,
 * "error_description": message}` (RFC 6749 §5.2, RFC 7591 §3.2.2), not the house's `{"error"}`.
 */
export class OAuthError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

/**
 * A request the authorization endpoint must not redirect: its client or redirect URI is unknown,
 * so the browser stays here and is shown why (OAuth 2.1 §4.1.2.1: never to an unchecked URI).
 */
export class UnsafeAuthorizationRequest extends Error {}

/** The MCP endpoint's URL on the server at `base`: the resource a token is bound to. */
export const mcpResourceOf = (base: string): string => `${base}/mcp`;

/** RFC 7591: a public client (no secret) with its redirect URIs. */
export async function registerClient(store: Store, body: RegisterClientBody): Promise<RegisteredClient> {
  for (const uri of body.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError('invalid_redirect_uri', problem);
  }
  const method = (body as Record<string, unknown>).token_endpoint_auth_method;
  if (method !== undefined && method !== 'none') {
    throw new OAuthError(
      'invalid_client_metadata',
      'token_endpoint_auth_method must be none: clients here are public and prove themselves with PKCE.',
    );
  }
  const client: repo.ClientRecord = {
    id: `tlc_${randomBytes(16).toString('hex')}`,
    clientName: body.client_name?.trim() || 'MCP client',
    redirectUris: [...new Set(body.redirect_uris)],
    createdAt: new Date().toISOString(),
  };
  await repo.insertClient(store.db, client);
  return {
    client_id: client.id,
    client_name: client.clientName,
    redirect_uris: client.redirectUris,
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code'],
    response_types: ['code'],
    client_id_issued_at: Math.floor(Date.parse(client.createdAt) / 1000),
  };
}

/** A request whose client and redirect URI are known: its errors may go back to the client. */
export interface CheckedRequest {
  client: repo.ClientRecord;
  redirectUri: string;
  state: string | undefined;
  /** The client's scopes, or the agent preset when it asked for none. */
  scopes: KeyScope[];
  codeChallenge: string;
  resource: string | null;
}

/**
 * A redirect back to the client: `redirectUri` with `params` (and the request's state), and `iss`,
 * this server (RFC 9207), so that a client talking to several servers knows which one answered.
 */
export function redirectWith(redirectUri: string, base: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries({ ...params, iss: base })) {
    if (value !== undefined) url.searchParams.set(name, value);
  }
  return url.toString();
}

/**
 * Checks an authorization request. Throws UnsafeAuthorizationRequest for an unknown client or
 * redirect URI (shown, never redirected); an OAuthError for anything else, which the client is
 * told through its redirect URI.
 */
export async function checkRequest(store: Store, request: AuthorizationRequest, base: string): Promise<CheckedRequest> {
  const client = request.client_id ? await repo.findClient(store.db, request.client_id) : undefined;
  if (!client) {
    throw new UnsafeAuthorizationRequest('This application is not registered here (unknown client_id).');
  }
  if (!request.redirect_uri || !isRegisteredRedirect(client.redirectUris, request.redirect_uri)) {
    throw new UnsafeAuthorizationRequest(`redirect_uri is not one that ${client.clientName} registered.`);
  }
  if (request.response_type !== 'code') {
    throw new OAuthError('unsupported_response_type', 'response_type must be code.');
  }
  if (!request.code_challenge || request.code_challenge_method !== 'S256') {
    throw new OAuthError('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256.');
  }
  if (!/^[A-Za-z0-9_-]{43}$/.test(request.code_challenge)) {
    throw new OAuthError('invalid_request', 'code_challenge must be base64url(sha256(code_verifier)), 43 characters.');
  }
  if (request.resource !== undefined && request.resource !== mcpResourceOf(base)) {
    throw new OAuthError('invalid_target', `resource must be ${mcpResourceOf(base)}.`);
  }
  return {
    client,
    redirectUri: request.redirect_uri,
    state: request.state,
    scopes: requestedScopes(request.scope),
    codeChallenge: request.code_challenge,
    resource: request.resource ?? null,
  };
}

/**
 * The scopes a client asked for, of those that exist (an unknown one is left out, not refused:
 * the person chooses on the page anyway); none known, the agent preset.
 */
function requestedScopes(scope: string | undefined): KeyScope[] {
  const asked = new Set((scope ?? '').split(' ').filter(Boolean));
  const known = KEY_SCOPES.filter((s) => asked.has(s));
  return known.length > 0 ? known : [...AGENT_SCOPES];
}

/** What the consent page shows: the client, where the person goes back to, and the scopes. */
export async function consentInfo(
  store: Store,
  caller: Caller,
  request: AuthorizationRequest,
  base: string,
): Promise<ConsentInfo> {
  requireSession(caller, 'Authorizing an application');
  const checked = await checkedOr400(store, request, base);
  return {
    clientName: checked.client.clientName,
    redirectHost: new URL(checked.redirectUri).host,
    requestedScopes: checked.scopes,
    scopesAvailable: [...KEY_SCOPES],
    tokenDays: OAUTH_TOKEN_DAYS,
  };
}

/** For the consent page's JSON endpoints: any problem of the request is a plain 400. */
async function checkedOr400(store: Store, request: AuthorizationRequest, base: string): Promise<CheckedRequest> {
  try {
    return await checkRequest(store, request, base);
  } catch (error) {
    if (error instanceof UnsafeAuthorizationRequest || error instanceof OAuthError) {
      throw invalidInput(error.message);
    }
    throw error;
  }
}

/** The person's answer: a code for the client (allow), or access_denied; either way where to go. */
export async function decide(store: Store, caller: Caller, body: ConsentBody, base: string): Promise<ConsentAnswer> {
  requireSession(caller, 'Authorizing an application');
  const checked = await checkedOr400(store, body, base);
  if (body.decision === 'deny') {
    return { redirectTo: redirectWith(checked.redirectUri, base, { error: 'access_denied', state: checked.state }) };
  }
  const scopes = body.scopes === undefined ? checked.scopes : grantedScopes(body.scopes);
  const code = randomBytes(32).toString('base64url');
  await store.transaction(async (trx) => {
    const listIds = await grantedLists(trx, caller, body.listIds);
    const now = Date.now();
    if (!(await repo.markClientAuthorized(trx, checked.client.id, new Date(now).toISOString()))) {
      throw invalidInput('This application is not registered here (unknown client_id).');
    }
    await repo.insertCode(trx, {
      codeHash: hashSecret(code),
      clientId: checked.client.id,
      teamId: caller.teamId,
      userId: caller.userId,
      scopes,
      listIds,
      codeChallenge: checked.codeChallenge,
      redirectUri: checked.redirectUri,
      resource: checked.resource,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + OAUTH_CODE_SECONDS * 1000).toISOString(),
    });
  });
  return { redirectTo: redirectWith(checked.redirectUri, base, { code, state: checked.state }) };
}

/** The scopes the person checked: at least one, each a key scope, in the contract's order. */
function grantedScopes(scopes: string[]): KeyScope[] {
  if (scopes.length === 0) throw invalidInput('Choose at least one scope to allow.');
  const unknown = scopes.find((s) => !(KEY_SCOPES as readonly string[]).includes(s));
  if (unknown !== undefined) throw invalidInput(`scopes: ${JSON.stringify(unknown)} is not a scope.`);
  return KEY_SCOPES.filter((s) => scopes.includes(s));
}

/** The lists the person limited the token to, each one they may use; none given, every list. */
async function grantedLists(db: Store['db'], caller: Caller, listIds: number[] | undefined): Promise<number[] | null> {
  if (listIds === undefined || listIds.length === 0) return null;
  const usable = await listsUsableBy(db, caller.teamId, caller.userId, listIds);
  const refused = listIds.find((id) => !usable.has(id));
  if (refused !== undefined) throw invalidInput(`listIds: ${refused} is not a list you are a member of.`);
  return [...new Set(listIds)].sort((a, b) => a - b);
}

const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
const challengeOf = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/**
 * The token endpoint: a code (unused, unexpired, this client's, this redirect URI's) and the PKCE
 * verifier of its challenge → a scoped API key named after the client, expiring in
 * OAUTH_TOKEN_DAYS. A code presented twice revokes the token it gave (OAuth 2.1 §4.1.3).
 * `attempt` counts the try against the address's failed-authentication budget; a good code gives it back.
 */
export async function exchangeCode(
  store: Store,
  body: TokenBody,
  base: string,
  attempt: () => Promise<PasswordAttempt>,
): Promise<TokenAnswer> {
  if (body.grant_type !== 'authorization_code') {
    throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code.');
  }
  for (const name of ['code', 'redirect_uri', 'client_id', 'code_verifier'] as const) {
    if (typeof body[name] !== 'string' || body[name] === '')
      throw new OAuthError('invalid_request', `${name} is required.`);
  }
  if (body.resource !== undefined && body.resource !== mcpResourceOf(base)) {
    throw new OAuthError('invalid_target', `resource must be ${mcpResourceOf(base)}.`);
  }
  const tried = await attempt();
  const codeHash = hashSecret(body.code!);
  const answer = await store.transaction(async (trx) => {
    const code = await repo.findCode(trx, codeHash);
    if (!code || Date.parse(code.expiresAt) <= Date.now()) {
      throw new OAuthError('invalid_grant', 'The code is unknown or has expired.');
    }
    if (code.clientId !== body.client_id || code.redirectUri !== body.redirect_uri) {
      throw new OAuthError('invalid_grant', 'The code was issued to another client or redirect_uri.');
    }
    if (!VERIFIER.test(body.code_verifier!) || challengeOf(body.code_verifier!) !== code.codeChallenge) {
      throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge.');
    }
    if (code.resource !== null && body.resource !== undefined && body.resource !== code.resource) {
      throw new OAuthError('invalid_target', 'resource differs from the authorization request.');
    }
    if (!(await repo.claimCode(trx, codeHash, new Date().toISOString())))
      return { replayOf: code.keyId, teamId: code.teamId };
    if (!(await findMembership(trx, code.teamId, code.userId))) {
      throw new OAuthError('invalid_grant', 'The person who authorized this code is no longer a member.');
    }
    const client = await repo.findClient(trx, code.clientId);
    const { record, key } = await issueKey(trx, {
      teamId: code.teamId,
      userId: code.userId,
      name: `MCP: ${client?.clientName ?? 'client'}`.slice(0, 100),
      expiresAt: new Date(Date.now() + OAUTH_TOKEN_DAYS * 86_400_000).toISOString(),
      scopes: code.scopes,
      listIds: code.listIds,
    });
    await repo.setCodeKey(trx, codeHash, record.id);
    return { token: key, scopes: code.scopes };
  });
  if ('replayOf' in answer) {
    // Someone else may hold the code: the token it gave is no longer to be trusted.
    if (answer.replayOf && (await revokeKey(store.db, answer.replayOf))) endedAccess.publish({ teamId: answer.teamId });
    throw new OAuthError('invalid_grant', 'The code has already been used.');
  }
  await tried.succeeded();
  return {
    access_token: answer.token,
    token_type: 'Bearer',
    expires_in: OAUTH_TOKEN_DAYS * 86_400,
    scope: answer.scopes.join(' '),
  };
}

/** Codes kept this long after they expire, so that a late replay still finds its token to revoke. */
export const CODE_RETENTION_MS = 24 * 60 * 60 * 1000;

/** The housekeeping job: deletes codes long expired. */
export const pruneOldCodes = (store: Store): Promise<void> =>
  repo.pruneCodes(store.db, new Date(Date.now() - CODE_RETENTION_MS));

/** A registered client nobody allowed within this long is deleted: registration is open to anyone. */
export const UNUSED_CLIENT_MS = 24 * 60 * 60 * 1000;

/**
 * The housekeeping job: deletes clients nobody allowed within a day of registering (junk from
 * open registration). A client a person once allowed stays: it is theirs, and deleting it would
 * leave the person at "unknown client_id" the next time the client asks.
 */
export const pruneUnusedClients = (store: Store, now = new Date()): Promise<number> =>
  repo.pruneClients(store.db, new Date(now.getTime() - UNUSED_CLIENT_MS));
