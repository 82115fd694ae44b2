/**
 * Issue 29 in a real browser against the real `tasklane serve`: the command palette, by keyboard
 * only. Ctrl+K opens it anywhere; words find tasks by title, description or comment, with the
 * matched words marked; ↑/↓ and Enter go to a task, a list or Settings; Escape closes it. Typing
 * in the top bar's search box opens it too. A task the reader may not read is never offered.
 * Checked at 390 and 1400 px with axe. Screenshots go to test-artifacts/ (29-*.png); with
 * README_SCREENSHOTS=1 the labelled list, and the palette over it, also to docs/screenshots/ for README.md.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Page } from 'playwright-core';
import { describeInBrowser, launchBrowser, readmeScreenshot, requireBrowser } from './support/browser.js';
import { expectFitsPhoneAndDesktop, gone, openPage, visible, type WebappRun } from './support/pages.js';
import { startWorkspace } from './support/workspace.js';

const palette = (page: Page) => page.getByRole('dialog', { name: 'Search and go to' });
const field = (page: Page) => palette(page).getByRole('combobox', { name: 'Search tasks, lists and settings' });
const option = (page: Page, name: string | RegExp) => palette(page).getByRole('option', { name });

/** Ctrl+K, and the palette's field has the focus: what is typed next goes there. */
async function openPalette(page: Page): Promise<void> {
  await page.keyboard.press('Control+k');
  await visible(field(page));
  await page.waitForFunction(() => (globalThis as any).document.activeElement?.getAttribute('role') === 'combobox');
}

