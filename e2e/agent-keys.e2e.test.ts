/**
 * Issue 33's agent keys in headless Chromium against the real `tasklane serve`: the owner makes an
 * "Agent" key limited to one list in Settings → API keys, sees its scopes, its list and the MCP
 * configurations; the key reads what it may and is refused the rest (called here with fetch, as an
 * agent would). A member makes an agent key of his own and sees no Agents' access; the owner sees
 * his key there and revokes it, after which it gets 401. Axe and 390 / 1400 px widths on both.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { assertCleanRun, describeInBrowser, launchBrowser, requireBrowser, type Watch } from './support/browser.js';
import { expectFitsPhoneAndDesktop, gone, openPage, visible, type WebappRun } from './support/pages.js';
import { startWorkspace, type Workspace } from './support/workspace.js';

const AGENT_SCOPES = 'tasks:read, tasks:write, comments:write, lists:read, team:read';
const keysOf = (page: Page) => page.getByRole('region', { name: 'API keys' });
const agentsOf = (page: Page) => page.getByRole('region', { name: 'Agents’ access' });

/** Makes an "Agent" key in Settings → API keys, limited to `list` if given; answers its secret. */
async function createAgentKey(page: Page, name: string, list?: string): Promise<string> {
  const section = keysOf(page);
  await section.getByLabel('New key name').fill(name);
  await section.getByRole('radio', { name: /^Agent/ }).check();
  if (list) {
    await section.getByRole('checkbox', { name: /^Limit to lists/ }).check();
    await section.getByRole('checkbox', { name: list, exact: true }).check();
  }
  await section.getByRole('button', { name: 'Create key' }).click();
  await visible(section.getByRole('region', { name: `New API key ${name}` }));
  return section.getByLabel('API key secret').inputValue();
}

describeInBrowser('agent keys in a real browser', () => {
  const watch: Watch = { foreignRequests: [], errors: [], cspReports: [] };
  const run = { watch } as unknown as WebappRun;
  let workspace: Workspace;
  let ada: Page;
  let ben: Page;
  /** With a key: status and JSON body. */
  const call = async (key: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(workspace.url + path, {
      method,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };

  before(async () => {
    requireBrowser();
    workspace = await startWorkspace();
    run.workspace = workspace;
    run.browser = (await launchBrowser()) as Browser;
    for (const name of ['Agent work', 'Private plans']) {
      const list = await workspace.api(workspace.ada, 'POST', '/v1/lists', { name });
      assert.equal(list.status, 201);
      const task = await workspace.api(workspace.ada, 'POST', '/v1/tasks', {
        title: `A task on ${name}`,
        taskListIds: [list.body.id],
      });
      assert.equal(task.status, 201);
    }
    ada = await openPage(run, workspace.ada, 'Rocket');
    ben = await openPage(run, workspace.ben);
  });

  after(async () => {
    await run.browser?.close();
    await workspace?.close();
  });

  it('the owner makes an Agent key limited to one list: its scopes, its list, the MCP configs; it works only within them', async () => {
    await ada.goto('/settings');
    const section = keysOf(ada);
    await visible(section.getByRole('row', { name: /e2e checks/ }));
    const secret = await createAgentKey(ada, 'Claude desktop', 'Agent work');

    const desktop = section.getByRole('textbox', { name: 'Desktop assistant (its MCP servers file)' });
    const config = JSON.parse(await desktop.inputValue());
    assert.deepEqual(config.mcpServers.tasklane, {
      type: 'http',
      url: `${workspace.url}/mcp`,
      headers: { Authorization: `Bearer ${secret}` },
    });
    const cli = await section.getByRole('textbox', { name: 'Command-line agent (Claude Code)' }).inputValue();
    assert.ok(cli.includes(`${workspace.url}/mcp`) && cli.includes(`Bearer ${secret}`), cli);
    await visible(section.getByRole('button', { name: 'Copy: Desktop assistant (its MCP servers file)' }));
    await visible(section.getByRole('button', { name: 'Copy: Command-line agent (Claude Code)' }));

    const row = section.getByRole('row', { name: /Claude desktop/ });
    await visible(row.getByText(AGENT_SCOPES));
    await visible(row.getByText('Agent work', { exact: true }));
    await visible(section.getByRole('row', { name: /e2e checks.*Full access.*All lists/ }));

    const tasks = await call(secret, 'GET', '/v1/tasks');
    assert.equal(tasks.status, 200);
    assert.deepEqual(
      tasks.body.map((task: { title: string }) => task.title),
      ['A task on Agent work'],
    );
    const webhook = await call(secret, 'POST', '/v1/webhooks', { url: 'https://example.com/hook' });
    assert.equal(webhook.status, 403, JSON.stringify(webhook.body));
    assert.equal(webhook.body.error, 'This API key is limited to scopes; this route needs a key without scopes.');

    await expectFitsPhoneAndDesktop(ada, 'Settings with a new agent key and its MCP configs', 'agent-key-created');
    await section.getByRole('button', { name: 'Done' }).click();
    assertCleanRun(watch);
  });

  it('a member makes an agent key and sees no Agents’ access; the owner revokes it there, and it gets 401', async () => {
    await ben.goto('/settings');
    const secret = await createAgentKey(ben, 'Ben’s agent');
    assert.equal((await call(secret, 'GET', '/v1/me')).status, 200);
    await visible(keysOf(ben).getByRole('row', { name: /Ben’s agent/ }));
    assert.equal(await agentsOf(ben).count(), 0);
    assert.equal(await ben.getByRole('link', { name: 'Agents’ access' }).count(), 0);

    await ada.goto('/settings');
    const agents = agentsOf(ada);
    const row = agents.getByRole('row', { name: /Ben’s agent/ });
    await visible(row);
    await visible(row.getByText('Ben Okafor'));
    await visible(row.getByText(AGENT_SCOPES));
    await visible(agents.getByRole('row', { name: /Claude desktop.*Ada Lovelace/ }));
    await expectFitsPhoneAndDesktop(ada, 'Settings → Agents’ access', 'agents-access');

    await row.getByRole('button', { name: 'Revoke Ben Okafor’s key Ben’s agent' }).click();
    await row.getByRole('button', { name: 'Revoke now' }).click();
    await gone(row);
    assert.equal((await call(secret, 'GET', '/v1/me')).status, 401);
    assert.equal((await call(secret, 'GET', '/v1/tasks')).status, 401);
    // Ben's own list no longer holds it either.
    await ben.reload();
    await visible(keysOf(ben).getByRole('row', { name: /e2e checks/ }));
    assert.equal(
      await keysOf(ben)
        .getByRole('row', { name: /Ben’s agent/ })
        .count(),
      0,
    );
    assertCleanRun(watch);
  });
});
