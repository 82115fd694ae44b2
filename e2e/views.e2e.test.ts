/**
 * Issue 29, part C, in a real browser against the real `tasklane serve`: sorting a list from its
 * column headers (at phone and desktop widths), and a saved view Ada shares with the team: Ben
 * finds it in his sidebar, it opens at its URL, and it shows him only the tasks he can read.
 * Screenshots go to test-artifacts/ (29c-*.png).
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Page } from 'playwright-core';
import { describeInBrowser, launchBrowser, requireBrowser } from './support/browser.js';
import {
  DESKTOP,
  PHONE,
  expectAccessible,
  expectFitsPhoneAndDesktop,
  openPage,
  sidebarOf,
  visible,
  type WebappRun,
} from './support/pages.js';
import { eventually, startWorkspace } from './support/workspace.js';

/** The titles of the rows shown, top to bottom. */
const titles = (page: Page) => page.locator('main .task-list > li .task-link').allTextContents();

describeInBrowser('Sorting from the column headers, and a saved view shared with the team', () => {
  const run = { watch: { foreignRequests: [], errors: [], cspReports: [] } } as unknown as WebappRun;
  let ada: Page;
  let ben: Page;
  let listId: number;

  before(async () => {
    requireBrowser();
    run.workspace = await startWorkspace();
    run.browser = await launchBrowser();
    const { api, ada: a, ben: b } = run.workspace;
    const list = (await api(a, 'POST', '/v1/lists', { name: 'Team plans', sharedWithTeam: true })).body;
    const own = (await api(a, 'POST', '/v1/lists', { name: 'Ada only' })).body;
    listId = list.id;
    const task = (body: object) => api(a, 'POST', '/v1/tasks', body);
    await task({ title: 'Charlie', priority: 'low', dueDate: '2026-03-01', taskListIds: [list.id] });
    await task({
      title: 'alpha',
      priority: 'urgent',
      dueDate: '2026-01-01',
      taskListIds: [list.id],
      assigneeIds: [a.id, b.id],
    });
    await task({ title: 'Bravo', taskListIds: [list.id] });
    await task({ title: 'Secret plan', priority: 'urgent', taskListIds: [own.id], assigneeIds: [a.id] });
    ada = await openPage(run, run.workspace.ada, 'Rocket');
    ben = await openPage(run, run.workspace.ben);
  });

  after(async () => {
    await run.browser?.close();
    await run.workspace?.close();
  });

  it('the list sorts from its column headers: ascending, descending, then newest first again', async () => {
    await ada.goto(`/lists/${listId}`);
    await eventually(async () => assert.deepEqual(await titles(ada), ['Bravo', 'alpha', 'Charlie']));
    for (const size of [DESKTOP, PHONE]) {
      await ada.setViewportSize(size);
      const due = ada.getByRole('button', { name: /^Due,/ });
      await due.click();
      await eventually(async () => assert.deepEqual(await titles(ada), ['alpha', 'Charlie', 'Bravo']));
      assert.match(ada.url(), /[?&]sort=dueDate\b/);
      assert.equal(await due.getAttribute('aria-label'), 'Due, sorted ascending');
      await expectAccessible(ada, `a list sorted by due date (${size.width} px)`);
      await due.click();
      await eventually(async () => assert.deepEqual(await titles(ada), ['Charlie', 'alpha', 'Bravo']));
      await due.click();
      await eventually(async () => assert.deepEqual(await titles(ada), ['Bravo', 'alpha', 'Charlie']));
    }
    await ada.getByRole('button', { name: /^Task,/ }).click();
    await eventually(async () => assert.deepEqual(await titles(ada), ['alpha', 'Bravo', 'Charlie']));
    await expectFitsPhoneAndDesktop(ada, 'a list sorted by title', '29c-01-sorted');
  });

  it('a view Ada saves and shares appears in Ben’s sidebar, opens at its URL, and shows him only what he can read', async () => {
    await ada.setViewportSize(DESKTOP);
    await ada.goto('/?priority=urgent&sort=title');
    await eventually(async () => assert.deepEqual(await titles(ada), ['alpha', 'Secret plan']));
    await sidebarOf(ada).getByRole('button', { name: '+ Save view' }).click();
    const form = ada.getByRole('form', { name: 'Save view' });
    await form.getByLabel('View name').fill('Urgent work');
    await form.getByRole('checkbox', { name: 'Share with the team' }).check();
    await expectFitsPhoneAndDesktop(ada, 'the save-view form', '29c-02-save-view-form');
    await form.getByRole('button', { name: 'Save view' }).click();
    await visible(ada.getByRole('heading', { name: 'Urgent work' }));
    const url = new URL(ada.url());
    assert.match(url.pathname, /^\/views\/\d+$/);
    await eventually(async () => assert.deepEqual(await titles(ada), ['alpha', 'Secret plan']));

    // Views send no events: Ben's sidebar shows it once it is read again (here, a reload).
    await ben.reload();
    const link = sidebarOf(ben).getByRole('link', { name: /Urgent work/ });
    await visible(link);
    await link.click();
    await eventually(async () => assert.equal(new URL(ben.url()).pathname, url.pathname));
    await eventually(async () => assert.deepEqual(await titles(ben), ['alpha']));
    await expectFitsPhoneAndDesktop(ben, 'a view shared with the team', '29c-02-shared-view');

    await ben.goto(url.pathname);
    await visible(ben.getByRole('heading', { name: 'Urgent work' }));
    await eventually(async () => assert.deepEqual(await titles(ben), ['alpha']));
    assert.equal(await ben.getByRole('button', { name: 'Delete view' }).count(), 0, 'Ben may open it, not delete it');
  });

  it('Ada saves a new order as her shared view’s own with "Save changes"; Ben, who may not manage it, is not offered it', async () => {
    await ada.setViewportSize(DESKTOP);
    await sidebarOf(ada)
      .getByRole('link', { name: /Urgent work/ })
      .click();
    await visible(ada.getByRole('heading', { name: 'Urgent work' }));
    await eventually(async () => assert.deepEqual(await titles(ada), ['alpha', 'Secret plan']));
    const saveChanges = (page: Page) => page.getByRole('button', { name: 'Save changes' });
    assert.equal(await saveChanges(ada).count(), 0, 'nothing to save while the page shows the view as saved');
    await ada.getByRole('button', { name: /^Task,/ }).click();
    await eventually(async () => assert.deepEqual(await titles(ada), ['Secret plan', 'alpha']));
    await expectAccessible(ada, 'a view with unsaved changes');
    await expectFitsPhoneAndDesktop(ada, 'a view with unsaved changes', '29c-04-unsaved-view');
    await saveChanges(ada).click();
    await eventually(async () => assert.equal(new URL(ada.url()).search, ''));
    await ada.reload();
    await visible(ada.getByRole('heading', { name: 'Urgent work' }));
    await eventually(async () => assert.deepEqual(await titles(ada), ['Secret plan', 'alpha']));
    assert.equal(await saveChanges(ada).count(), 0, 'saved: the view now is what the page shows');

    await ben.goto(new URL(ada.url()).pathname);
    await eventually(async () => assert.deepEqual(await titles(ben), ['alpha']));
    // From the view's order (by title, descending) to the default one: the page now differs from the view.
    await ben.getByRole('button', { name: /^Task,/ }).click();
    await eventually(async () => assert.notEqual(new URL(ben.url()).search, ''));
    assert.equal(await saveChanges(ben).count(), 0, 'Ben may change the page, not the view');
  });

  it('a view that does not exist, or is someone else’s private one, says so', async () => {
    const { api, ada: a } = run.workspace;
    const own = (await api(a, 'POST', '/v1/views', { name: 'Mine', filters: {}, layout: 'rows' })).body;
    await ben.goto(`/views/${own.id}`);
    await visible(ben.getByText(`View ${own.id} not found.`));
    await expectFitsPhoneAndDesktop(ben, 'a view not found', '29c-03-missing');
  });
});
