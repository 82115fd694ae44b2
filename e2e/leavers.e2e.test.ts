/**
 * Issue 25, items 4 and 8, in a real browser against the real `tasklane serve`: what a member
 * leaves behind. Ben keeps a private list and a webhook; the owner removes him in Settings →
 * Members, finds his list under "Lists without members" (which says when it is loading, when it
 * failed and when there is none), adds herself with "Add me" and opens it, on a desktop and on a
 * phone; and deletes his webhook in Settings → Webhooks. A plain member sees no such panel.
 * Screenshots go to test-artifacts/ (25-*.png).
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Page, Route } from 'playwright-core';
import { TEST_WEBHOOK_ENV } from '../test/harness.js';
import { assertCleanRun, describeInBrowser, launchBrowser, requireBrowser, screenshot } from './support/browser.js';
import { expectAccessible, fitsWidth, openPage, sidebarLink, visible, type WebappRun } from './support/pages.js';
import { startWorkspace } from './support/workspace.js';

const DESKTOP = { width: 1400, height: 900 };
const PHONE = { width: 390, height: 844 };
const LIST = 'Ben’s secret plans';

describeInBrowser('What a removed member leaves behind: lists without members, webhooks', () => {
  const run = { watch: { foreignRequests: [], errors: [], cspReports: [] } } as unknown as WebappRun;
  let ada: Page;
  let listId: number;
  let webhookId: string;

  const panelOf = (page: Page) => page.getByRole('group', { name: 'Lists without members' });
  const notice = (page: Page, text: string | RegExp) => page.locator('.notices').getByText(text);
  const settings = async (page: Page) => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await visible(page.getByRole('heading', { name: 'Members of Rocket' }));
  };

  before(async () => {
    requireBrowser();
    run.workspace = await startWorkspace({ ...TEST_WEBHOOK_ENV });
    run.browser = await launchBrowser();
    const { workspace } = run;
    const list = await workspace.api(workspace.ben, 'POST', '/v1/lists', { name: LIST, color: 'Purple' });
    assert.equal(list.status, 201);
    listId = list.body.id;
    const task = await workspace.api(workspace.ben, 'POST', '/v1/tasks', {
      title: 'Surprise party',
      taskListIds: [listId],
    });
    assert.equal(task.status, 201);
    const hook = await workspace.api(workspace.ben, 'POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/ben' });
    assert.equal(hook.status, 201);
    webhookId = hook.body.id;
    ada = await openPage(run, workspace.ada, 'Rocket', DESKTOP);
  });

  after(async () => {
    await run.browser?.close();
    await run.workspace?.close();
  });

  it('says while the lists without members load, when they could not be read, and when there are none', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const hold = async (route: Route) => {
      await held;
      await route.continue();
    };
    await ada.route('**/v1/lists-without-members', hold);
    await settings(ada);
    await visible(panelOf(ada).getByText('Loading the lists without members…'));
    release();
    await visible(panelOf(ada).getByText('Every list has a member.'));
    await ada.unroute('**/v1/lists-without-members', hold);

    const fail = (route: Route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({ error: 'The database is unavailable. Try again shortly.' }),
      });
    await ada.route('**/v1/lists-without-members', fail);
    await ada.reload();
    await visible(panelOf(ada).getByRole('alert').getByText('The database is unavailable. Try again shortly.'));
    await ada.unroute('**/v1/lists-without-members', fail);
    await ada.reload();
    await visible(panelOf(ada).getByText('Every list has a member.'));
    await expectAccessible(ada, 'Settings → Members with no list without members');
  });

  it('after Ben’s removal the owner finds his list, adds herself with “Add me” and opens it', async () => {
    const members = ada.getByRole('region', { name: 'Members of Rocket' });
    await members.getByRole('button', { name: 'Remove Ben Okafor' }).click();
    await ada.getByRole('button', { name: 'Remove from the team' }).click();
    await visible(notice(ada, 'Ben Okafor was removed from the team.'));
    const row = panelOf(ada).getByRole('listitem').filter({ hasText: LIST });
    await visible(row);
    await fitsWidth(ada);
    await screenshot(ada, '25-01-lists-without-members-desktop');
    await expectAccessible(ada, 'a list without members, on a desktop');

    const phone = await openPage(run, run.workspace.ada, 'Rocket', PHONE);
    await phone.goto('/settings');
    await visible(panelOf(phone).getByRole('button', { name: `Add me to ${LIST}` }));
    await fitsWidth(phone);
    await screenshot(phone, '25-02-lists-without-members-phone');
    await expectAccessible(phone, 'a list without members, on a phone');
    await phone.context().close();

    await row.getByRole('button', { name: `Add me to ${LIST}` }).click();
    await visible(notice(ada, `You are now a member of “${LIST}”.`));
    await visible(panelOf(ada).getByText('Every list has a member.'));
    await sidebarLink(ada, LIST).click();
    await visible(ada.getByRole('heading', { name: LIST }));
    await visible(ada.getByText('Surprise party'));
    const listMembers = await run.workspace.api(run.workspace.ada, 'GET', `/v1/lists/${listId}/members`);
    assert.deepEqual(
      listMembers.body.map((m: any) => m.name),
      ['Ada Lovelace'],
    );
  });

  it('the owner deletes the webhook Ben left behind', async () => {
    await ada.getByRole('link', { name: 'Settings' }).click();
    const hook = ada.getByRole('listitem', { name: 'Webhook http://127.0.0.1:9/ben' });
    await visible(hook.getByText('Its owner is no longer a member of the team.'));
    await visible(hook.getByText(/owner: Ben Okafor/));
    assert.equal(await hook.getByRole('button', { name: /Rotate|Send test|Deliveries|Enable/ }).count(), 0);
    await hook.getByRole('button', { name: 'Delete webhook http://127.0.0.1:9/ben' }).click();
    await ada.getByRole('button', { name: 'Delete now' }).click();
    await visible(notice(ada, 'Webhook deleted.'));
    await visible(ada.getByText('No webhooks yet.'));
    const gone = await run.workspace.api(run.workspace.ada, 'GET', `/v1/webhooks/${webhookId}`);
    assert.equal(gone.status, 404);
  });

  it('a plain member sees no lists-without-members panel', async () => {
    const moon = await openPage(run, run.workspace.ada, 'Moon base', DESKTOP);
    await moon.getByRole('link', { name: 'Settings' }).click();
    await visible(moon.getByRole('heading', { name: 'Members of Moon base' }));
    assert.equal(await panelOf(moon).count(), 0);
    await moon.context().close();
  });

  it('asked nothing of any other host and raised no page errors', () => assertCleanRun(run.watch));
});
