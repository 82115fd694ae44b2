/** What the OAuth suites share: PKCE pairs, a registered client, the consent over HTTP, the token request. */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import type { Browser } from '../browser.js';
import { expectStatus, show, type Response, type TestServer } from '../harness.js';

export const REDIRECT_URI = 'http://127.0.0.1:7777/callback';

/** A PKCE verifier and its S256 challenge. */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** POST /oauth/register, 201: the client's id. */
export async function registerClient(server: TestServer, redirectUris = [REDIRECT_URI], name = 'Test agent') {
  const registered = expectStatus(
    await server.client().post('/oauth/register', { client_name: name, redirect_uris: redirectUris }),
    201,
  );
  return registered.client_id as string;
}

/** The authorization request's parameters, as a client sends them. */
export function authorizationParams(server: TestServer, clientId: string, challenge: string, extra = {}) {
  return {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'state-123',
    resource: `${server.url}/mcp`,
    ...extra,
  };
}

/** The person allows (with these scopes and lists) on the consent page: the code from the redirect. */
export async function consent(
  browser: Browser,
  params: Record<string, string>,
  choice: { scopes?: string[]; listIds?: number[] } = {},
): Promise<string> {
  const answer = expectStatus(
    await browser.post(
      '/auth/oauth/authorize',
      { ...params, decision: 'allow', scopes: choice.scopes ?? ['tasks:read', 'team:read'], ...choice },
      browser.csrf(),
    ),
    200,
  );
  const to = new URL(answer.redirectTo);
  assert.equal(`${to.origin}${to.pathname}`, params.redirect_uri);
  assert.equal(to.searchParams.get('state'), params.state);
  const code = to.searchParams.get('code');
  assert.ok(code, `no code in ${answer.redirectTo}`);
  return code;
}

/** POST /oauth/token as a form. */
export async function tokenRequest(server: TestServer, form: Record<string, string>): Promise<Response> {
  const res = await fetch(`${server.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  const text = await res.text();
  const response = { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined, text };
  assert.ok(res.status < 500, `POST /oauth/token answered a server error: ${show(response)}`);
  return response;
}

/** Asserts an OAuth error body: exactly {error, error_description}, with this code. */
export function expectOAuthError(response: Response, status: number, code: string): void {
  assert.equal(response.status, status, show(response));
  assert.deepEqual(Object.keys(response.body).sort(), ['error', 'error_description'], show(response));
  assert.equal(response.body.error, code, show(response));
  assert.equal(typeof response.body.error_description, 'string');
}
