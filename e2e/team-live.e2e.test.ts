/**
 * Issue 28 in a real browser against the real `tasklane serve`: the first start's team is set
 * up by its owner in one form at the first sign-in with the printed password; a team renamed in
 * Settings → Team shows its new name at once in a teammate's open app; and Settings → Members
 * follows the team live: a colleague who joins appears, and the link they used leaves the
 * pending invitations, without a reload. Screenshots go to test-artifacts/ (28-*.png).
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Page } from 'playwright-core';
import { tempDatabase, type TempDatabase } from '../test/harness.js';
import { printedKey, serve, type Serving } from '../test/processes.js';
import { assertCleanRun, describeInBrowser, launchBrowser, newContext, requireBrowser } from './support/browser.js';
import { expectFitsPhoneAndDesktop, gone, openPage, visible, type WebappRun } from './support/pages.js';
import { eventually, startWorkspace } from './support/workspace.js';

/** Marks the page, so a test can tell it was never reloaded (a reload forgets the mark). */
const markPage = (page: Page) => page.evaluate('window.__notReloaded = true');
const stillSamePage = async (page: Page) =>
  assert.equal(await page.evaluate('window.__notReloaded === true'), true, 'the page was reloaded');

describeInBrowser('The first start sets the team up; the team and its members live', () => {
  const run = { watch: { foreignRequests: [], errors: [], cspReports: [] } } as unknown as WebappRun;

  before(async () => {
    requireBrowser();
    run.workspace = await startWorkspace();
    run.browser = await launchBrowser();
  });

  after(async () => {
    await run.browser?.close();
    await run.workspace?.close();
  });

  it("the first sign-in with the printed password asks for the team's name, the owner's name, email and a new password in one form, then lands in the app", async () => {
    const database: TempDatabase = await tempDatabase();
    let server: Serving | undefined;
    try {
      server = await serve(database.url, { RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'error' });
      const printed = await eventually(async () => {
        const match = /web sign-in:\s+(\S+) \/ (\S+)$/m.exec(server!.stdout());
        assert.ok(match, `no sign-in line yet:\n${server!.stdout()}`);
        return { email: match[1]!, password: match[2]!, key: printedKey(server!.stdout()).key };
      });
      const context = await newContext(run.browser, server.url, run.watch);
      const page = await context.newPage();
      page.setDefaultTimeout(10_000);
      await page.goto('/');
      await page.getByLabel('Email').fill(printed.email);
      await page.getByLabel('Password').fill(printed.password);
      await page.getByRole('button', { name: 'Sign in' }).click();

      const form = page.getByRole('form', { name: 'Set up your team' });
      await visible(form);
      assert.equal(await form.getByLabel('Your email').inputValue(), '', 'the placeholder email is not offered');
      await expectFitsPhoneAndDesktop(page, 'the first start’s set-up', '28-01-setup');
      await form.getByLabel('Team name').fill('Acme');
      await form.getByLabel('Your name').fill('Grace Hopper');
      await form.getByLabel('Your email').fill('grace@acme.test');
      await form.getByLabel('New password', { exact: true }).fill('grace-password-1');
      await form.getByLabel('Repeat the new password').fill('grace-password-2');
      await form.getByRole('button', { name: 'Set up and continue' }).click();
      await visible(form.getByText('The passwords do not match.'));
      await form.getByLabel('Repeat the new password').fill('grace-password-1');
      await form.getByRole('button', { name: 'Set up and continue' }).click();

      await visible(page.getByRole('heading', { name: 'My tasks' }));
      await visible(page.locator('.team-name', { hasText: 'Acme' }));
      await visible(page.locator('.user-name', { hasText: 'Signed in as Grace Hopper' }));
      // Set up for good: a reload goes straight to the app, and the new password signs in.
      await page.reload();
      await visible(page.getByRole('heading', { name: 'My tasks' }));
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('Email').fill('grace@acme.test');
      await page.getByLabel('Password').fill('grace-password-1');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await visible(page.getByRole('heading', { name: 'My tasks' }));
      // The printed API key keeps working.
      const me = await fetch(`${server.url}/v1/me`, { headers: { 'x-api-key': printed.key } });
      assert.equal(me.status, 200);
      assert.equal(((await me.json()) as { team: { name: string } }).team.name, 'Acme');
      await context.close();
    } finally {
      await server?.stop();
      await database.remove();
    }
  });

  it('Settings → Members follows the team live: a colleague who joins appears, and the link they used leaves the pending list', async () => {
    const { workspace } = run;
    const ada = await openPage(run, workspace.ada, 'Rocket');
    await ada.getByRole('link', { name: 'Settings' }).click();
    const members = ada.getByRole('region', { name: 'Members of Rocket' });
    await visible(members.getByRole('cell', { name: 'Ben Okafor', exact: true }));
    await visible(members.getByText('No pending invitations.'));
    await markPage(ada);

    // Cy, an admin, invites from elsewhere (the API): Ada's pending list shows it at once.
    const made = await workspace.api(workspace.cy, 'POST', '/v1/invitations', {
      role: 'member',
      email: 'eve@example.test',
    });
    assert.equal(made.status, 201);
    const pending = members.getByRole('table', { name: 'Pending invitations' });
    await visible(pending.getByRole('cell', { name: 'eve@example.test', exact: true }));
    await expectFitsPhoneAndDesktop(ada, 'Settings → Members with a pending invitation', '28-02-members-pending');

    // Eve joins with the link, in a browser of her own.
    const eve = await (await newContext(run.browser, workspace.url, run.watch)).newPage();
    eve.setDefaultTimeout(10_000);
    await eve.goto(made.body.link);
    await eve.getByLabel('Your name').fill('Eve Quill');
    await eve.getByLabel('Password', { exact: true }).fill('eve-password-1');
    await eve.getByLabel('Repeat the password').fill('eve-password-1');
    await eve.getByRole('button', { name: /^Join Rocket/ }).click();
    await visible(eve.getByRole('heading', { name: 'My tasks' }));

    await visible(members.getByRole('cell', { name: 'Eve Quill', exact: true }));
    await gone(pending);
    await visible(members.getByText('No pending invitations.'));
    await stillSamePage(ada);
    await expectFitsPhoneAndDesktop(ada, 'Settings → Members after a colleague joined', '28-03-members-joined');
    await eve.context().close();
    await ada.context().close();
  });

  it("a team renamed in Settings → Team shows its new name at once in a teammate's open app", async () => {
    const { workspace } = run;
    const ben = await openPage(run, workspace.ben);
    await visible(ben.locator('.team-name', { hasText: 'Rocket' }));
    await visible(ben.locator('.user-name', { hasText: 'Signed in as Ben Okafor' }));
    await markPage(ben);

    const cy = await openPage(run, workspace.cy);
    await cy.getByRole('link', { name: 'Settings' }).click();
    const team = cy.getByRole('form', { name: 'Team' });
    await visible(team);
    await expectFitsPhoneAndDesktop(cy, 'Settings with the team section', '28-04-settings-team');
    await team.getByLabel('Team name').fill('Rocket Lab');
    await team.getByRole('button', { name: 'Rename team' }).click();
    await visible(cy.locator('.notices').getByText('The team is now called Rocket Lab.'));
    await visible(cy.locator('.team-name', { hasText: 'Rocket Lab' }));

    await visible(ben.locator('.team-name', { hasText: 'Rocket Lab' }));
    await stillSamePage(ben);
    // A plain member has no team section.
    await ben.getByRole('link', { name: 'Settings' }).click();
    await visible(ben.getByRole('heading', { name: 'Profile' }));
    assert.equal(await ben.getByRole('form', { name: 'Team' }).count(), 0);
    await visible(ben.getByText('Your email is your sign-in; the server’s operator can change it.'));
    await ben.context().close();
    await cy.context().close();
  });

  it('an owner changes their own email in Settings → Profile, confirmed with their password', async () => {
    const { workspace } = run;
    const cy = await openPage(run, workspace.cy);
    await cy.getByRole('link', { name: 'Settings' }).click();
    const form = cy.getByRole('form', { name: 'Your email' });
    await form.getByLabel('Email').fill('cy.park@example.test');
    await form.getByLabel('Current password').fill('not the password');
    await form.getByRole('button', { name: 'Change email' }).click();
    await visible(form.getByText('The current password is wrong.'));
    await form.getByLabel('Email').fill('ben@example.test');
    await form.getByLabel('Current password').fill(workspace.cy.password);
    await form.getByRole('button', { name: 'Change email' }).click();
    await visible(form.getByText('ben@example.test is already the email of another account.'));
    await form.getByLabel('Email').fill('cy.park@example.test');
    await form.getByLabel('Current password').fill(workspace.cy.password);
    await form.getByRole('button', { name: 'Change email' }).click();
    await visible(cy.locator('.notices').getByText(/Your email is now cy\.park@example\.test/));
    const me = await workspace.api(workspace.cy, 'GET', '/v1/me');
    assert.equal(me.body.user.email, 'cy.park@example.test');
    await cy.context().close();
  });

  it('asked nothing of any other host and raised no page errors', () => assertCleanRun(run.watch));
});
