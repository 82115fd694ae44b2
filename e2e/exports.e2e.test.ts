/**
 * Issue 32's export in headless Chromium against the real `tasklane serve`: Settings → Export
 * starts an export, follows it until the file is written, and downloads it (the session cookie is
 * the credential); the file is the team's gzip'd JSON Lines, whole (its "end" line), holding the
 * task made for it. A member's section says the file holds what they can read. Axe and 390 /
 * 1400 px widths on the section.
 */
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { after, before, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { assertCleanRun, describeInBrowser, launchBrowser, requireBrowser, type Watch } from './support/browser.js';
import { downloaded, expectFitsPhoneAndDesktop, openPage, visible, type WebappRun } from './support/pages.js';
import { startWorkspace, type Workspace } from './support/workspace.js';

const sectionOf = (page: Page) => page.getByRole('region', { name: 'Export' });

describeInBrowser('the team export in a real browser', () => {
  const watch: Watch = { foreignRequests: [], errors: [], cspReports: [] };
  const run = { watch } as unknown as WebappRun;
  let workspace: Workspace;
  let ada: Page;

  before(async () => {
    requireBrowser();
    workspace = await startWorkspace();
    run.workspace = workspace;
    run.browser = (await launchBrowser()) as Browser;
    const created = await workspace.api(workspace.ada, 'POST', '/v1/tasks', { title: 'Carried out in the export' });
    assert.equal(created.status, 201);
    ada = await openPage(run, workspace.ada, 'Rocket');
  });

  after(async () => {
    await run.browser?.close();
    await workspace?.close();
  });

  it('“Export now” writes the team’s file, and “Download” gets it whole', async () => {
    await ada.goto('/settings');
    const section = sectionOf(ada);
    await visible(section.getByText('No exports yet.'));
    await section.getByRole('button', { name: 'Export now' }).click();
    const download = section.getByRole('link', { name: 'Download' });
    await visible(download);
    const [file] = await Promise.all([ada.waitForEvent('download'), download.click()]);
    const lines = gunzipSync(await downloaded(file))
      .toString('utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; title?: string; scope?: string });
    assert.equal(lines[0]!.type, 'tasklane.export');
    assert.equal(lines[0]!.scope, 'team');
    assert.equal(lines.at(-1)!.type, 'end');
    assert.ok(lines.some((line) => line.type === 'task' && line.title === 'Carried out in the export'));

    await expectFitsPhoneAndDesktop(ada, 'Settings with an export ready', 'export-settings');
    assertCleanRun(watch);
  });
});