describeInBrowser('The command palette: search tasks and go to lists and settings, by keyboard', () => {
  const run = { watch: { foreignRequests: [], errors: [], cspReports: [] } } as unknown as WebappRun;
  let ada: Page;
  let ben: Page;
  let taskId: number;
  let listId: number;

  before(async () => {
    requireBrowser();
    run.workspace = await startWorkspace();
    const { ada: adaPerson, ben: benPerson } = run.workspace;
    const api = run.workspace.api;
    listId = (await api(adaPerson, 'POST', '/v1/lists', { name: 'Launch plans' })).body.id;
    taskId = (await api(adaPerson, 'POST', '/v1/tasks', { title: 'Fuel the rocket', taskListIds: [listId] })).body.id;
    await api(adaPerson, 'POST', `/v1/tasks/${taskId}/comments`, { body: 'The oxygen delivery is late' });
    await api(adaPerson, 'POST', '/v1/tasks', { title: 'Order oxygen tanks', description: 'Two <b>tanks</b>' });
    run.browser = await launchBrowser();
    ada = await openPage(run, adaPerson, 'Rocket');
    ben = await openPage(run, benPerson);
  });

  after(async () => {
    await run.browser?.close();
    await run.workspace?.close();
  });

  it('Ctrl+K opens the palette; words find tasks by title and comment, the words marked, and Enter opens one', async () => {
    await ada.keyboard.press('Control+k');
    await visible(field(ada));
    assert.equal(
      await field(ada).evaluate((el: any) => el === el.ownerDocument.activeElement),
      true,
      'the field has the focus',
    );
    await visible(palette(ada).getByText('Type words to search tasks, or the name of a list.'));
    await ada.keyboard.type('oxyg');
    await visible(option(ada, /Order oxygen tanks/));
    await visible(option(ada, /Fuel the rocket/));
    // Titles before comments; the matched word is marked as text, and markup in tasks stays text.
    const options = await palette(ada).getByRole('option').allTextContents();
    assert.match(options[0]!, /^#2 Order oxygen tanks/);
    assert.match(options[1]!, /^#1 Fuel the rocket comment The oxygen delivery is late$/);
    assert.equal(
      await option(ada, /Fuel the rocket/)
        .locator('mark')
        .textContent(),
      'oxygen',
    );
    await expectFitsPhoneAndDesktop(ada, 'the command palette with task hits', '29-01-palette-tasks');

    await ada.keyboard.press('ArrowDown');
    assert.equal(await option(ada, /Fuel the rocket/).getAttribute('aria-selected'), 'true');
    await ada.keyboard.press('Enter');
    await gone(palette(ada));
    await ada.waitForURL(`**/tasks/${taskId}`);
  });

  it('names of lists and Settings are places to go; Escape closes the palette', async () => {
    await openPalette(ada);
    await ada.keyboard.type('launch');
    await visible(option(ada, 'Launch plans'));
    await visible(palette(ada).getByText('No task matches “launch”.'));
    await expectFitsPhoneAndDesktop(ada, 'the command palette with no task hit', '29-02-palette-places');
    await ada.keyboard.press('Enter');
    await ada.waitForURL(`**/lists/${listId}`);

    await openPalette(ada);
    await ada.keyboard.type('settings');
    await visible(option(ada, 'Settings'));
    await ada.keyboard.press('Enter');
    await ada.waitForURL('**/settings');

    await openPalette(ada);
    await ada.keyboard.press('Escape');
    await gone(palette(ada));
  });

  it('typing in the top bar’s search box opens the palette with what was typed', async () => {
    await ada.getByRole('searchbox', { name: /Search tasks, lists and settings/ }).focus();
    await ada.keyboard.type('f');
    await visible(field(ada));
    await ada.keyboard.type('uel');
    assert.equal(await field(ada).inputValue(), 'fuel');
    await visible(option(ada, /Fuel the rocket/));
    await ada.keyboard.press('Escape');
    await gone(palette(ada));
  });

  it('a search that fails says so, and a task the reader may not read is never offered', async () => {
    await ben.route('**/v1/search?*', (route) =>
      route.fulfill({ status: 503, contentType: 'application/json', body: '{"error":"Try again shortly."}' }),
    );
    await openPalette(ben);
    await ben.keyboard.type('oxygen');
    await visible(palette(ben).getByText(/Search failed: .*Try again shortly/));
    await ben.unroute('**/v1/search?*');
    await field(ben).fill('oxygen tanks');
    await visible(palette(ben).getByText('No task matches “oxygen tanks”.'));
    assert.equal(
      await palette(ben)
        .getByRole('option', { name: /oxygen/i })
        .count(),
      0,
    );
    await ben.keyboard.press('Escape');
  });

  it('the palette opens over a list whose rows show their labels, and finds a task by its comment', async () => {
    const { api, ada: adaPerson } = run.workspace;
    const label = async (name: string, color: string) =>
      (await api(adaPerson, 'POST', '/v1/labels', { name, color })).body.id as number;
    const [launch, safety, blocked] = [
      await label('Launch', 'Blue'),
      await label('Safety', 'Orange'),
      await label('Blocked', 'Red'),
    ];
    await api(adaPerson, 'PATCH', `/v1/tasks/${taskId}`, { labelIds: [launch, blocked] });
    for (const [title, labelIds] of [
      ['Book the launch window', [launch]],
      ['Check the oxygen valves', [safety]],
      ['Brief the ground crew', []],
    ] as const) {
      await api(adaPerson, 'POST', '/v1/tasks', { title, taskListIds: [listId], labelIds });
    }
    await ada.goto(`/lists/${listId}`);
    const row = ada.locator(`li.task[data-task-id="${taskId}"]`);
    for (const name of ['Launch', 'Blocked']) await visible(row.locator('.label-chip', { hasText: name }));
    await readmeScreenshot(ada, '29-03-labelled-list', 'labels');
    await openPalette(ada);
    await ada.keyboard.type('oxygen');
    await visible(option(ada, /Check the oxygen valves/));
    await visible(option(ada, /Fuel the rocket/));
    await readmeScreenshot(ada, '29-04-palette', 'palette');
    await ada.keyboard.press('Escape');
  });
});
