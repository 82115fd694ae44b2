/**
 * Issue 18 in a real browser against the real `tasklane serve`: a team runs itself. The owner
 * invites a newcomer, who joins through the link in a browser of their own and works with her
 * live; used, revoked, expired, unknown and cut links each get a page that says so; a
 * newcomer's form given the email of an account is refused as a wrong sign-in would be and
 * becomes the sign-in (it never says an email is taken, issue 25); workflow
 * statuses are added, renamed, recoloured, reordered, made default and done, and deleted with
 * their tasks moved, while a teammate's list follows live; an admin manages members but never an
 * owner, and once demoted has their links revoked, the next change refused and the controls gone
 * without a reload.
 * Screenshots go to test-artifacts/ (19-*.png); with README_SCREENSHOTS=1 Settings → Members
 * and the invitation page also to docs/screenshots/ for README.md.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Page } from 'playwright-core';
import { openStore } from '../src/storage/database.js';
import {
  assertCleanRun,
  describeInBrowser,
  launchBrowser,
  newContext,
  readmeElementScreenshot,
  requireBrowser,
  screenshot,
} from './support/browser.js';
import {
  choose,
  expectAccessible,
  fitsWidth,
  gone,
  openPage,
  sidebarOf,
  taskByTitle,
  visible,
  type WebappRun,
} from './support/pages.js';
import { eventually, startWorkspace } from './support/workspace.js';

const DEE = { name: 'Dee Newton', email: 'dee@example.test', password: 'dee-password-1' };
const MAYBE_HAS_ACCOUNT = 'If you already have a tasklane account with this email, enter its password to join.';
const DESKTOP = { width: 1400, height: 900 };
const PHONE = { width: 390, height: 844 };

describeInBrowser('A team runs itself from the browser: invitations, members, workflow statuses', () => {
  const run = { watch: { foreignRequests: [], errors: [], cspReports: [] } } as unknown as WebappRun;
  let ada: Page;
  let dee: Page;
  let deeLink: string;

  const membersOf = (page: Page) => page.getByRole('region', { name: 'Members of Rocket' });
  const statusesOf = (page: Page) => page.getByRole('region', { name: 'Workflow statuses' });
  const statusRow = (page: Page, name: string) => page.getByRole('listitem', { name: `Status ${name}`, exact: true });
  const notice = (page: Page, text: string | RegExp) => page.locator('.notices').getByText(text);
  const statusNames = async () =>
    (await run.workspace.api(run.workspace.ada, 'GET', '/v1/task-statuses')).body.map((s: any) => s.name);

  /** A link opened in a page of its own in a fresh browser context (nobody signed in). */
  const openLink = async (link: string, viewport?: { width: number; height: number }): Promise<Page> => {
    const context = await newContext(run.browser, run.workspace.url, run.watch, viewport);
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(link);
    return page;
  };

  /** Ada makes an invitation in Settings → Members and reads its link from the box that shows it once. */
  const invite = async (email: string | null, role = 'member', days = '7'): Promise<string> => {
    const form = ada.getByRole('form', { name: 'Invite someone' });
    await form.getByLabel('Role').selectOption(role);
    await form.getByLabel('Email (optional)').fill(email ?? '');
    await form.getByLabel('Link works for').selectOption(days);
    await form.getByRole('button', { name: 'Create invitation link' }).click();
    const box = ada.getByRole('region', { name: 'New invitation link' });
    await visible(box);
    return box.getByLabel('Invitation link').inputValue();
  };

  before(async () => {
    requireBrowser();
    run.workspace = await startWorkspace();
    run.browser = await launchBrowser();
    ada = await openPage(run, run.workspace.ada, 'Rocket');
  });

  after(async () => {
    await run.browser?.close();
    await run.workspace?.close();
  });

  it('the owner invites by email: the link is shown once with a copy button, and waits among the pending', async () => {
    await ada.getByRole('link', { name: 'Settings' }).click();
    await visible(membersOf(ada).getByText('The last owner: make another member an owner first.'));
    deeLink = await invite(DEE.email, 'member', '3');
    assert.match(deeLink, new RegExp(`^${run.workspace.url}/join#[A-Za-z0-9_-]{20,}$`));
    const box = ada.getByRole('region', { name: 'New invitation link' });
    await visible(box.getByText('you won’t see it again'));
    await box.getByRole('button', { name: 'Copy link' }).click();
    await visible(box.getByText('Copied to the clipboard.'));
    assert.equal(await ada.evaluate('navigator.clipboard.readText()'), deeLink);

    const pending = membersOf(ada).getByRole('table', { name: 'Pending invitations' });
    await visible(pending.getByRole('cell', { name: DEE.email, exact: true }));
    await visible(pending.getByRole('button', { name: `Revoke the invitation for ${DEE.email}` }));
    await screenshot(ada, '19-01-settings');
    await readmeElementScreenshot(membersOf(ada), '19-01-settings-members', 'settings-members');
    await expectAccessible(ada, 'Settings → Members with a new invitation');

    await box.getByRole('button', { name: 'Done' }).click();
    await gone(box);
    await ada.reload();
    await visible(pending.getByRole('cell', { name: DEE.email, exact: true }));
    assert.ok(!(await ada.content()).includes(deeLink.split('#')[1]!), 'the link is never shown again');
  });

  it('the newcomer opens the link in a browser of their own, makes an account and lands in the team, signed in', async () => {
    dee = await openLink(deeLink);
    await visible(dee.getByRole('heading', { name: 'Join Rocket' }));
    await visible(dee.getByText('Ada Lovelace invited you to join Rocket as a member.'));
    const email = dee.getByLabel('Email');
    assert.equal(await email.inputValue(), DEE.email);
    assert.equal(await email.getAttribute('readonly'), '', 'the invitation fixes the email');
    await screenshot(dee, '19-02-invitation-page');
    await readmeElementScreenshot(dee.locator('.auth-card'), '19-02-invitation', 'invitation');
    await expectAccessible(dee, 'the invitation page');

    await dee.getByLabel('Your name').fill(DEE.name);
    await dee.getByLabel('Password', { exact: true }).fill('short');
    await dee.getByLabel('Repeat the password').fill('short');
    await dee.getByRole('button', { name: 'Join Rocket' }).click();
    await visible(dee.getByText('The password must be at least 8 characters long.'));
    await dee.getByLabel('Password', { exact: true }).fill(DEE.password);
    await dee.getByLabel('Repeat the password').fill(DEE.password);
    await dee.getByRole('button', { name: 'Join Rocket' }).click();
    await visible(dee.getByRole('heading', { name: 'My tasks' }));
    await visible(dee.locator('.connection-live'));
    assert.equal(new URL(dee.url()).pathname, '/');

    const { body: users } = await run.workspace.api(run.workspace.ada, 'GET', '/v1/users');
    assert.equal(users.find((user: any) => user.email === DEE.email)?.role, 'member');
    // Ada's page reads the members again when it is shown again (no event announces a newcomer).
    await ada.reload();
    await visible(membersOf(ada).getByRole('cell', { name: DEE.name, exact: true }));
    await visible(membersOf(ada).getByText('No pending invitations.'));
  });

  it('the owner and the newcomer see each other’s changes live', async () => {
    const { workspace } = run;
    const list = await workspace.api(workspace.ada, 'POST', '/v1/lists', { name: 'Onboarding', color: 'Teal' });
    await workspace.api(workspace.ada, 'POST', `/v1/lists/${list.body.id}/members`, { userId: await deeId() });
    const onboarding = (page: Page) => sidebarOf(page).getByRole('link', { name: 'Onboarding', exact: true });
    await visible(onboarding(dee));
    await onboarding(dee).click();
    await onboarding(ada).click();

    await dee.getByLabel('New task', { exact: true }).fill('Read the handbook');
    await dee.getByLabel('New task', { exact: true }).press('Enter');
    await visible(ada.getByRole('link', { name: 'Read the handbook', exact: true }));
    await choose(ada, 'Priority of “Read the handbook”', 'Urgent');
    await visible(dee.getByRole('button', { name: 'Priority of “Read the handbook”: Urgent' }));
    await ada.getByLabel('New task', { exact: true }).fill('Meet the team');
    await ada.getByLabel('New task', { exact: true }).press('Enter');
    await visible(dee.getByRole('link', { name: 'Meet the team', exact: true }));
  });

  it('used, revoked, expired, unknown and cut links each get a page that says so', async () => {
    const used = await openLink(deeLink);
    await visible(used.getByRole('heading', { name: 'This invitation can’t be used' }));
    await visible(used.getByText('This invitation has already been used.'));
    await expectAccessible(used, 'a used invitation');
    await screenshot(used, '19-03-invitation-used');

    // Revoked from Settings → Members, with a confirmation.
    await ada.getByRole('link', { name: 'Settings' }).click();
    const revokedLink = await invite(null);
    await ada.getByRole('region', { name: 'New invitation link' }).getByRole('button', { name: 'Done' }).click();
    await membersOf(ada).getByRole('button', { name: 'Revoke the invitation for anyone with the link' }).click();
    await ada.getByRole('button', { name: 'Revoke now' }).click();
    await visible(notice(ada, /its link no longer works/));
    await visible(membersOf(ada).getByText('No pending invitations.'));
    // Pasted into the same tab: only the fragment changes, and the page follows it.
    await used.goto(revokedLink);
    await visible(used.getByText('This invitation was revoked.'));

    // Expired: no request can age an invitation, so its expiry is moved into the past in the database.
    const expiring = await run.workspace.api(run.workspace.ada, 'POST', '/v1/invitations', { role: 'member' });
    assert.equal(expiring.status, 201);
    await expire(expiring.body.id);
    await used.goto(expiring.body.link);
    await visible(used.getByText('This invitation has expired.'));

    await used.goto('/join#not-a-real-token');
    await visible(used.getByText('This invitation link is not valid.'));
    const cut = await openLink('/join');
    await visible(cut.getByRole('heading', { name: 'This invitation link is incomplete' }));
    await cut.getByRole('link', { name: 'Go to sign in' }).click();
    await visible(cut.getByRole('heading', { name: 'Sign in' }));
    await used.context().close();
    await cut.context().close();
  });

  it('workflow statuses: added, renamed, recoloured, reordered, made default and done; a teammate’s list follows live', async () => {
    await ada.getByRole('link', { name: 'Settings' }).click();
    const statuses = statusesOf(ada);
    await visible(statusRow(ada, 'To do'));
    const form = statuses.getByRole('form', { name: 'New status' });
    await form.getByLabel('New status').fill('Review');
    await form.getByLabel('Colour').fill('#9333ea');
    await form.getByRole('button', { name: 'Add status' }).click();
    await visible(statusRow(ada, 'Review'));
    assert.deepEqual(await statusNames(), ['To do', 'In progress', 'Done', 'Review']);

    // Dee's pickers know the new status without a reload.
    await choose(dee, 'Status of “Read the handbook”', 'Review');

    await statusRow(ada, 'Review').getByRole('button', { name: 'Rename “Review”' }).click();
    await ada.getByLabel('New name for “Review”').fill('In review');
    await ada.getByRole('button', { name: 'Save', exact: true }).click();
    await visible(dee.getByRole('button', { name: 'Status of “Read the handbook”: In review' }));

    await statusRow(ada, 'In review').getByRole('button', { name: 'Move “In review” up' }).click();
    await eventually(async () => assert.deepEqual(await statusNames(), ['To do', 'In progress', 'In review', 'Done']));
    await statusRow(ada, 'In review').getByRole('button', { name: 'Move “In review” up' }).click();
    await eventually(async () => assert.deepEqual(await statusNames(), ['To do', 'In review', 'In progress', 'Done']));
    await statusRow(ada, 'In review').getByRole('button', { name: 'Move “In review” down' }).click();
    await eventually(async () => assert.deepEqual(await statusNames(), ['To do', 'In progress', 'In review', 'Done']));

    await statusRow(ada, 'In review').getByLabel('Colour of “In review”').fill('#0d9488');
    await eventually(async () => {
      const { body } = await run.workspace.api(run.workspace.ada, 'GET', '/v1/task-statuses');
      assert.equal(body.find((s: any) => s.name === 'In review').color.toLowerCase(), '#0d9488');
    });
    await statusRow(ada, 'In review').getByLabel('“In review” counts as done').check();
    await visible(notice(ada, 'Tasks in “In review” now count as done.'));
    await eventually(async () => {
      const task = await taskByTitle(run.workspace, run.workspace.ada, 'Read the handbook');
      assert.equal(task.isCompleted, true);
    });
    await statusRow(ada, 'In review').getByLabel('“In review” counts as done').uncheck();
    await visible(notice(ada, 'Tasks in “In review” no longer count as done.'));

    await statusRow(ada, 'In review').getByRole('button', { name: 'Make default: “In review”' }).click();
    await visible(statusRow(ada, 'In review').getByText('Default'));
    const { body: after } = await run.workspace.api(run.workspace.ada, 'GET', '/v1/task-statuses');
    const review = after.find((s: any) => s.name === 'In review');
    assert.deepEqual([review.color.toLowerCase(), review.isDefault, review.isCompleted], ['#0d9488', true, false]);
    assert.equal(after.filter((s: any) => s.isDefault).length, 1);
    await statuses.scrollIntoViewIfNeeded();
    await screenshot(ada, '19-04-workflow-statuses');
    await expectAccessible(ada, 'Settings → Workflow statuses');
    await statusRow(ada, 'To do').getByRole('button', { name: 'Make default: “To do”' }).click();
    await visible(statusRow(ada, 'To do').getByText('Default'));
  });

  it('a status deleted with its tasks moved: the teammate’s list shows them in their new status at once', async () => {
    await visible(dee.getByRole('button', { name: 'Status of “Read the handbook”: In review' }));
    // Dee's list shows only that status's tasks.
    await dee.getByRole('button', { name: 'Status: Any status' }).click();
    await dee.getByRole('checkbox', { name: 'In review' }).check();
    await dee.keyboard.press('Escape');
    await gone(dee.getByRole('link', { name: 'Meet the team', exact: true }));
    assert.match(new URL(dee.url()).search, /taskStatusId=/);

    await statusRow(ada, 'In review').getByRole('button', { name: 'Delete “In review”' }).click();
    const confirm = ada.getByRole('form', { name: 'Delete “In review”' });
    const remove = confirm.getByRole('button', { name: 'Delete and move its tasks' });
    assert.equal(await remove.isDisabled(), true, 'a status to move the tasks to is required');
    await confirm.getByLabel('Move its tasks to').selectOption({ label: 'In progress' });
    await remove.click();
    await visible(notice(ada, '“In review” was deleted; its tasks are now in “In progress”.'));
    await gone(statusRow(ada, 'In review'));

    await visible(dee.getByRole('button', { name: 'Status of “Read the handbook”: In progress' }));
    // The filter forgot the status (which would match nothing now), so the whole list shows again.
    await visible(dee.getByRole('link', { name: 'Meet the team', exact: true }));
    assert.doesNotMatch(new URL(dee.url()).search, /taskStatusId=/);
    await dee.getByRole('button', { name: 'Status: Any status' }).click();
    await visible(dee.getByRole('checkbox', { name: 'In progress' }));
    assert.equal(await dee.getByRole('checkbox', { name: 'In review' }).count(), 0, 'no longer offered');
    await dee.keyboard.press('Escape');
    assert.deepEqual(await statusNames(), ['To do', 'In progress', 'Done']);
  });

  it('an admin manages members but never an owner; demoted, their admin link leaves the pending list, their open page drops the controls live and their next change is refused', async () => {
    const cy = await openPage(run, run.workspace.cy);
    await cy.getByRole('link', { name: 'Settings' }).click();
    const members = membersOf(cy);
    await visible(members.getByLabel('Role of Ben Okafor'));
    assert.equal(await members.getByLabel('Role of Ada Lovelace').count(), 0, 'an admin cannot change an owner');
    await visible(members.getByText('Only an owner can change an owner.'));
    assert.equal(await members.getByRole('button', { name: 'Remove Ada Lovelace' }).count(), 0);
    const roles = await cy
      .getByRole('form', { name: 'Invite someone' })
      .getByLabel('Role')
      .locator('option')
      .allTextContents();
    assert.deepEqual(
      roles.map((role) => role.split(':')[0]),
      ['Admin', 'Member'],
      'an admin invites no owner',
    );

    // Cy's admin link is pending on Ada's page; demoting Cy revokes it, and it leaves the list at once.
    const cysLink = await run.workspace.api(run.workspace.cy, 'POST', '/v1/invitations', {
      role: 'admin',
      email: 'cys.friend@example.test',
    });
    assert.equal(cysLink.status, 201);
    await ada.reload();
    const cysPending = membersOf(ada)
      .getByRole('table', { name: 'Pending invitations' })
      .getByRole('cell', { name: 'cys.friend@example.test', exact: true });
    await visible(cysPending);

    // Ada demotes Cy. Cy's open page hears it (member.updated) and drops the controls by itself;
    // a change Cy's credentials still try is refused.
    await membersOf(ada).getByLabel('Role of Cy Park').selectOption('member');
    await visible(notice(ada, 'Cy Park is now a member.'));
    await gone(cysPending);
    await gone(members.getByLabel('Role of Ben Okafor'));
    const refused = await run.workspace.api(run.workspace.cy, 'PATCH', `/v1/members/${run.workspace.ben.id}`, {
      role: 'admin',
    });
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    await visible(members.getByText('Only the team’s owners and admins can change roles and invite people.'));
    assert.equal(await cy.getByRole('form', { name: 'Invite someone' }).count(), 0);
    assert.equal(
      await statusesOf(cy)
        .getByRole('button', { name: /^Rename / })
        .count(),
      0,
      'statuses read-only too',
    );
    await screenshot(cy, '19-05-members-read-only');
    const { body: users } = await run.workspace.api(run.workspace.ada, 'GET', '/v1/users');
    assert.equal(
      users.find((user: any) => user.name === 'Ben Okafor').role,
      'member',
      'the refused change changed nothing',
    );
    await cy.context().close();
  });

  it('the owner removes a member after a confirmation', async () => {
    await membersOf(ada)
      .getByRole('button', { name: `Remove ${DEE.name}` })
      .click();
    await ada.getByRole('button', { name: 'Remove from the team' }).click();
    await visible(notice(ada, `${DEE.name} was removed from the team.`));
    await gone(membersOf(ada).getByRole('cell', { name: DEE.name, exact: true }));
    const { body: users } = await run.workspace.api(run.workspace.ada, 'GET', '/v1/users');
    assert.equal(
      users.some((user: any) => user.email === DEE.email),
      false,
    );
    await dee.context().close();
  });

  it('someone with an account joins by signing in on the link’s page; a newcomer’s form with their email is taken as that sign-in, which never says the email is taken', async () => {
    await ada.getByRole('link', { name: 'Settings' }).click();
    const link = await invite(null, 'admin');
    await ada.getByRole('region', { name: 'New invitation link' }).getByRole('button', { name: 'Done' }).click();

    // Ben, signed in and in Rocket already, is told so and may open it; the server refuses him
    // too, and the link stays usable.
    const ben = await openPage(run, run.workspace.ben);
    await ben.goto(link);
    await visible(ben.getByText('Ada Lovelace invited you to join Rocket as an admin.'));
    await visible(ben.getByText(`You are signed in as ${run.workspace.ben.email}, already a member of Rocket.`));
    await ben.getByLabel('Password', { exact: true }).fill(run.workspace.ben.password);
    await ben.getByRole('button', { name: 'Sign in and join Rocket' }).click();
    await visible(ben.getByText('You are already a member of Rocket: sign in to it instead.'));
    await ben.getByRole('button', { name: 'Open Rocket' }).click();
    await visible(ben.getByRole('heading', { name: 'My tasks' }));
    assert.equal(new URL(ben.url()).pathname, '/');
    await ben.context().close();

    // Dee, removed, still has her account. Asking for a new one with another password is refused
    // as a wrong sign-in would be, and the page turns into the sign-in, on a desktop and a phone.
    const tryNewAccount = async (page: Page, screen: string) => {
      await page.getByLabel('Your name').fill(DEE.name);
      await page.getByLabel('Email').fill(DEE.email);
      await page.getByLabel('Password', { exact: true }).fill('another-password');
      await page.getByLabel('Repeat the password').fill('another-password');
      // The answer is held back until the page shows it is waiting for it.
      let answer!: () => void;
      const held = new Promise<void>((resolve) => (answer = resolve));
      await page.route(
        '**/auth/accept-invitation',
        async (route) => {
          await held;
          await route.continue();
        },
        { times: 1 },
      );
      await page.getByRole('button', { name: 'Join Rocket' }).click();
      const joining = page.getByRole('button', { name: 'Joining…' });
      await visible(joining);
      assert.equal(await joining.isDisabled(), true, 'a second click would send it again');
      answer();
      await visible(page.getByRole('alert').getByText(`Wrong email or password. ${MAYBE_HAS_ACCOUNT}`));
      await visible(page.getByRole('heading', { name: 'Sign in to join' }));
      assert.equal(await page.getByLabel('Email').inputValue(), DEE.email, 'the email is kept');
      const password = page.getByLabel('Password', { exact: true });
      assert.equal(await password.inputValue(), '');
      assert.equal(
        await page.evaluate('document.activeElement?.getAttribute("autocomplete")'),
        'current-password',
        'the password is focused',
      );
      await fitsWidth(page);
      await expectAccessible(page, `a newcomer's form refused as a sign-in (${screen})`);
      await screenshot(page, `19-07-join-refused-${screen}`);
    };
    const phone = await openLink(link, PHONE);
    await tryNewAccount(phone, 'phone');
    await phone.context().close();
    dee = await openLink(link, DESKTOP);
    await tryNewAccount(dee, 'desktop');
    await dee.getByLabel('Password', { exact: true }).fill(DEE.password);
    await dee.getByRole('button', { name: 'Sign in and join Rocket' }).click();
    await visible(dee.getByRole('heading', { name: 'My tasks' }));
    const { body: users } = await run.workspace.api(run.workspace.ada, 'GET', '/v1/users');
    assert.equal(users.find((user: any) => user.email === DEE.email)?.role, 'admin');
  });

  it('asked nothing of any other host and raised no page errors', () => assertCleanRun(run.watch));

  async function deeId(): Promise<string> {
    const { body: users } = await run.workspace.api(run.workspace.ada, 'GET', '/v1/users');
    return users.find((user: any) => user.email === DEE.email).id;
  }

  /** Moves an invitation's expiry into the past, as the clock would. */
  async function expire(invitationId: string): Promise<void> {
    const store = openStore(run.workspace.databaseUrl, { poolSize: 1, create: false });
    try {
      await store.db
        .updateTable('invitations')
        .set({ expires_at: new Date(Date.now() - 60_000).toISOString() })
        .where('id', '=', invitationId)
        .execute();
    } finally {
      await store.close();
    }
  }
});
