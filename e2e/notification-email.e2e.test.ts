/**
 * Issue 30, email, in a real browser against the real `tasklane serve` sending to a real SMTP
 * server on loopback: Settings → Notifications (each kind's delivery, saved as chosen), and the
 * page a mail's "stop all email" link opens, at phone and desktop widths with axe. Screenshots go
 * to test-artifacts/ (30-*.png).
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startSmtpServer, type TestSmtpServer } from '../test/mail/smtp-server.js';
import { describeInBrowser, launchBrowser, newContext, requireBrowser } from './support/browser.js';
import { expectAccessible, expectFitsPhoneAndDesktop, openPage, visible, type WebappRun } from './support/pages.js';
import { eventually, startWorkspace } from './support/workspace.js';

const PUBLIC_URL = 'https://tasks.example.test';

describeInBrowser('Notification email: the preferences in Settings, and a mail’s unsubscribe page', () => {
  const run = { watch: { foreignRequests: [], errors: [], cspReports: [] } } as unknown as WebappRun;
  let smtp: TestSmtpServer;
  let ben: Page;

  before(async () => {
    requireBrowser();
    smtp = await startSmtpServer();
    run.workspace = await startWorkspace({
      SMTP_URL: smtp.url,
      MAIL_FROM: 'tasklane <tasklane@example.test>',
      PUBLIC_URL,
      MAIL_BATCH_SECONDS: '0',
      MAIL_POLL_MS: '50',
    });
    run.browser = await launchBrowser();
    ben = await openPage(run, run.workspace.ben);
  });

  after(async () => {
    await run.browser?.close();
    await run.workspace?.close();
    await smtp?.close();
  });

  it('Settings → Notifications shows each kind’s delivery and saves a change as it is made', async () => {
    await ben.goto('/settings#notifications-heading');
    const comments = ben.getByLabel('A comment on a task you follow');
    await visible(comments);
    assert.equal(await comments.inputValue(), 'inbox');
    assert.equal(await ben.getByLabel('You are assigned a task').inputValue(), 'inboxAndEmail');
    await comments.selectOption('inboxAndEmail');
    await visible(ben.getByText('A comment on a task you follow: inbox and email.'));
    await ben.reload();
    await eventually(async () =>
      assert.equal(await ben.getByLabel('A comment on a task you follow').inputValue(), 'inboxAndEmail'),
    );
    await expectAccessible(ben, 'Settings → Notifications');
    await ben.locator('#notifications').scrollIntoViewIfNeeded();
    await expectFitsPhoneAndDesktop(ben, 'Settings → Notifications', '30-01-notification-settings');
  });

  it('the link in a mail opens a page that asks, then stops all email; Settings then shows the inbox only', async () => {
    const { api, ada, ben: benPerson } = run.workspace;
    const task = (await api(ada, 'POST', '/v1/tasks', { title: 'Check the launch plan', assigneeIds: [benPerson.id] }))
      .body;
    const [mail] = await smtp.waitFor(1);
    assert.equal(mail!.headers.get('subject'), `Ada Lovelace assigned you to #${task.number} Check the launch plan`);
    const link = new RegExp(`${PUBLIC_URL}(/unsubscribe#[A-Za-z0-9_-]+)`).exec(mail!.text)?.[1];
    assert.ok(link, mail!.text);

    // Opened from the mail, in a browser where nobody is signed in.
    const context = await newContext(run.browser, run.workspace.url, run.watch);
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(link!);
    const stop = page.getByRole('button', { name: 'Stop all email' });
    await visible(stop);
    await expectAccessible(page, 'the unsubscribe page');
    await expectFitsPhoneAndDesktop(page, 'the unsubscribe page', '30-02-unsubscribe');
    await stop.click();
    await visible(page.getByRole('status').filter({ hasText: 'tasklane will send you no more email' }));
    await expectAccessible(page, 'the unsubscribe page, done');
    await context.close();

    // Ben's Settings, open since the first test, read afresh.
    await ben.reload();
    await eventually(async () => {
      assert.equal(await ben.getByLabel('You are assigned a task').inputValue(), 'inbox');
      assert.equal(await ben.getByLabel('A comment on a task you follow').inputValue(), 'inbox');
    });
  });

  it('a link cut short in the mail says so instead of failing', async () => {
    const context = await newContext(run.browser, run.workspace.url, run.watch);
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto('/unsubscribe');
    await visible(page.getByText('This link is incomplete: open it from the email again.'));
    assert.equal(await page.getByRole('button', { name: 'Stop all email' }).isDisabled(), true);
    await page.goto('/unsubscribe#not-a-real-token-at-all-0123');
    await page.getByRole('button', { name: 'Stop all email' }).click();
    await visible(page.getByText('This unsubscribe link is not valid or has expired.'));
    await context.close();
  });
});
