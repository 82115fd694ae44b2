/**
 * Issue 32's CSV of tasks in headless Chromium against the real `tasklane serve`: "Download CSV"
 * (behind "More filters") on a list filtered in the address downloads exactly the tasks shown, with the page's filters
 * (the session cookie is the credential); the control fits a phone and a desktop, and axe passes.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { assertCleanRun, describeInBrowser, launchBrowser, requireBrowser, type Watch } from './support/browser.js';
import { downloaded, expectFitsPhoneAndDesktop, openPage, visible, type WebappRun } from './support/pages.js';
import { startWorkspace, type Workspace } from './support/workspace.js';

describeInBrowser('tasks as CSV in a real browser', () => {
  const watch: Watch = { foreignRequests: [], errors: [], cspReports: [] };
  const run = { watch } as unknown as WebappRun;
  let workspace: Workspace;
  let ada: Page;
  let listId: number;

  const api = async (method: string, path: string, body?: unknown) => {
    const response = await workspace.api(workspace.ada, method, path, body);
    assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  };

  before(async () => {
    requireBrowser();
    workspace = await startWorkspace();
    run.workspace = workspace;
    run.browser = (await launchBrowser()) as Browser;
    listId = (await api('POST', '/v1/lists', { name: 'Launch', color: 'Blue' })).id;
    await api('POST', '/v1/tasks', { title: 'Print the posters', priority: 'high', taskListIds: [listId] });
    await api('POST', '/v1/tasks', { title: 'Book the hall', priority: 'low', taskListIds: [listId] });
    await api('POST', '/v1/tasks', { title: 'Elsewhere', priority: 'high' });
    ada = await openPage(run, workspace.ada, 'Rocket');
  });

  after(async () => {
    await run.browser?.close();
    await workspace?.close();
  });

  it('“Download CSV” on a filtered list downloads exactly the tasks the page shows', async () => {
    await ada.goto(`/lists/${listId}?priority=high`);
    await visible(ada.getByText('Print the posters'));
    await ada.getByRole('button', { name: /^More filters/ }).click();
    const link = ada.getByRole('link', { name: 'Download CSV' });
    const [download] = await Promise.all([ada.waitForEvent('download'), link.click()]);
    assert.match(download.suggestedFilename(), /^tasks-\d{4}-\d{2}-\d{2}\.csv$/);
    const text = (await downloaded(download)).toString('utf8').replace(/^\ufeff/, '');
    const lines = text.trimEnd().split('\r\n');
    assert.equal(lines[0]!.split(',')[1], 'Title');
    assert.deepEqual(
      lines.slice(1).map((line) => line.split(',')[1]),
      ['Print the posters'],
    );

    await expectFitsPhoneAndDesktop(ada, 'the filtered list with its CSV link', 'csv-list');
    assertCleanRun(watch);
  });
});
