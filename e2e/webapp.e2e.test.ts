/**
 * The web app in a real browser (headless Chromium driven by playwright-core) against the real
 * `tasklane serve`: sign-in, lists and tasks, inline edits, filters in the address, two
 * teammates seeing each other live, archiving, the description conflict, settings and API keys,
 * and a phone-sized screen. Screenshots of each main screen go to test-artifacts/.
 *
 * The steps share one workspace and build on each other, so they run in order.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import {
  launchBrowser,
  missingBrowser,
  newContext,
  screenshot,
  unlabelledControls,
  type Watch,
} from './support/browser.js';
import { eventually, startWorkspace, type Person, type Workspace } from './support/workspace.js';

const missing = missingBrowser();
const requireBrowser = process.env.REQUIRE_BROWSER === '1';
if (missing && !requireBrowser) {
  console.log(`\nNOTICE: web app browser tests SKIPPED: ${missing}. REQUIRE_BROWSER=1 makes this a failure.\n`);
}

const visible = (locator: Locator) => locator.waitFor({ state: 'visible' });
const gone = (locator: Locator) => locator.waitFor({ state: 'detached' });
const sidebarOf = (page: Page) => page.getByRole('navigation', { name: 'Lists and views' });
/** A list in the sidebar's main section (not under Archived). */
const sidebarLink = (page: Page, name: string) =>
  page.getByRole('list', { name: 'Your lists' }).getByRole('link', { name, exact: true });

async function expectLabelled(page: Page, screen: string): Promise<void> {
  assert.deepEqual(await unlabelledControls(page), [], `controls without an accessible name on ${screen}`);
}

/** Status code of a curl request with an API key (the way a script would use a key). */
function curlStatus(url: string, key: string): string {
  const run = spawnSync('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-H', `x-api-key: ${key}`, url]);
  assert.equal(run.status, 0, `curl failed: ${run.stderr}`);
  return run.stdout.toString();
}

