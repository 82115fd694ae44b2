/**
 * The official MCP SDK's client connects to /mcp with only the server's URL (issue 33): its first
 * request gets 401 with the resource metadata's URL, it discovers the authorization server,
 * registers, and asks the person to authorize (here: the test, signed in, consents over HTTP as
 * the web page would); it finishes with the code, and its token works within the scopes chosen.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { signedInOwner, type Browser } from '../browser.js';
import { expectStatus, startTestServer, type TestServer } from '../harness.js';

const REDIRECT = 'http://127.0.0.1:43123/oauth/callback';

/** An MCP client's OAuth state, in memory; "redirecting" the person is consenting over HTTP as them. */
class TestProvider implements OAuthClientProvider {
  information?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  /** The code the redirect brought back, and the authorization URL the client built. */
  code?: string;
  authorizationUrl?: URL;

  constructor(
    private readonly browser: Browser,
    private readonly scopes: string[],
  ) {}

  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'SDK agent',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  async redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
    // The authorization endpoint takes the request (a page, here read for its status only)…
    const page = await fetch(url, { redirect: 'manual', headers: { accept: 'text/html' } });
    assert.equal(page.status, 200, `GET ${url} answered ${page.status}: ${await page.text()}`);
    // …and the person, signed in, allows on the consent page.
    const params = Object.fromEntries(url.searchParams);
    const answer = expectStatus(
      await this.browser.post(
        '/auth/oauth/authorize',
        { ...params, decision: 'allow', scopes: this.scopes },
        this.browser.csrf(),
      ),
      200,
    );
    const back = new URL(answer.redirectTo);
    assert.equal(back.searchParams.get('state'), params.state ?? null);
    this.code = back.searchParams.get('code') ?? undefined;
  }
}

describe('the MCP SDK client connects with only the URL (OAuth 2.1)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  test('401, discovery, registration, consent, finishAuth, then tools within the scopes chosen', async () => {
    const { team, browser } = await signedInOwner(server);
    expectStatus(await team.owner.api.post('/v1/tasks', { title: 'Seen by the agent' }), 201);
    const provider = new TestProvider(browser, ['tasks:read', 'lists:read', 'team:read']);
    const mcpUrl = new URL('/mcp', server.url);

    const first = new Client({ name: 'sdk-oauth-test', version: '1.0.0' });
    await assert.rejects(
      first.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider })),
      UnauthorizedError,
    );
    assert.ok(provider.information?.client_id.startsWith('tlc_'), 'the client registered itself');
    assert.equal(provider.authorizationUrl?.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(provider.authorizationUrl?.searchParams.get('resource'), `${server.url}/mcp`);
    assert.ok(provider.code, 'the consent gave a code');

    const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    await transport.finishAuth(provider.code!);
    assert.equal(provider.saved?.token_type.toLowerCase(), 'bearer');
    assert.equal(provider.saved?.scope, 'tasks:read lists:read team:read');

    const client = new Client({ name: 'sdk-oauth-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      assert.ok(
        tools.some((tool) => tool.name === 'find_tasks'),
        JSON.stringify(tools.map((t) => t.name)),
      );
      const found = (await client.callTool({ name: 'find_tasks', arguments: {} })) as CallToolResult;
      assert.ok(!found.isError, JSON.stringify(found));
      assert.match(JSON.stringify(found), /Seen by the agent/);
      // Out of the scopes chosen: refused, and nothing written.
      const create = (await client.callTool({
        name: 'create_task',
        arguments: { title: 'Not allowed', idempotencyKey: 'oauth-sdk-1' },
      })) as CallToolResult;
      assert.equal(create.isError, true, JSON.stringify(create));
      assert.match(JSON.stringify(create), /tasks:write/);
    } finally {
      await client.close();
    }
  });

  test('without credentials, POST /mcp names the resource metadata in WWW-Authenticate', async () => {
    const response = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(response.status, 401);
    assert.match(
      response.headers.get('www-authenticate') ?? '',
      new RegExp(`^Bearer .*resource_metadata="${server.url}/\\.well-known/oauth-protected-resource/mcp"`),
    );
    const metadata = expectStatus(await server.client().get('/.well-known/oauth-protected-resource/mcp'), 200);
    assert.equal(metadata.resource, `${server.url}/mcp`);
  });
});
