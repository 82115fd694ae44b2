/**
 * Issue 28 in a real browser against the real `tasklane serve`: lists the whole team sees. A
 * member who is in no list is told whom to ask; the owner's first list is shared with the whole
 * team unless she unticks it, and appears live for her teammates; an invited colleague who joins
 * finds it in the sidebar on arrival; the owner adds the newcomer to her other lists in one step
 * from Settings → Members; the list's members dialog shows the sharing, with nobody to remove.
 * Screenshots go to test-artifacts/ (28-*.png).
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Page } from 'playwright-core';
import { describeInBrowser, launchBrowser, newContext, requireBrowser, screenshot } from './support/browser.js';
import {
  expectAccessible,
  expectFitsPhoneAndDesktop,
  openPage,
  sidebarOf,
  visible,
  type WebappRun,
} from './support/pages.js';
import { eventually, startWorkspace } from './support/workspace.js';

/** A list's link in the sidebar (My tasks links the lists too). */
const listInSidebar = (page: Page, name: string) => sidebarOf(page).getByRole('link', { name, exact: true });

const DEE = { name: 'Dee Newton', email: 'dee@example.test', password: 'dee-password-1' };

describeInBrowser('Lists the whole team sees: shared lists, a newcomer’s lists, the empty sidebar', () => {
  const run = { watch: { foreignRequests: [], errors: [], cspReports: [] } } as unknown as WebappRun;
  let ada: Page;
  let ben: Page;
  let dee: Page;

  before(async () => {
    requireBrowser();
    run.workspace = await startWorkspace();
    run.browser = await launchBrowser();
    ada = await openPage(run, run.workspace.ada, 'Rocket');
    ben = await openPage(run, run.workspace.ben);
  });

  after(async () => {
    await run.browser?.close();
    await run.workspace?.close();
  });

  it('a member who is in no list is told to ask the team’s owners and admins, by name, not to make one', async () => {
    const ask = 'ask Ada Lovelace or Cy Park to add you to the team’s lists';
    await visible(sidebarOf(ben).getByText(ask));
    await visible(ben.locator('main').getByText(ask));
    assert.equal(await ben.getByText('make one with “+ New list”').count(), 0);
    await expectFitsPhoneAndDesktop(ben, 'a member in no list', '28-01-no-lists');
  });

  it('the owner’s first list is shared with the whole team by default, and appears live for her teammates', async () => {
    await sidebarOf(ada).getByRole('button', { name: '+ New list' }).click();
    const form = ada.getByRole('form', { name: 'New list' });
    const share = form.getByRole('checkbox', { name: /Share with the whole team/ });
    assert.equal(await share.isChecked(), true, 'a first list is shared unless unticked');
    await expectAccessible(ada, 'the new-list form');
    await form.getByLabel('List name').fill('Team plans');
    await form.getByRole('button', { name: 'Create list' }).click();
    await visible(listInSidebar(ada, 'Team plans'));
    await visible(listInSidebar(ben, 'Team plans'));

    // A second list starts unticked: it stays Ada's own.
    await sidebarOf(ada).getByRole('button', { name: '+ New list' }).click();
    assert.equal(await share.isChecked(), false);
    await form.getByLabel('List name').fill('Ada’s notes');
    await form.getByRole('button', { name: 'Create list' }).click();
    await visible(listInSidebar(ada, 'Ada’s notes'));
    const { body: lists } = await run.workspace.api(run.workspace.ada, 'GET', '/v1/lists');
    assert.deepEqual(
      lists.map((list: any) => [list.name, list.sharedWithTeam]),
      [
        ['Team plans', true],
        ['Ada’s notes', false],
      ],
    );
    assert.equal(await listInSidebar(ben, 'Ada’s notes').count(), 0);
  });

  it('an invited colleague who joins through the link sees the team’s shared list on arrival', async () => {
    const invitation = await run.workspace.api(run.workspace.ada, 'POST', '/v1/invitations', {
      role: 'member',
      email: DEE.email,
    });
    assert.equal(invitation.status, 201);
    const context = await newContext(run.browser, run.workspace.url, run.watch);
    dee = await context.newPage();
    dee.setDefaultTimeout(10_000);
    await dee.goto(invitation.body.link);
    await dee.getByLabel('Your name').fill(DEE.name);
    await dee.getByLabel('Password', { exact: true }).fill(DEE.password);
    await dee.getByLabel('Repeat the password').fill(DEE.password);
    await dee.getByRole('button', { name: 'Join Rocket' }).click();
    await visible(dee.getByRole('heading', { name: 'My tasks' }));
    await visible(listInSidebar(dee, 'Team plans'));
    assert.equal(await listInSidebar(dee, 'Ada’s notes').count(), 0);
    await screenshot(dee, '28-02-newcomer-arrives');
  });

  it('the owner sees which of her lists the newcomer is not in, and adds them in one step', async () => {
    await ada.getByRole('link', { name: 'Settings' }).click();
    const members = ada.getByRole('region', { name: 'Members of Rocket' });
    await visible(members.getByRole('cell', { name: DEE.name, exact: true }));
    await members.getByRole('button', { name: `Lists of ${DEE.name}` }).click();
    const dialog = ada.getByRole('dialog', { name: `Lists of ${DEE.name}` });
    const notes = dialog.getByRole('checkbox', { name: 'Ada’s notes' });
    await visible(notes);
    assert.equal(await notes.isChecked(), true);
    assert.equal(await dialog.getByRole('checkbox', { name: 'Team plans' }).count(), 0, 'she is in it already');
    await expectFitsPhoneAndDesktop(ada, 'a newcomer’s lists', '28-03-member-lists');
    await dialog.getByRole('button', { name: 'Add to 1 list' }).click();
    await visible(dialog.getByText(`${DEE.name} is in every list you are in.`));
    await visible(listInSidebar(dee, 'Ada’s notes'));
    await dialog.getByRole('button', { name: 'Close' }).click();
  });

  it('the list’s members dialog shows the sharing, with nobody to remove, and unsharing keeps everyone', async () => {
    await sidebarOf(ada).getByRole('button', { name: 'Actions for list Team plans' }).click();
    await ada.getByRole('button', { name: 'Share…' }).click();
    const dialog = ada.getByRole('dialog', { name: 'Share “Team plans”' });
    const share = dialog.getByRole('checkbox', { name: /Share with the whole team/ });
    await visible(dialog.getByRole('listitem').filter({ hasText: DEE.name }));
    assert.equal(await share.isChecked(), true);
    assert.equal(await dialog.getByRole('button', { name: /^Remove / }).count(), 0);
    await expectAccessible(ada, 'a shared list’s members');
    await share.click();
    await visible(dialog.getByRole('button', { name: `Remove ${DEE.name} from Team plans` }));
    await eventually(async () => {
      const { body } = await run.workspace.api(run.workspace.ada, 'GET', '/v1/lists');
      assert.equal(body.find((list: any) => list.name === 'Team plans').sharedWithTeam, false);
    });
    assert.equal(await dialog.getByRole('listitem').count(), 4, 'Ada, Ben, Cy and Dee stay');
  });
});
