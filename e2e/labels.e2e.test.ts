/**
 * Issue 29's labels in headless Chromium against the real `tasklane serve`: Settings → Labels
 * (an owner adds, renames, recolours and deletes; a plain member only sees them), the label
 * picker on a row (ticking one, and creating one by typing its name), chips on rows, board cards
 * and the detail, and the label filter, in the address. Each screen at 390 and 1400 px with no
 * control out of reach, and axe-core's checks. Screenshots go to test-artifacts/ (29-*.png).
 *
 * The tests share one workspace and run in order.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { assertCleanRun, describeInBrowser, launchBrowser, requireBrowser, type Watch } from './support/browser.js';
import { expectFitsPhoneAndDesktop, gone, openPage, visible, type WebappRun } from './support/pages.js';
import { eventually, startWorkspace, type Person, type Workspace } from './support/workspace.js';

describeInBrowser('labels in a real browser', () => {
  const watch: Watch = { foreignRequests: [], errors: [], cspReports: [] };
  const run = { watch } as unknown as WebappRun;
  let workspace: Workspace;
  let ada: Page;
  let launchId: number;
  const ids: Record<string, number> = {};

  const api = async (method: string, path: string, body?: unknown, who: Person = workspace.ada) => {
    const response = await workspace.api(who, method, path, body);
    assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  };
  const labelNames = async (title: string) =>
    (await api('GET', `/v1/tasks/${ids[title]}`)).labels.map((label: { name: string }) => label.name);
  const section = (page: Page) => page.getByRole('region', { name: 'Labels' });
  const row = (page: Page, title: string) => page.locator(`li.task[data-task-id="${ids[title]}"]`);

  before(async () => {
    requireBrowser();
    workspace = await startWorkspace();
    run.workspace = workspace;
    run.browser = (await launchBrowser()) as Browser;
    launchId = (await api('POST', '/v1/lists', { name: 'Launch', color: 'Blue' })).id;
    await api('POST', `/v1/lists/${launchId}/members`, { userId: workspace.ben.id });
    const bug = await api('POST', '/v1/labels', { name: 'Bug', color: 'Red' });
    for (const title of ['Fix the login', 'Write the docs']) {
      ids[title] = (await api('POST', '/v1/tasks', { title, taskListIds: [launchId] })).id;
    }
    ids['Old crash'] = (
      await api('POST', '/v1/tasks', { title: 'Old crash', taskListIds: [launchId], labelIds: [bug.id] })
    ).id;
    ada = await openPage(run, workspace.ada, 'Rocket', { width: 1400, height: 900 });
  });

  after(async () => {
    await run.browser?.close();
    await workspace?.close();
  });

  it('Settings → Labels: an owner adds, renames, recolours and deletes labels, on a phone and a desktop', async () => {
    await ada.goto('/settings');
    const labels = section(ada);
    await visible(labels.getByRole('listitem', { name: 'Label Bug' }));
    const form = labels.getByRole('form', { name: 'New label' });
    await form.getByLabel('New label').fill('Feature');
    await form.getByLabel('Colour').selectOption('Blue');
    await form.getByRole('button', { name: 'Add label' }).click();
    await visible(labels.getByRole('listitem', { name: 'Label Feature' }));

    const name = labels.getByLabel('Name of “Feature”');
    await name.fill('Features');
    await name.press('Enter');
    await visible(labels.getByRole('listitem', { name: 'Label Features' }));
    await labels.getByLabel('Colour of “Features”').selectOption('Green');
    await eventually(async () => {
      const all = await api('GET', '/v1/labels');
      assert.deepEqual(
        all.map((l: { name: string; color: string }) => `${l.name} ${l.color}`),
        ['Bug Red', 'Features Green'],
      );
    });
    await expectFitsPhoneAndDesktop(ada, 'Settings → Labels', '29-01-settings-labels');

    await labels.getByRole('button', { name: 'Delete “Features”' }).click();
    await labels.getByRole('button', { name: 'Delete it from every task' }).click();
    await gone(labels.getByRole('listitem', { name: 'Label Features' }));
    await visible(ada.locator('.notices').getByText('“Features” was deleted and taken off 0 tasks.'));
  });

  it('a plain member sees the labels in Settings but no control to change them', async () => {
    const ben = await openPage(run, workspace.ben);
    await ben.goto('/settings');
    const labels = section(ben);
    await visible(labels.getByText('Only the team’s owners and admins can change them.'));
    await visible(labels.getByText('Bug'));
    assert.equal(await labels.getByRole('form', { name: 'New label' }).count(), 0);
    assert.equal(await labels.getByRole('button', { name: /^Delete/ }).count(), 0);
    await ben.context().close();
  });

  it('on a row, the picker ticks a label and creates one typed by name; chips show on the row', async () => {
    await ada.goto(`/lists/${launchId}`);
    await visible(row(ada, 'Old crash').locator('.label-chip', { hasText: 'Bug' }));
    await row(ada, 'Fix the login').hover();
    await ada.getByRole('button', { name: 'Labels of “Fix the login”: No labels' }).click();
    await ada.getByRole('checkbox', { name: 'Bug' }).check();
    await eventually(async () => assert.deepEqual(await labelNames('Fix the login'), ['Bug']));
    const find = ada.getByLabel('Find or create a label');
    await find.fill('Urgent');
    await ada.getByRole('button', { name: 'Create “Urgent”' }).click();
    await eventually(async () => assert.deepEqual(await labelNames('Fix the login'), ['Bug', 'Urgent']));
    await ada.keyboard.press('Escape');
    for (const chip of ['Bug', 'Urgent'])
      await visible(row(ada, 'Fix the login').locator('.label-chip', { hasText: chip }));
    assert.equal(await row(ada, 'Write the docs').locator('.label-chip').count(), 0);
    await expectFitsPhoneAndDesktop(ada, 'a list with labelled rows', '29-02-rows');
  });

  it('the label filter keeps the tasks with any of the labels chosen, in the address', async () => {
    await ada.goto(`/lists/${launchId}`);
    await ada.getByRole('button', { name: 'Label: Any label' }).click();
    await ada.getByRole('checkbox', { name: 'Urgent' }).check();
    await ada.waitForURL(/labelId=\d+/);
    await gone(row(ada, 'Old crash'));
    await visible(row(ada, 'Fix the login'));
    assert.equal(await row(ada, 'Write the docs').count(), 0);
    await ada.keyboard.press('Escape');
    await ada.reload();
    await visible(ada.getByRole('button', { name: 'Label: Urgent' }));
    await visible(ada.getByText('1 task matches these filters'));
  });

  it('board cards and the task detail show the labels', async () => {
    await ada.goto(`/lists/${launchId}?view=board`);
    const card = ada.locator(`.board-card[data-task-id="${ids['Fix the login']}"]`);
    await visible(card.locator('.label-chip', { hasText: 'Urgent' }));
    await visible(
      ada.locator(`.board-card[data-task-id="${ids['Old crash']}"]`).locator('.label-chip', { hasText: 'Bug' }),
    );
    await expectFitsPhoneAndDesktop(ada, 'the board with labelled cards', '29-03-board');

    await ada.goto(`/tasks/${ids['Fix the login']}`);
    await visible(ada.getByRole('button', { name: 'Labels of “Fix the login”: Bug Urgent' }));
    await expectFitsPhoneAndDesktop(ada, 'a labelled task', '29-04-detail');
    assertCleanRun(watch);
  });
});
