/**
 * OAuth 2.1 for MCP clients (issue 33; docs/mcp.md, "Authorization (OAuth 2.1)"): the metadata,
 * registration, the code flow with PKCE over HTTP, and the token as the scoped key it is.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { KEY_SCOPES } from '../../src/contract/keys.js';
import { pruneUnusedClients } from '../../src/oauth/oauth.service.js';
import { signedInOwner } from '../browser.js';
import { expectError, expectStatus, startTestServer, type TestServer } from '../harness.js';
import {
  authorizationParams,
  consent,
  expectOAuthError,
  pkce,
  REDIRECT_URI,
  registerClient,
  tokenRequest,
} from './support.js';

describe('OAuth for MCP clients', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  /** A signed-in owner, a registered client, and a code the owner allowed with `choice`. */
  async function allowed(choice: { scopes?: string[]; listIds?: number[] } = {}) {
    const { team, browser } = await signedInOwner(server);
    const clientId = await registerClient(server);
    const { verifier, challenge } = pkce();
    const params = authorizationParams(server, clientId, challenge);
    const code = await consent(browser, params, choice);
    const form = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      client_id: clientId,
      code_verifier: verifier,
      resource: `${server.url}/mcp`,
    };
    return { team, browser, clientId, params, code, verifier, form };
  }

  describe('metadata', () => {
    test('protected-resource metadata (RFC 9728) names /mcp and this server, at both well-known paths', async () => {
      for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
        const doc = expectStatus(await server.client().get(path), 200);
        assert.deepEqual(doc, {
          resource: `${server.url}/mcp`,
          authorization_servers: [server.url],
          scopes_supported: [...KEY_SCOPES],
          bearer_methods_supported: ['header'],
          resource_name: 'tasklane',
        });
      }
    });

    test('authorization-server metadata (RFC 8414) names the endpoints, code + S256 only, public clients', async () => {
      const doc = expectStatus(await server.client().get('/.well-known/oauth-authorization-server'), 200);
      assert.deepEqual(doc, {
        issuer: server.url,
        authorization_endpoint: `${server.url}/oauth/authorize`,
        token_endpoint: `${server.url}/oauth/token`,
        registration_endpoint: `${server.url}/oauth/register`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
        authorization_response_iss_parameter_supported: true,
        scopes_supported: [...KEY_SCOPES],
      });
    });

    test('PUBLIC_URL, when set, is the URL the documents name', async () => {
      const behind = await startTestServer({ PUBLIC_URL: 'https://tasks.example.com' });
      try {
        const doc = expectStatus(await behind.client().get('/.well-known/oauth-protected-resource'), 200);
        assert.equal(doc.resource, 'https://tasks.example.com/mcp');
        assert.deepEqual(doc.authorization_servers, ['https://tasks.example.com']);
      } finally {
        await behind.close();
      }
    });
  });

  test('a browser-based client whose origin is in CORS_ORIGINS registers, and reads the token answer, across origins', async () => {
    const origin = 'http://localhost:6274';
    const cors = await startTestServer({ CORS_ORIGINS: origin });
    try {
      const preflight = await fetch(`${cors.url}/oauth/register`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers.get('access-control-allow-origin'), origin);
      assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /content-type/i);
      const registered = await fetch(`${cors.url}/oauth/register`, {
        method: 'POST',
        headers: { origin, 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'Inspector', redirect_uris: [`${origin}/oauth/callback`] }),
      });
      assert.equal(registered.status, 201);
      assert.equal(registered.headers.get('access-control-allow-origin'), origin);
      // A form is a simple request (no preflight); its answer, an error here, must be readable.
      const token = await fetch(`${cors.url}/oauth/token`, {
        method: 'POST',
        headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=authorization_code&code=nope',
      });
      assert.equal(token.status, 400);
      assert.equal(token.headers.get('access-control-allow-origin'), origin);
    } finally {
      await cors.close();
    }
  });

  test('the housekeeping deletes a client nobody allowed within a day of registering; one a person allowed stays', async () => {
    const { browser } = await signedInOwner(server);
    const day = 24 * 60 * 60 * 1000;
    const setClient = (id: string, values: { created_at?: string; authorized_at?: string }) =>
      server.store.db.updateTable('oauth_clients').set(values).where('id', '=', id).execute();
    const neverAllowed = await registerClient(server);
    await setClient(neverAllowed, { created_at: new Date(Date.now() - 2 * day).toISOString() });
    const justRegistered = await registerClient(server);
    const allowedLongAgo = await registerClient(server);
    await consent(browser, authorizationParams(server, allowedLongAgo, pkce().challenge));
    await setClient(allowedLongAgo, { authorized_at: new Date(Date.now() - 400 * day).toISOString() });
    const recentlyAllowed = await registerClient(server);
    await consent(browser, authorizationParams(server, recentlyAllowed, pkce().challenge));
    await setClient(recentlyAllowed, { created_at: new Date(Date.now() - 200 * day).toISOString() });

    await pruneUnusedClients(server.store);
    const left = await server.store.db
      .selectFrom('oauth_clients')
      .select('id')
      .where('id', 'in', [neverAllowed, justRegistered, allowedLongAgo, recentlyAllowed])
      .execute();
    assert.deepEqual(left.map((c) => c.id).sort(), [justRegistered, allowedLongAgo, recentlyAllowed].sort());
    // A deleted client is unknown: the authorization page says so and sends no one anywhere.
    const page = await fetch(
      `${server.url}/oauth/authorize?${new URLSearchParams(authorizationParams(server, neverAllowed, pkce().challenge))}`,
      {
        redirect: 'manual',
      },
    );
    assert.equal(page.status, 400);
    assert.match(await page.text(), /not registered here/);
  });

  describe('registration', () => {
    test('a public client registers https and loopback redirect URIs', async () => {
      const response = await server.client().post('/oauth/register', {
        client_name: 'Desktop assistant',
        redirect_uris: ['https://app.example.com/cb', 'http://localhost:3000/cb', 'http://[::1]/cb'],
        grant_types: ['authorization_code'],
      });
      const client = expectStatus(response, 201);
      assert.match(client.client_id, /^tlc_[0-9a-f]{32}$/);
      assert.equal(client.client_name, 'Desktop assistant');
      assert.equal(client.token_endpoint_auth_method, 'none');
      assert.deepEqual(client.redirect_uris, [
        'https://app.example.com/cb',
        'http://localhost:3000/cb',
        'http://[::1]/cb',
      ]);
    });

    test('http to a non-loopback host, a custom scheme, a fragment or a client secret method is refused', async () => {
      for (const uri of ['http://example.com/cb', 'cursor://oauth/cb', 'https://example.com/cb#x', 'not a uri']) {
        const response = await server.client().post('/oauth/register', { client_name: 'x', redirect_uris: [uri] });
        expectOAuthError(response, 400, 'invalid_redirect_uri');
      }
      expectOAuthError(
        await server.client().post('/oauth/register', { redirect_uris: [] }),
        400,
        'invalid_client_metadata',
      );
      expectOAuthError(
        await server.client().post('/oauth/register', {
          redirect_uris: [REDIRECT_URI],
          token_endpoint_auth_method: 'client_secret_basic',
        }),
        400,
        'invalid_client_metadata',
      );
    });
  });

  describe('the code flow with PKCE', () => {
    test('a code for the scopes chosen becomes a token that works as a key limited to them', async () => {
      const { team, browser, form } = await allowed({ scopes: ['tasks:read', 'team:read'] });
      const response = await tokenRequest(server, form);
      const token = expectStatus(response, 200);
      assert.equal(response.headers.get('cache-control'), 'no-store');
      assert.equal(token.token_type, 'Bearer');
      assert.equal(token.expires_in, 30 * 86_400);
      assert.equal(token.scope, 'tasks:read team:read');
      const api = server.client(token.access_token);
      const me = expectStatus(await api.get('/v1/me'), 200);
      assert.equal(me.id ?? me.user?.id, team.owner.userId, JSON.stringify(me));
      expectStatus(await api.get('/v1/tasks'), 200);
      // Out of scope: a write the person did not allow.
      expectError(await api.post('/v1/tasks', { title: 'nope' }), 403, /tasks:write/);
      // Settings lists it, named after the client, with its scopes and expiry.
      const keys = expectStatus(await browser.get('/v1/api-keys'), 200);
      const key = keys.find((k: any) => k.name === 'MCP: Test agent');
      assert.ok(key, JSON.stringify(keys));
      assert.deepEqual(key.scopes, ['tasks:read', 'team:read']);
      assert.ok(Date.parse(key.expiresAt) > Date.now() + 29 * 86_400_000);
    });

    test('a token limited to lists sees only them', async () => {
      const { team, browser } = await signedInOwner(server);
      const mine = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Granted' }), 201);
      const other = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Not granted' }), 201);
      const clientId = await registerClient(server);
      const { verifier, challenge } = pkce();
      const params = authorizationParams(server, clientId, challenge);
      const code = await consent(browser, params, { scopes: ['lists:read'], listIds: [mine.id] });
      const token = expectStatus(
        await tokenRequest(server, {
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT_URI,
          client_id: clientId,
          code_verifier: verifier,
        }),
        200,
      );
      // The token is a key limited to that list (what such a key may see is the scoped keys' own suite).
      const keys = expectStatus(await browser.get('/v1/api-keys'), 200);
      const key = keys.find((k: any) => k.name === 'MCP: Test agent');
      assert.deepEqual([key?.scopes, key?.listIds], [['lists:read'], [mine.id]], JSON.stringify(keys));
      const lists = expectStatus(await server.client(token.access_token).get('/v1/lists'), 200);
      const ids = lists.map((l: { id: number }) => l.id);
      assert.ok(ids.includes(mine.id) && !ids.includes(other.id), JSON.stringify(lists));
      expectError(await server.client(token.access_token).get('/v1/tasks'), 403, /tasks:read/);
    });

    test('a wrong verifier, another redirect_uri or client, or another resource is refused', async () => {
      const { form, clientId } = await allowed();
      expectOAuthError(await tokenRequest(server, { ...form, code_verifier: 'x'.repeat(43) }), 400, 'invalid_grant');
      expectOAuthError(
        await tokenRequest(server, { ...form, redirect_uri: 'http://127.0.0.1:7777/other' }),
        400,
        'invalid_grant',
      );
      const otherClient = await registerClient(server);
      expectOAuthError(await tokenRequest(server, { ...form, client_id: otherClient }), 400, 'invalid_grant');
      expectOAuthError(
        await tokenRequest(server, { ...form, resource: 'https://elsewhere.example/mcp' }),
        400,
        'invalid_target',
      );
      expectOAuthError(await tokenRequest(server, { ...form, grant_type: 'password' }), 400, 'unsupported_grant_type');
      expectOAuthError(await tokenRequest(server, { ...form, code_verifier: '' }), 400, 'invalid_request');
      // None of these spent the code.
      assert.equal(clientId, form.client_id);
      expectStatus(await tokenRequest(server, form), 200);
    });

    test('a code works once; presented again it is refused and its token revoked', async () => {
      const { form } = await allowed();
      const token = expectStatus(await tokenRequest(server, form), 200);
      expectStatus(await server.client(token.access_token).get('/v1/me'), 200);
      expectOAuthError(await tokenRequest(server, form), 400, 'invalid_grant');
      expectError(await server.client(token.access_token).get('/v1/me'), 401);
    });

    test('an expired code is refused', async () => {
      const { form } = await allowed();
      await server.store.db
        .updateTable('oauth_codes')
        .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
        .execute();
      expectOAuthError(await tokenRequest(server, form), 400, 'invalid_grant');
    });

    test('the code is stored hashed: no row holds it', async () => {
      const { code } = await allowed();
      const rows = await server.store.db.selectFrom('oauth_codes').selectAll().execute();
      assert.ok(!JSON.stringify(rows).includes(code));
    });

    test('revoking the key in Settings ends the token', async () => {
      const { browser, form } = await allowed();
      const token = expectStatus(await tokenRequest(server, form), 200);
      const keys = expectStatus(await browser.get('/v1/api-keys'), 200);
      const key = keys.find((k: any) => k.name === 'MCP: Test agent');
      assert.ok(key, JSON.stringify(keys));
      expectStatus(await browser.delete(`/v1/api-keys/${key.id}`, browser.csrf()), 200);
      expectError(await server.client(token.access_token).get('/v1/me'), 401);
    });
  });

  describe('the consent endpoints', () => {
    test('the page learns the client, where it goes back to and the scopes asked for', async () => {
      const { browser } = await signedInOwner(server);
      const clientId = await registerClient(server, [REDIRECT_URI], 'Claude');
      const params = authorizationParams(server, clientId, pkce().challenge, { scope: 'tasks:read lists:read' });
      const info = expectStatus(await browser.get(`/auth/oauth/authorize?${new URLSearchParams(params)}`), 200);
      assert.equal(info.clientName, 'Claude');
      assert.equal(info.redirectHost, '127.0.0.1:7777');
      assert.deepEqual(info.requestedScopes, ['tasks:read', 'lists:read']);
      assert.deepEqual(info.scopesAvailable, [...KEY_SCOPES]);
    });

    test('deny sends the person back with access_denied and the state', async () => {
      const { browser } = await signedInOwner(server);
      const clientId = await registerClient(server);
      const params = authorizationParams(server, clientId, pkce().challenge);
      const answer = expectStatus(
        await browser.post('/auth/oauth/authorize', { ...params, decision: 'deny' }, browser.csrf()),
        200,
      );
      const issuer = encodeURIComponent(server.url);
      assert.equal(answer.redirectTo, `${REDIRECT_URI}?error=access_denied&state=state-123&iss=${issuer}`);
    });

    test('a key, no session, no CSRF token, no scope, a list not the person’s: refused', async () => {
      const { team, browser } = await signedInOwner(server);
      const clientId = await registerClient(server);
      const params = authorizationParams(server, clientId, pkce().challenge);
      const body = { ...params, decision: 'allow', scopes: ['tasks:read'] };
      expectError(await team.owner.api.post('/auth/oauth/authorize', body), 403);
      expectError(await server.client().post('/auth/oauth/authorize', body), 401);
      expectError(await browser.post('/auth/oauth/authorize', body), 403);
      expectError(await browser.post('/auth/oauth/authorize', { ...body, scopes: [] }, browser.csrf()), 400);
      expectError(await browser.post('/auth/oauth/authorize', { ...body, listIds: [999999] }, browser.csrf()), 400);
      expectError(
        await browser.post(
          '/auth/oauth/authorize',
          { ...body, redirect_uri: 'https://evil.example/cb' },
          browser.csrf(),
        ),
        400,
      );
    });
  });

  describe('the authorization endpoint', () => {
    const get = (path: string) =>
      fetch(`${server.url}${path}`, { redirect: 'manual', headers: { accept: 'text/html' } });

    test('a valid request is the web app’s consent page', async () => {
      const clientId = await registerClient(server);
      const params = authorizationParams(server, clientId, pkce().challenge);
      const response = await get(`/oauth/authorize?${new URLSearchParams(params)}`);
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /text\/html/);
      assert.match(response.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
    });

    test('an unknown client or redirect URI is shown an error page, never redirected', async () => {
      const clientId = await registerClient(server);
      for (const params of [
        authorizationParams(server, 'tlc_unknown', pkce().challenge),
        authorizationParams(server, clientId, pkce().challenge, { redirect_uri: 'https://evil.example/cb' }),
      ]) {
        const response = await get(`/oauth/authorize?${new URLSearchParams(params)}`);
        assert.equal(response.status, 400);
        assert.equal(response.headers.get('location'), null);
        assert.match(await response.text(), /cannot be authorized/);
      }
    });

    test('other problems go back to the client: no PKCE, another response_type', async () => {
      const clientId = await registerClient(server);
      const noPkce = { ...authorizationParams(server, clientId, pkce().challenge), code_challenge_method: 'plain' };
      let response = await get(`/oauth/authorize?${new URLSearchParams(noPkce)}`);
      assert.equal(response.status, 302);
      let to = new URL(response.headers.get('location')!);
      assert.equal(to.searchParams.get('error'), 'invalid_request');
      assert.equal(to.searchParams.get('state'), 'state-123');
      assert.equal(to.searchParams.get('iss'), server.url, 'every redirect names this server (RFC 9207)');
      const token = authorizationParams(server, clientId, pkce().challenge, { response_type: 'token' });
      response = await get(`/oauth/authorize?${new URLSearchParams(token)}`);
      to = new URL(response.headers.get('location')!);
      assert.equal(to.searchParams.get('error'), 'unsupported_response_type');
    });
  });
});
