/**
 * Settings → Webhooks on a server whose operator turned webhooks off (WEBHOOK_SECRET_KEY=off; a
 * PostgreSQL deployment without the key reads the same): the page says so, and why, before
 * anything else, and offers no form that could only fail. The real `tasklane serve`, in Chromium.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Page } from 'playwright-core';
import { assertCleanRun, describeInBrowser, launchBrowser, requireBrowser } from './support/browser.js';
import { expectFitsPhoneAndDesktop, openPage, visible, type WebappRun } from './support/pages.js';
import { startWorkspace } from './support/workspace.js';

describeInBrowser('Settings → Webhooks when the server cannot make webhooks', () => {
  const run = { watch: { foreignRequests: [], errors: [], cspReports: [] } } as unknown as WebappRun;
  let ada: Page;

  before(async () => {
    requireBrowser();
    run.workspace = await startWorkspace({ WEBHOOK_SECRET_KEY: 'off' });
    run.browser = await launchBrowser();
    ada = await openPage(run, run.workspace.ada, 'Rocket');
  });

  after(async () => {
    await run.browser?.close();
    await run.workspace?.close();
  });

  it('says webhooks are off and why, before the section offers anything, and shows no form', async () => {
    await ada.getByRole('link', { name: 'Settings' }).click();
    const section = ada.locator('section[aria-labelledby="webhooks-heading"]');
    await visible(section.getByRole('heading', { name: 'Webhooks' }));
    const notice = section.getByRole('status');
    await visible(notice);
    assert.equal(
      (await notice.textContent())?.trim(),
      'Webhooks are off on this server: its operator turned them off.',
    );
    assert.equal(await section.getByLabel('Payload URL').count(), 0, 'no form that could only fail');
    assert.equal(await section.getByRole('button', { name: 'Create webhook' }).count(), 0);
    await visible(section.getByText('No webhooks yet.'));
    await expectFitsPhoneAndDesktop(ada, 'Settings with webhooks off', '17-webhooks-off');
  });

  it('asked nothing of any other host and raised no page errors', () => assertCleanRun(run.watch));
});
