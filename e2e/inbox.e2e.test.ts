/**
 * Issue 30, the inbox, in a real browser against the real `tasklane serve`: Ada mentions Ben with
 * the keyboard's mention picker, Ben's bell counts it live, his inbox shows it, and opening the
 * task reads it; marking read and unread, and archiving. At phone and desktop widths with axe;
 * screenshots go to test-artifacts/ (30-1*.png), the inbox's to the README.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Page } from 'playwright-core';
import { describeInBrowser, launchBrowser, readmeScreenshot, requireBrowser } from './support/browser.js';
import { expectAccessible, expectFitsPhoneAndDesktop, openPage, visible, type WebappRun } from './support/pages.js';
import { eventually, startWorkspace } from './support/workspace.js';

const bell = (page: Page) => page.getByRole('link', { name: /^Inbox,/ });

describeInBrowser('The inbox: the bell, mentions by keyboard, and reading', () => {
  const run = { watch: { foreignRequests: [], errors: [], cspReports: [] } } as unknown as WebappRun;
  let ada: Page;
  let ben: Page;
  let taskId: number;

  before(async () => {
    requireBrowser();
    run.workspace = await startWorkspace();
    run.browser = await launchBrowser();
    const { api, ada: a, ben: b } = run.workspace;
    const list = (await api(a, 'POST', '/v1/lists', { name: 'Launch', sharedWithTeam: true })).body;
    taskId = (
      await api(a, 'POST', '/v1/tasks', { title: 'Book the venue', taskListIds: [list.id], assigneeIds: [b.id] })
    ).body.id;
    ada = await openPage(run, run.workspace.ada, 'Rocket');
    ben = await openPage(run, run.workspace.ben);
  });

  after(async () => {
    await run.browser?.close();
    await run.workspace?.close();
  });

  it('an empty inbox says what will come there; the bell says nothing is unread', async () => {
    const { api, ben: b } = run.workspace;
    await api(b, 'POST', '/v1/notifications/mark-all', { read: true });
    await ben.goto('/inbox');
    await ben.getByRole('checkbox', { name: 'Unread only' }).check();
    await visible(ben.getByText('Nothing unread.'));
    await eventually(async () => assert.equal(await bell(ben).getAttribute('aria-label'), 'Inbox, nothing unread'));
    await expectAccessible(ben, 'the inbox, empty');
    await ben.getByRole('checkbox', { name: 'Unread only' }).uncheck();
  });

  it('Ada mentions Ben with the picker, by keyboard; his bell counts it live and his inbox shows it', async () => {
    await ada.goto(`/tasks/${taskId}`);
    const box = ada.getByRole('form', { name: 'Add a comment' }).getByLabel('Comment (CommonMark)');
    await box.click();
    await box.pressSequentially('Can you call them, @be');
    const picker = ada.getByRole('listbox', { name: 'Mention a member' });
    await visible(picker);
    assert.match(await picker.getByRole('option', { selected: true }).innerText(), /^Ben Okafor\s+ben@example\.test$/);
    await expectAccessible(ada, 'the mention picker');
    await box.press('Enter');
    await box.pressSequentially('today?');
    assert.equal(await box.inputValue(), 'Can you call them, @"Ben Okafor" today?');
    await box.press('Control+Enter');
    await visible(ada.getByText('today?'));

    await eventually(async () => assert.equal(await bell(ben).getAttribute('aria-label'), 'Inbox, 1 unread'));
    await bell(ben).click();
    const mention = ben.getByRole('link', { name: /^Ada Lovelace mentioned you on #\d+ Book the venue$/ });
    await visible(mention);
    await expectAccessible(ben, 'the inbox');
    await expectFitsPhoneAndDesktop(ben, 'the inbox', '30-10-inbox');
    await readmeScreenshot(ben, '30-10-inbox-readme', 'inbox');
  });

  it('read and unread, archive; opening the task reads its notifications', async () => {
    const item = ben.locator('.inbox-item').filter({ hasText: 'mentioned you' });
    await item.getByRole('button', { name: /^Mark read/ }).click();
    await eventually(async () => assert.equal(await bell(ben).getAttribute('aria-label'), 'Inbox, nothing unread'));
    await item.getByRole('button', { name: /^Mark unread/ }).click();
    await eventually(async () => assert.equal(await bell(ben).getAttribute('aria-label'), 'Inbox, 1 unread'));
    await ben.getByRole('link', { name: /mentioned you on/ }).click();
    await visible(ben.getByRole('heading', { name: 'Book the venue' }));
    await eventually(async () => assert.equal(await bell(ben).getAttribute('aria-label'), 'Inbox, nothing unread'));
    await ben.goto('/inbox');
    const read = ben.locator('.inbox-item').filter({ hasText: 'mentioned you' });
    await visible(read);
    await read.getByRole('button', { name: /^Archive/ }).click();
    await eventually(async () =>
      assert.equal(await ben.locator('.inbox-item').filter({ hasText: 'mentioned you' }).count(), 0),
    );
  });
});