/** Without a browser (and without REQUIRE_BROWSER=1) the suite is one visible, counted skip. */
const skipWholeSuite = missing !== null && !requireBrowser;
if (skipWholeSuite) it('web app in a real browser', { skip: missing }, () => {});
else
  describe('web app in a real browser', () => {
    let workspace: Workspace;
    let browser: Browser;
    const watch: Watch = { foreignRequests: [], errors: [], cspReports: [] };
    let adaContext: BrowserContext;
    let ada: Page;
    let ben: Page;
    let launchListId: number;

    async function signIn(page: Page, who: Person, team?: string): Promise<void> {
      await page.goto('/');
      await page.getByLabel('Email').fill(who.email);
      await page.getByLabel('Password').fill(who.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      if (team) await page.getByRole('button', { name: new RegExp(`^${team}`) }).click();
      await visible(page.getByRole('heading', { name: 'My tasks' }));
      await visible(page.locator('.connection-live')); // the event stream is open
    }

    async function openPage(who: Person, team?: string, viewport?: { width: number; height: number }): Promise<Page> {
      const context = await newContext(browser, workspace.url, watch, viewport);
      const page = await context.newPage();
      page.setDefaultTimeout(10_000);
      await signIn(page, who, team);
      return page;
    }

    async function taskByTitle(who: Person, title: string): Promise<any> {
      const { body } = await workspace.api(who, 'GET', `/v1/tasks?query=${encodeURIComponent(title)}`);
      const task = body.find((t: any) => t.title === title);
      assert.ok(task, `no task "${title}" for ${who.name}`);
      return (await workspace.api(who, 'GET', `/v1/tasks/${task.id}`)).body;
    }

    before(async () => {
      if (missing) throw new Error(`REQUIRE_BROWSER=1 but ${missing}`);
      workspace = await startWorkspace();
      browser = await launchBrowser();
    });

    after(async () => {
      await browser?.close();
      await workspace?.close();
    });

    it('signs in with email and password; someone in two teams picks the team', async () => {
      adaContext = await newContext(browser, workspace.url, watch);
      ada = await adaContext.newPage();
      ada.setDefaultTimeout(10_000);
      await ada.goto('/');
      await visible(ada.getByRole('heading', { name: 'Sign in' }));
      await screenshot(ada, '01-sign-in');
      await expectLabelled(ada, 'sign-in');

      await ada.getByLabel('Email').fill(workspace.ada.email);
      await ada.getByLabel('Password').fill('not the password');
      await ada.getByRole('button', { name: 'Sign in' }).click();
      await visible(ada.getByRole('alert'));

      await ada.getByLabel('Password').fill(workspace.ada.password);
      await ada.getByRole('button', { name: 'Sign in' }).click();
      await visible(ada.getByRole('heading', { name: 'Choose a team' }));
      await screenshot(ada, '02-team-picker');
      await ada.getByRole('button', { name: /^Rocket/ }).click();
      await visible(ada.getByRole('heading', { name: 'My tasks' }));
      await visible(ada.locator('.connection-live'));

      const cookie = (await adaContext.cookies()).find((c) => c.name === 'tasklane_session');
      assert.ok(cookie, 'session cookie set');
      assert.equal(cookie.httpOnly, true);
      assert.equal(cookie.sameSite, 'Strict');
      // A change with the cookie but without the CSRF token is refused.
      const status = await ada.evaluate(
        `fetch('/v1/lists', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"x"}' }).then((r) => r.status)`,
      );
      assert.equal(status, 403);
    });

    it('creates a list from the sidebar, quick-adds tasks and a subtask under its parent', async () => {
      await sidebarOf(ada).getByRole('button', { name: '+ New list' }).click();
      const form = ada.getByRole('form', { name: 'New list' });
      await form.getByLabel('List name').fill('Launch');
      await form.getByRole('radio', { name: 'Blue' }).check();
      await form.getByRole('button', { name: 'Create list' }).click();
      await ada.waitForURL(/\/lists\/\d+$/);
      launchListId = Number(new URL(ada.url()).pathname.split('/').pop());
      await visible(ada.getByRole('heading', { name: 'Launch' }));
      await visible(sidebarLink(ada, 'Launch'));

      for (const title of ['Write the announcement', 'Book the venue', 'Order snacks']) {
        await ada.getByLabel('New task', { exact: true }).fill(title);
        await ada.getByLabel('New task', { exact: true }).press('Enter');
        await visible(ada.getByRole('link', { name: title, exact: true }));
      }

      await ada.getByRole('button', { name: 'Add a subtask to “Write the announcement”' }).click();
      await ada.getByLabel('New subtask of “Write the announcement”').fill('Draft the outline');
      await ada.getByLabel('New subtask of “Write the announcement”').press('Enter');
      const subtasks = ada.getByRole('list', { name: 'Subtasks of Write the announcement' });
      await visible(subtasks.getByRole('link', { name: 'Draft the outline' }));

      const { body: list } = await workspace.api(workspace.ada, 'GET', `/v1/lists/${launchListId}`);
      assert.deepEqual(list, { id: launchListId, name: 'Launch', color: 'Blue', isArchived: false });
      const parent = await taskByTitle(workspace.ada, 'Write the announcement');
      const child = await taskByTitle(workspace.ada, 'Draft the outline');
      assert.equal(child.parentId, parent.id);
      assert.deepEqual(
        child.taskLists.map((l: any) => l.id),
        [launchListId],
      );
    });

    it('edits status, priority, due date, assignees, lists and done in place', async () => {
      // A list made through the API shows up in the sidebar without a reload.
      const marketing = await workspace.api(workspace.ada, 'POST', '/v1/lists', { name: 'Marketing', color: 'Pink' });
      assert.equal(marketing.status, 201);
      await visible(sidebarLink(ada, 'Marketing'));

      const task = '“Book the venue”';
      await ada.getByLabel(`Status of ${task}`).selectOption({ label: 'In progress' });
      await ada.getByLabel(`Priority of ${task}`).selectOption('high');
      await ada.getByLabel(`Due date of ${task}`).fill('2026-12-01');

      await ada.getByRole('button', { name: new RegExp(`^Assignees of ${task}`) }).click();
      await ada.getByRole('checkbox', { name: 'Ben Okafor' }).check();
      await ada.getByRole('checkbox', { name: 'Ada Lovelace' }).check();
      await ada.keyboard.press('Escape');
      await visible(ada.getByRole('button', { name: `Assignees of ${task}: Ada Lovelace, Ben Okafor` }));

      await ada.getByRole('button', { name: new RegExp(`^Lists of ${task}`) }).click();
      await ada.getByRole('checkbox', { name: 'Marketing' }).check();
      await ada.keyboard.press('Escape');

      await ada.getByLabel('Done: “Order snacks”').check();

      await eventually(async () => {
        const venue = await taskByTitle(workspace.ada, 'Book the venue');
        assert.equal(venue.status.name, 'In progress');
        assert.equal(venue.priority, 'high');
        assert.equal(venue.dueDate, '2026-12-01');
        assert.deepEqual(venue.assignees.map((p: any) => p.name).sort(), ['Ada Lovelace', 'Ben Okafor']);
        assert.deepEqual(venue.taskLists.map((l: any) => l.name).sort(), ['Launch', 'Marketing']);
        const snacks = await taskByTitle(workspace.ada, 'Order snacks');
        assert.equal(snacks.isCompleted, true);
      });
      await ada.getByLabel(`Priority of ${task}`).focus(); // a visible focus ring in the screenshot
      await screenshot(ada, '03-list');
      await expectLabelled(ada, 'the list view');
    });

    it('keeps filters in the address, so a filtered view survives a reload and can be shared', async () => {
      await ada.getByRole('button', { name: /^Priority: / }).click();
      await ada.getByRole('checkbox', { name: 'High' }).check();
      await ada.keyboard.press('Escape');
      await ada.waitForURL(/priority=high/);
      await gone(ada.getByRole('link', { name: 'Write the announcement', exact: true }));
      await visible(ada.getByRole('link', { name: 'Book the venue', exact: true }));

      await ada.getByLabel('Show').selectOption('false');
      await ada.getByLabel('Search task titles').fill('venue');
      await ada.waitForURL(/query=venue/);
      const shared = ada.url();
      assert.match(shared, /isCompleted=false/);

      await ada.reload();
      await visible(ada.getByRole('link', { name: 'Book the venue', exact: true }));
      assert.equal(await ada.getByRole('link', { name: 'Order snacks', exact: true }).count(), 0);
      assert.equal(await ada.getByLabel('Search task titles').inputValue(), 'venue');

      await ada.getByRole('button', { name: 'Clear filters' }).first().click();
      await visible(ada.getByRole('link', { name: 'Order snacks', exact: true }));
      assert.equal(new URL(ada.url()).search, '');

      await ada.getByRole('link', { name: 'My tasks' }).click();
      await visible(ada.getByRole('heading', { name: 'My tasks' }));
      await visible(ada.getByRole('link', { name: 'Book the venue', exact: true }));
      assert.equal(await ada.getByRole('link', { name: 'Order snacks', exact: true }).count(), 0);
      await screenshot(ada, '04-my-tasks');
    });

    it('task detail: edits the title and a CommonMark description whose preview runs no script', async () => {
      await sidebarLink(ada, 'Launch').click();
      await ada.getByRole('link', { name: 'Write the announcement', exact: true }).click();
      await ada.waitForURL(/\/tasks\/\d+$/);
      await ada.getByLabel('Title', { exact: true }).fill('Write the launch announcement');
      await ada.getByLabel('Title', { exact: true }).press('Enter');
      await visible(ada.getByRole('link', { name: 'Draft the outline' })); // subtasks under the parent

      await ada.getByRole('button', { name: 'Edit description' }).click();
      const source = [
        '# Launch plan',
        '',
        'Some **bold** words, a list and a [safe link](https://example.com):',
        '',
        '- first',
        '- second',
        '',
        '<script>window.__pwned = "script"</script>',
        '<img src="nothing.png" onerror="window.__pwned = \'img\'">',
        '[click me](javascript:window.__pwned=1)',
        '<a href="javascript:window.__pwned=2">raw link</a>',
        '<iframe src="/"></iframe>',
      ].join('\n');
      await ada.getByLabel('Description (CommonMark)').fill(source);
      await ada.getByRole('button', { name: 'Preview', exact: true }).click();
      const preview = ada.getByRole('region', { name: 'Preview' });
      await visible(preview.getByRole('heading', { name: 'Launch plan' }));
      await visible(preview.locator('strong', { hasText: 'bold' }));
      await ada.getByRole('button', { name: 'Save description' }).click();

      const rendered = ada.getByRole('region', { name: 'Description' });
      await visible(rendered.getByRole('heading', { name: 'Launch plan' }));
      assert.equal(await rendered.locator('script, iframe, [onerror], a[href^="javascript"]').count(), 0);
      assert.equal(
        await rendered.getByRole('link', { name: 'safe link' }).getAttribute('rel'),
        'noopener noreferrer nofollow',
      );
      await ada.waitForTimeout(300); // give an injected handler every chance to fire
      assert.equal(await ada.evaluate('window.__pwned'), undefined, 'no script from a description ever runs');

      await eventually(async () => {
        const task = await taskByTitle(workspace.ada, 'Write the launch announcement');
        assert.equal(task.description, source);
      });
      await screenshot(ada, '05-task-detail');
      await expectLabelled(ada, 'the task detail');
    });

    it('two teammates see each other live: sharing, new tasks, edits, renames', async () => {
      ben = await openPage(workspace.ben);
      assert.equal(await sidebarLink(ben, 'Launch').count(), 0, 'Ben is not in Launch yet');

      await sidebarLink(ada, 'Launch').click();
      await ada.getByRole('button', { name: 'Members' }).click();
      const dialog = ada.getByRole('dialog', { name: 'Share “Launch”' });
      await dialog.getByLabel('Add a teammate').selectOption({ label: 'Ben Okafor (ben@example.test)' });
      await dialog.getByRole('button', { name: 'Add', exact: true }).click();
      await visible(dialog.getByRole('button', { name: 'Remove Ben Okafor from Launch' }));
      await screenshot(ada, '06-share-dialog');
      await expectLabelled(ada, 'the share dialog');
      await ada.keyboard.press('Escape'); // a modal dialog closes from the keyboard
      await gone(dialog);

      // Added to the list, Ben sees it appear in his sidebar without reloading.
      await visible(sidebarLink(ben, 'Launch'));
      await sidebarLink(ben, 'Launch').click();
      await visible(ben.getByRole('link', { name: 'Book the venue', exact: true }));

      await ada.getByLabel('New task', { exact: true }).fill('Print posters');
      await ada.getByLabel('New task', { exact: true }).press('Enter');
      await visible(ben.getByRole('link', { name: 'Print posters', exact: true }));

      await ben.getByLabel('Priority of “Print posters”').selectOption('urgent');
      await eventually(async () =>
        assert.equal(await ada.getByLabel('Priority of “Print posters”').inputValue(), 'urgent'),
      );

      await sidebarOf(ada).getByRole('button', { name: 'Actions for list Launch' }).click();
      await ada.getByRole('button', { name: 'Rename or recolour' }).click();
      const edit = ada.getByRole('form', { name: 'Edit list Launch' });
      await edit.getByLabel('List name').fill('Launch 2026');
      await edit.getByRole('radio', { name: 'Purple' }).check();
      await edit.getByRole('button', { name: 'Save' }).click();
      await visible(sidebarLink(ben, 'Launch 2026'));
      await visible(ben.getByRole('heading', { name: 'Launch 2026' }));

      // A list Ben makes through the API and shares with Ada appears in her sidebar.
      const research = await workspace.api(workspace.ben, 'POST', '/v1/lists', { name: 'Research', color: 'Teal' });
      await workspace.api(workspace.ben, 'POST', `/v1/lists/${research.body.id}/members`, { userId: workspace.ada.id });
      await visible(sidebarLink(ada, 'Research'));
    });

    it('archiving removes the list from the other sidebar; it can be found and unarchived', async () => {
      await sidebarOf(ada).getByRole('button', { name: 'Actions for list Launch 2026' }).click();
      await ada.getByRole('button', { name: 'Archive', exact: true }).click();
      await gone(sidebarLink(ada, 'Launch 2026'));
      await gone(sidebarLink(ben, 'Launch 2026'));
      await visible(ben.getByText('This list is archived'));

      await sidebarOf(ben)
        .getByRole('button', { name: /^Archived \(/ })
        .click();
      await visible(sidebarOf(ben).getByRole('button', { name: 'Unarchive Launch 2026' }));
      await sidebarOf(ada)
        .getByRole('button', { name: /^Archived \(/ })
        .click();
      await visible(sidebarOf(ada).getByRole('button', { name: 'Unarchive Launch 2026' }));
      await screenshot(ada, '07-archived');

      await sidebarOf(ben).getByRole('button', { name: 'Unarchive Launch 2026' }).click();
      await visible(sidebarLink(ada, 'Launch 2026'));
      await visible(sidebarLink(ben, 'Launch 2026'));
      await gone(sidebarOf(ada).getByRole('button', { name: 'Unarchive Launch 2026' }));
      const { body } = await workspace.api(workspace.ada, 'GET', `/v1/lists/${launchListId}`);
      assert.equal(body.isArchived, false);
    });

    it('the Archived section shows what the server holds archived, also to a browser that never saw it happen, and stores nothing', async () => {
      // Archived through the API before this browser (a new context: no storage) ever loaded.
      const { body: lists } = await workspace.api(workspace.ben, 'GET', '/v1/lists');
      const research = lists.find((list: any) => list.name === 'Research');
      assert.equal((await workspace.api(workspace.ben, 'POST', `/v1/lists/${research.id}/archive`)).status, 200);
      const fresh = await openPage(workspace.ada, 'Rocket');
      try {
        await sidebarOf(fresh).getByRole('button', { name: 'Archived (1)' }).click();
        await visible(sidebarOf(fresh).getByRole('button', { name: 'Unarchive Research' }));
        assert.equal(await sidebarLink(fresh, 'Research').count(), 0, 'not among the active lists');

        // Unarchived elsewhere, it moves back live.
        await workspace.api(workspace.ben, 'POST', `/v1/lists/${research.id}/unarchive`);
        await visible(sidebarLink(fresh, 'Research'));
        await gone(sidebarOf(fresh).getByRole('button', { name: 'Unarchive Research' }));
        assert.equal(await fresh.evaluate('localStorage.length'), 0, 'the browser keeps no list of its own');
      } finally {
        await fresh.context().close();
      }
    });

    it('detects a description conflict live and resolves it without losing either text', async () => {
      const task = await taskByTitle(workspace.ada, 'Print posters');
      await ada.goto(`/tasks/${task.id}`);
      await ben.goto(`/tasks/${task.id}`);
      const adaText = 'Ada: print the posters in A2, on recycled paper.';
      const benText = 'Ben: the print shop needs the files by Friday.';

      await ada.getByRole('button', { name: 'Edit description' }).click();
      await ada.getByLabel('Description (CommonMark)').fill(adaText);
      await ben.getByRole('button', { name: 'Edit description' }).click();
      await ben.getByLabel('Description (CommonMark)').fill(benText);

      // A status change by someone else is not a conflict: Ada's edit moves along with it.
      await workspace.api(workspace.cy, 'PATCH', `/v1/tasks/${task.id}`, { taskStatusId: task.taskStatusId });

      await ben.getByRole('button', { name: 'Save description' }).click();
      await visible(ben.getByRole('button', { name: 'Edit description' }));

      // Ada learns of it live, before she saves.
      await visible(ada.getByText('Someone else just changed this description'));
      await ada.getByRole('button', { name: 'Save description' }).click();
      await visible(ada.getByRole('heading', { name: /Someone else changed this description/ }));
      assert.equal(await ada.getByLabel('Their version (saved)').inputValue(), benText);
      assert.equal(await ada.getByLabel('Your version (not saved)').inputValue(), adaText);
      assert.equal(
        (await taskByTitle(workspace.ada, 'Print posters')).description,
        benText,
        'the refused save changed nothing',
      );
      await screenshot(ada, '08-conflict');

      await ada.getByRole('button', { name: 'Combine both' }).click();
      const resolution = await ada.getByLabel('Text to keep').inputValue();
      assert.ok(resolution.includes(adaText) && resolution.includes(benText), resolution);
      await ada.getByRole('button', { name: 'Save this text' }).click();
      await visible(ada.getByRole('button', { name: 'Edit description' }));

      const saved = (await taskByTitle(workspace.ada, 'Print posters')).description;
      assert.ok(saved.includes(adaText) && saved.includes(benText), saved);
      // Ben's open detail view follows live.
      await visible(ben.getByRole('region', { name: 'Description' }).getByText(adaText));
    });

    it('settings: an API key made in the app works with curl until revoked; members and roles', async () => {
      await ada.getByRole('link', { name: 'Settings' }).click();
      await visible(ada.getByRole('heading', { name: 'Settings', exact: true }));
      const members = ada.getByRole('table', { name: 'Team members and their roles' });
      await visible(members.getByRole('row', { name: /Ben Okafor.*member/ }));
      await visible(members.getByRole('row', { name: /Cy Park.*admin/ }));
      await visible(members.getByRole('row', { name: /Ada Lovelace.*owner/ }));

      await ada.getByLabel('New key name').fill('curl check');
      await ada.getByRole('button', { name: 'Create key' }).click();
      const secretBox = ada.getByRole('region', { name: 'New API key curl check' });
      await visible(secretBox);
      const secret = await ada.getByLabel('API key secret').inputValue();
      assert.match(secret, /^tlk_[0-9A-Za-z]{49}$/);
      await secretBox.getByRole('button', { name: 'Copy' }).click();
      await visible(ada.getByText('Copied to the clipboard.'));
      assert.equal(await ada.evaluate('navigator.clipboard.readText()'), secret);

      assert.equal(curlStatus(`${workspace.url}/v1/me`, secret), '200');
      const keys = ada.getByRole('table', { name: 'Your API keys' });
      await visible(keys.getByRole('row', { name: /curl check/ }));
      await screenshot(ada, '09-settings');
      await expectLabelled(ada, 'settings');

      await secretBox.getByRole('button', { name: 'Done' }).click();
      await ada.getByRole('button', { name: 'Revoke key curl check' }).click();
      await ada.getByRole('button', { name: 'Revoke now' }).click();
      await gone(keys.getByRole('row', { name: /curl check/ }));
      assert.equal(curlStatus(`${workspace.url}/v1/me`, secret), '401');
    });

    it('settings: changes the name and the password, then signs out and back in with the keyboard', async () => {
      await ada.getByLabel('Name', { exact: true }).fill('Ada King');
      await ada.getByRole('button', { name: 'Save name' }).click();
      await visible(ada.locator('.user-name', { hasText: 'Ada King' }));
      const me = await workspace.api(workspace.ada, 'GET', '/v1/me');
      assert.equal(me.body.user.name, 'Ada King');

      const newPassword = 'a-brand-new-password';
      await ada.getByLabel('Current password').fill(workspace.ada.password);
      await ada.getByLabel('New password', { exact: true }).fill(newPassword);
      await ada.getByLabel('Repeat the new password').fill(newPassword);
      await ada.getByRole('button', { name: 'Change password' }).click();
      await visible(ada.getByText('Password changed.'));

      await ada.getByRole('button', { name: 'Sign out' }).click();
      await visible(ada.getByRole('heading', { name: 'Sign in' }));
      assert.equal(await ada.evaluate(`fetch('/auth/session').then((r) => r.status)`), 401);

      // Keyboard only: the email field has focus, Tab moves on, Enter submits.
      await ada.keyboard.type(workspace.ada.email);
      await ada.keyboard.press('Tab');
      await ada.keyboard.type(workspace.ada.password);
      await ada.keyboard.press('Enter');
      await visible(ada.getByRole('alert'));
      await ada.getByLabel('Password').fill(newPassword);
      await ada.keyboard.press('Enter');
      await visible(ada.getByRole('heading', { name: 'Choose a team' }));
      await ada.getByRole('button', { name: /^Rocket/ }).focus();
      await ada.keyboard.press('Enter');
      await visible(ada.getByRole('heading', { name: 'My tasks' }));
      workspace.ada.password = newPassword;
    });

    it('switches team from the top bar', async () => {
      await visible(sidebarLink(ada, 'Launch 2026'));
      await ada.getByLabel('Team', { exact: true }).selectOption({ label: 'Moon base' });
      await visible(ada.getByText('No lists yet.'));
      assert.equal(await sidebarLink(ada, 'Launch 2026').count(), 0, 'Rocket’s lists stay in Rocket');
      await ada.getByLabel('Team', { exact: true }).selectOption({ label: 'Rocket' });
      await visible(sidebarLink(ada, 'Launch 2026'));
    });

    it('reads well on a phone-sized screen: the sidebar becomes a drawer', async () => {
      const phone = await openPage(workspace.ben, undefined, { width: 390, height: 844 });
      assert.equal(await sidebarOf(phone).isVisible(), false, 'the sidebar is tucked away');
      await phone.getByRole('button', { name: 'Lists and navigation' }).click();
      await visible(sidebarLink(phone, 'Launch 2026'));
      await eventually(async () =>
        assert.equal(
          await phone.evaluate('document.activeElement.closest("#sidebar") !== null'),
          true,
          'focus is in the drawer',
        ),
      );
      await screenshot(phone, '11-phone-drawer');
      await sidebarLink(phone, 'Launch 2026').click();
      await visible(phone.getByRole('heading', { name: 'Launch 2026' }));
      await eventually(async () => assert.equal(await sidebarOf(phone).isVisible(), false));
      await visible(phone.getByRole('link', { name: 'Book the venue', exact: true }));
      await screenshot(phone, '10-phone-list');
      await expectLabelled(phone, 'the phone list view');
      const overflow = await phone.evaluate(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      );
      assert.equal(overflow, 0, 'nothing sticks out sideways');
    });

    it('asked nothing of any other host and raised no page errors', () => {
      assert.deepEqual(watch.foreignRequests, [], 'every request went to the tasklane server');
      assert.deepEqual(watch.errors, []);
      const unexpected = watch.cspReports.filter((report) => !report.startsWith('Executing inline event handler'));
      assert.deepEqual(unexpected, [], 'the app itself never trips its Content-Security-Policy');
    });
  });
