/**
 * Issue 33's OAuth consent page in headless Chromium against the real `tasklane serve`: an MCP
 * client registered itself and sent the person to /oauth/authorize; they sign in first and come
 * back to the page, which names the client and where it sends them, offers the scopes (the agent
 * preset checked) and their lists; Allow lands on the redirect URI with a code and the state,
 * which the client exchanges for a token. Axe and 390 / 1400 px widths on the page.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, it } from 'node:test';
import type { Browser } from 'playwright-core';
import {
  assertCleanRun,
  describeInBrowser,
  launchBrowser,
  newContext,
  requireBrowser,
  type Watch,
} from './support/browser.js';
import { expectFitsPhoneAndDesktop, visible, type WebappRun } from './support/pages.js';
import { startWorkspace, type Workspace } from './support/workspace.js';

describeInBrowser('the OAuth consent page in a real browser', () => {
  const watch: Watch = { foreignRequests: [], errors: [], cspReports: [] };
  const run = { watch } as unknown as WebappRun;
  let workspace: Workspace;

  before(async () => {
    requireBrowser();
    workspace = await startWorkspace();
    run.workspace = workspace;
    run.browser = (await launchBrowser()) as Browser;
    const list = await workspace.api(workspace.ben, 'POST', '/v1/lists', { name: 'Launch checklist' });
    assert.equal(list.status, 201);
  });

  after(async () => {
    await run.browser?.close();
    await workspace?.close();
  });

  it('signs in first, shows the client and the scopes; Allow leads to the redirect with a code', async () => {
    // The client: registered with a loopback redirect URI (here the server's own origin, so the
    // browser never leaves it), and a PKCE pair.
    const redirectUri = `${workspace.url}/callback`;
    const registered = await fetch(`${workspace.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Desk Assistant', redirect_uris: [redirectUri] }),
    });
    assert.equal(registered.status, 201);
    const { client_id: clientId } = (await registered.json()) as { client_id: string };
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'xyz-42',
      resource: `${workspace.url}/mcp`,
    });

    const context = await newContext(run.browser, workspace.url, watch);
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`/oauth/authorize?${query}`);
    // Not signed in: sign in, and the page comes back.
    await page.getByLabel('Email').fill(workspace.ben.email);
    await page.getByLabel('Password').fill(workspace.ben.password);
    await page.getByRole('button', { name: 'Sign in' }).click();

    const card = page.getByRole('region', { name: /Allow Desk Assistant to use tasklane/ });
    await visible(card);
    assert.ok(page.url().includes('/oauth/authorize?'), page.url());
    await visible(card.getByText(new URL(workspace.url).host));
    // The agent preset is checked; lists:write is offered, not checked.
    assert.equal(await card.getByRole('checkbox', { name: /Create and change tasks/ }).isChecked(), true);
    assert.equal(await card.getByRole('checkbox', { name: /Create and change lists/ }).isChecked(), false);
    await visible(card.getByRole('checkbox', { name: 'Launch checklist' }));
    await card.getByRole('checkbox', { name: /Comment on tasks/ }).uncheck();

    await expectFitsPhoneAndDesktop(page, 'The OAuth consent page', 'oauth-consent');

    await card.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(/\/callback\?/);
    const landed = new URL(page.url());
    assert.equal(landed.searchParams.get('state'), 'xyz-42');
    const code = landed.searchParams.get('code');
    assert.ok(code, page.url());

    // The client's side: the code and the verifier make a token with the scopes chosen.
    const token = await fetch(`${workspace.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        client_id: clientId,
        code_verifier: verifier,
      }),
    });
    assert.equal(token.status, 200);
    const answer = (await token.json()) as { access_token: string; scope: string };
    assert.equal(answer.scope, 'tasks:read tasks:write lists:read team:read');
    const me = await fetch(`${workspace.url}/v1/me`, { headers: { 'x-api-key': answer.access_token } });
    assert.equal(me.status, 200);
    await context.close();
    assertCleanRun(watch);
  });

  it('Deny leads to the redirect with access_denied', async () => {
    const redirectUri = `${workspace.url}/callback`;
    const registered = await fetch(`${workspace.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Unwanted', redirect_uris: [redirectUri] }),
    });
    const { client_id: clientId } = (await registered.json()) as { client_id: string };
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url'),
      code_challenge_method: 'S256',
      state: 'no-thanks',
    });
    const context = await newContext(run.browser, workspace.url, watch);
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`/oauth/authorize?${query}`);
    await page.getByLabel('Email').fill(workspace.ben.email);
    await page.getByLabel('Password').fill(workspace.ben.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.waitForURL(/\/callback\?/);
    const landed = new URL(page.url());
    assert.equal(landed.searchParams.get('error'), 'access_denied');
    assert.equal(landed.searchParams.get('state'), 'no-thanks');
    await context.close();
    assertCleanRun(watch);
  });
});
