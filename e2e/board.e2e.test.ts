/**
 * The board and the keyboard in headless Chromium against the real `tasklane serve`: a list and
 * My tasks as columns by status, with the list's filters, in the address; cards moved by drag and
 * by the keyboard, each seen live by a teammate in another browser; a move refused by a newer
 * change or lost on the way, shown and put back; a long column that draws only what is in sight;
 * empty and loading states; a phone; the shortcuts and their ? overlay, which never fire while
 * typing; and axe-core's checks of the board and the overlay. Screenshots go to test-artifacts/ (18-*.png);
 * with README_SCREENSHOTS=1 the board's also to docs/screenshots/ for README.md.
 *
 * The tests share one workspace and run in order.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  assertCleanRun,
  describeInBrowser,
  launchBrowser,
  readmeScreenshot,
  requireBrowser,
  screenshot,
  type Watch,
} from './support/browser.js';
import { expectAccessible, gone, openPage, visible, type WebappRun } from './support/pages.js';
import { eventually, startWorkspace, type Person, type Workspace } from './support/workspace.js';

const YEAR = new Date().getFullYear();

/** A column of the board, by its status. */
const column = (page: Page, status: string) => page.getByRole('region', { name: status, exact: true });
/** The card of the task with this title in this column. */
const card = (page: Page, status: string, title: string) =>
  column(page, status)
    .getByRole('listitem')
    .filter({ has: page.getByRole('link', { name: title, exact: true }) });
/** The text of what has the keyboard's focus. */
const focusedText = (page: Page) => page.evaluate('document.activeElement?.textContent ?? ""') as Promise<string>;

describeInBrowser('the board and the keyboard in a real browser', () => {
  const watch: Watch = { foreignRequests: [], errors: [], cspReports: [] };
  const run = { watch } as unknown as WebappRun;
  let workspace: Workspace;
  let ada: Page;
  let ben: Page;
  let launchId: number;
  const ids: Record<string, number> = {};
  const status: Record<string, number> = {};

  const api = async (method: string, path: string, body?: unknown, who: Person = workspace.ada) => {
    const response = await workspace.api(who, method, path, body);
    assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  };
  const addTask = async (title: string, fields: Record<string, unknown> = {}) => {
    ids[title] = (await api('POST', '/v1/tasks', { title, taskListIds: [launchId], ...fields })).id;
  };
  const statusOf = async (title: string) => (await api('GET', `/v1/tasks/${ids[title]}`)).status.name as string;

  before(async () => {
    requireBrowser();
    workspace = await startWorkspace();
    run.workspace = workspace;
    run.browser = (await launchBrowser()) as Browser;
    for (const s of await api('GET', '/v1/task-statuses')) status[s.name] = s.id;
    // Ada's list Launch, shared with Ben, with tasks in every status.
    launchId = (await api('POST', '/v1/lists', { name: 'Launch', color: 'Blue' })).id;
    await api('POST', `/v1/lists/${launchId}/members`, { userId: workspace.ben.id });
    const both = [workspace.ada.id, workspace.ben.id];
    await addTask('Write the announcement', { priority: 'high', dueDate: `${YEAR + 1}-03-02`, assigneeIds: both });
    await addTask('Draft the outline', { parentId: ids['Write the announcement'] });
    await addTask('Collect quotes', { parentId: ids['Write the announcement'] });
    await addTask('Book the venue', {
      priority: 'urgent',
      dueDate: `${YEAR - 1}-11-30`,
      assigneeIds: [workspace.ben.id],
    });
    await addTask('Order snacks', { priority: 'low', assigneeIds: [workspace.ada.id] });
    await addTask('Print the posters', { taskStatusId: status['In progress'], dueDate: `${YEAR + 1}-01-15` });
    await addTask('Test the sound', { taskStatusId: status['In progress'], assigneeIds: both });
    await addTask('Pick a date', { taskStatusId: status['Done'], dueDate: `${YEAR - 1}-10-01` });
    ada = await openPage(run, workspace.ada, 'Rocket', { width: 1280, height: 800 });
    ben = await openPage(run, workspace.ben);
  });

  after(async () => {
    await run.browser?.close();
    await workspace?.close();
  });

  it('shows a list as columns by status in the team’s order, cards with what matters, and keeps it in the address', async () => {
    await ada.goto(`/lists/${launchId}`);
    await ada.getByRole('navigation', { name: 'View' }).getByRole('link', { name: 'Board' }).click();
    await ada.waitForURL(/\?view=board$/);
    await visible(card(ada, 'To do', 'Book the venue'));

    const headings = await ada.locator('.board-column h2').allInnerTexts();
    assert.deepEqual(headings, ['To do', 'In progress', 'Done'], 'the order of GET /v1/task-statuses');
    await visible(column(ada, 'To do').getByRole('list', { name: 'To do: 5 tasks' }));

    // Number, title, priority, due date (overdue in red, and said so), initials, subtasks.
    const venue = card(ada, 'To do', 'Book the venue');
    const number = (await api('GET', `/v1/tasks/${ids['Book the venue']}`)).number;
    await visible(venue.getByText(`#${number}`, { exact: true }));
    await visible(venue.getByText('Urgent', { exact: true }));
    const due = venue.getByText(/^Overdue: 30 Nov/);
    assert.match((await due.getAttribute('class')) ?? '', /is-overdue/);
    assert.equal(await venue.getByText('Assigned to Ben Okafor').count(), 1);
    assert.equal(await venue.locator('[data-initials="BO"]').count(), 1);
    const announcement = card(ada, 'To do', 'Write the announcement');
    await visible(announcement.getByText('2 subtasks'));
    await visible(announcement.getByText(/^Due 2 Mar/));
    assert.equal(
      await card(ada, 'Done', 'Pick a date')
        .getByText(/^Overdue/)
        .count(),
      0,
      'done is never overdue',
    );

    // The list's filters, in the address with the view; a reload keeps both.
    await ada.getByRole('button', { name: /^Priority/ }).click();
    await ada.getByRole('checkbox', { name: 'Urgent' }).check();
    await ada.keyboard.press('Escape');
    await ada.waitForURL(/\?view=board&priority=urgent$/);
    await gone(card(ada, 'To do', 'Order snacks'));
    await ada.reload();
    await visible(card(ada, 'To do', 'Book the venue'));
    assert.equal(await column(ada, 'In progress').getByRole('listitem').count(), 0);
    await visible(column(ada, 'In progress').getByText('No tasks'));
    await visible(ada.getByText('1 task matches these filters'));
    // The list view keeps the filters too.
    await ada.getByRole('navigation', { name: 'View' }).getByRole('link', { name: 'List' }).click();
    await ada.waitForURL(/\/lists\/\d+\?priority=urgent$/);
    await visible(ada.getByRole('link', { name: 'Book the venue', exact: true }));
    await ada.goto(`/lists/${launchId}?view=board`);
    await visible(card(ada, 'To do', 'Order snacks'));

    await screenshot(ada, '18-board-page');
    await expectAccessible(ada, 'the board');
    // README's picture: a wide window, a card with the keyboard's focus.
    await ada.setViewportSize({ width: 1440, height: 900 });
    await card(ada, 'To do', 'Book the venue').getByRole('link').focus();
    await readmeScreenshot(ada, '18-board', 'board');
    await ada.setViewportSize({ width: 1280, height: 800 });
  });

  it('a card dragged to another column changes its status, and the teammate’s board moves it live', async () => {
    await ben.goto(`/lists/${launchId}?view=board`);
    await visible(card(ben, 'To do', 'Book the venue'));

    await card(ada, 'To do', 'Book the venue').dragTo(column(ada, 'In progress').locator('.board-column-body'));
    await visible(card(ada, 'In progress', 'Book the venue'));
    await eventually(async () => assert.equal(await statusOf('Book the venue'), 'In progress'));
    // Ben did nothing: the event stream moved it on his screen.
    await visible(card(ben, 'In progress', 'Book the venue'));
    await gone(card(ben, 'To do', 'Book the venue'));
  });

  it('the keyboard moves a card too: Shift+→ and Shift+←, S for any status; focus follows, and the teammate sees each move', async () => {
    await card(ada, 'To do', 'Order snacks').getByRole('link').focus();
    await ada.keyboard.press('Shift+ArrowRight');
    await visible(card(ada, 'In progress', 'Order snacks'));
    assert.equal(await focusedText(ada), 'Order snacks', 'the focus went with the card');
    await eventually(async () => assert.equal(await statusOf('Order snacks'), 'In progress'));
    await visible(card(ben, 'In progress', 'Order snacks'));

    await ada.keyboard.press('Shift+ArrowRight');
    await visible(card(ben, 'Done', 'Order snacks'));
    assert.equal(await statusOf('Order snacks'), 'Done');
    await ada.keyboard.press('Shift+ArrowLeft');
    await visible(card(ben, 'In progress', 'Order snacks'));

    // Moving between cards and columns without moving them.
    // In progress: Test the sound, Print the posters, Order snacks, Book the venue (newest first).
    await ada.keyboard.press('ArrowLeft'); // the third card of To do, as Order snacks is the third here
    assert.equal(await focusedText(ada), 'Write the announcement');
    await ada.keyboard.press('k');
    assert.equal(await focusedText(ada), 'Draft the outline');
    await ada.keyboard.press('ArrowUp');
    assert.equal(await focusedText(ada), 'Collect quotes');
    await ada.keyboard.press('j');
    await ada.keyboard.press('k');
    assert.equal(await focusedText(ada), 'Collect quotes');

    // S: every status, in a dialog.
    await ada.keyboard.press('s');
    const dialog = ada.getByRole('dialog', { name: 'Move “Collect quotes”' });
    await visible(dialog);
    await expectAccessible(ada, 'the move dialog');
    await dialog.getByRole('button', { name: 'Done' }).click();
    await visible(card(ben, 'Done', 'Collect quotes'));
    assert.equal(await focusedText(ada), 'Collect quotes');
    assert.equal(await statusOf('Collect quotes'), 'Done');
    await visible(ada.getByRole('status').filter({ hasText: 'Moved “Collect quotes” to Done.' }));
  });

  it('a move that meets a newer change made elsewhere is refused, said, and the card shows where the task is', async () => {
    // Ben's page stops hearing about changes (its stream is cut), so his board goes stale.
    await ben.route('**/v1/events', (route) => route.abort());
    await ben.reload();
    await visible(card(ben, 'In progress', 'Print the posters'));
    await api('PATCH', `/v1/tasks/${ids['Print the posters']}`, { taskStatusId: status['Done'] });

    await card(ben, 'In progress', 'Print the posters').dragTo(column(ben, 'To do').locator('.board-column-body'));
    await visible(
      ben.getByText('“Print the posters” was moved to Done elsewhere meanwhile, so your move was not made.'),
    );
    await visible(card(ben, 'Done', 'Print the posters'));
    await gone(card(ben, 'To do', 'Print the posters'));
    assert.equal(await statusOf('Print the posters'), 'Done', 'the newer change stands');
    await ben.unroute('**/v1/events');
  });

  it('a move that cannot reach the server is put back, and says so', async () => {
    await ada.route('**/v1/tasks/*', (route) =>
      route.request().method() === 'PATCH' ? route.abort('internetdisconnected') : route.continue(),
    );
    await card(ada, 'In progress', 'Test the sound').dragTo(column(ada, 'Done').locator('.board-column-body'));
    await visible(ada.getByText('Could not move “Test the sound”: Cannot reach the server.', { exact: false }));
    await visible(card(ada, 'In progress', 'Test the sound'));
    assert.equal(await card(ada, 'Done', 'Test the sound').count(), 0, 'put back');
    assert.equal(await statusOf('Test the sound'), 'In progress');
    await ada.unroute('**/v1/tasks/*');
  });

  it('a long column draws only the cards in sight, and the keyboard still reaches its last', async () => {
    for (let i = 1; i <= 150; i++) await addTask(`Check seat ${i}`);
    await ada.goto(`/lists/${launchId}?view=board`);
    const todo = column(ada, 'To do');
    await visible(todo.getByRole('list', { name: 'To do: 152 tasks' }));
    const drawn = await todo.getByRole('listitem').count();
    assert.ok(drawn > 3 && drawn < 30, `${drawn} cards drawn of 150 and more`);
    await card(ada, 'To do', 'Check seat 150').getByRole('link').focus();
    await ada.keyboard.press('End');
    await eventually(async () => assert.equal(await focusedText(ada), 'Write the announcement'));
    const place = await ada.evaluate(`(() => {
      const card = document.activeElement.closest('li');
      return [card.getAttribute('aria-posinset'), card.getAttribute('aria-setsize')];
    })()`);
    assert.deepEqual(place, ['152', '152'], 'the last of 152, drawn once in sight');
    await ada.keyboard.press('Home');
    await eventually(async () => assert.equal(await focusedText(ada), 'Check seat 150'));
    // And a teammate's new task still arrives at the top, live.
    await addTask('Check seat 151');
    await visible(card(ada, 'To do', 'Check seat 151'));
  });

  it('My tasks as a board holds only the tasks assigned to me; an empty list says so, and columns say they are loading', async () => {
    await ben.goto('/?view=board');
    await visible(card(ben, 'In progress', 'Book the venue'));
    await visible(card(ben, 'In progress', 'Test the sound'));
    await visible(card(ben, 'To do', 'Write the announcement'));
    assert.equal(await ben.getByRole('link', { name: 'Order snacks', exact: true }).count(), 0, 'not Ben’s');

    const empty = (await api('POST', '/v1/lists', { name: 'Later', color: 'Gray' })).id;
    // Answers held back until the columns have been seen loading (a fixed delay raced a slow machine).
    const taskQueries = (url: URL) => url.pathname === '/v1/tasks';
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await ada.route(taskQueries, async (route) => {
      await held;
      await route.continue();
    });
    await ada.goto(`/lists/${empty}?view=board`);
    await visible(column(ada, 'To do').getByText('Loading…'));
    release();
    await visible(ada.getByText('No tasks here yet. Add one above.'));
    assert.equal(await ada.getByText('No tasks', { exact: true }).count(), 3, 'each column says it is empty');
    await ada.unroute(taskQueries);
    await screenshot(ada, '18-board-empty');
    await expectAccessible(ada, 'an empty board');
  });

  it('on a phone the columns scroll sideways inside the board; nothing else sticks out', async () => {
    const phone = await openPage(run, workspace.ben, undefined, { width: 390, height: 844 });
    try {
      await phone.goto(`/lists/${launchId}?view=board`);
      await visible(card(phone, 'In progress', 'Book the venue'));
      const overflow = await phone.evaluate(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      );
      assert.equal(overflow, 0, 'the page itself does not scroll sideways');
      await screenshot(phone, '18-phone-board');
      await expectAccessible(phone, 'the board on a phone');
    } finally {
      await phone.context().close();
    }
  });

  it('shortcuts: ? lists them, / searches, N adds, J/K move, O opens, S changes status, B switches view; none fire while typing', async () => {
    await ada.goto(`/lists/${launchId}`);
    await visible(ada.getByRole('link', { name: 'Book the venue', exact: true }));
    await ada.keyboard.press('?');
    const help = ada.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await visible(help);
    await visible(help.getByText('Move the card to the next column'));
    await screenshot(ada, '18-shortcuts');
    await expectAccessible(ada, 'the shortcuts overlay');
    await ada.keyboard.press('Escape');
    await gone(help);

    // Typing is typing: none of these keys is a shortcut inside a field.
    await ada.keyboard.press('/');
    const search = ada.getByRole('searchbox', { name: 'Search task titles' });
    assert.equal(await ada.evaluate('document.activeElement?.getAttribute("type")'), 'search');
    await ada.keyboard.type('?jks/nb');
    assert.equal(await search.inputValue(), '?jks/nb');
    assert.equal(await help.count(), 0);
    await search.fill('');
    await ada.locator('main').focus();
    await ada.keyboard.press('n');
    assert.equal(
      await ada.evaluate('document.activeElement?.getAttribute("placeholder")'),
      'Add a task and press Enter',
    );
    await ada.keyboard.type('Hire a photographer');
    await ada.keyboard.press('Enter');
    await visible(ada.getByRole('link', { name: 'Hire a photographer', exact: true }));

    // J and K walk the tasks (newest first), the arrows too once on a task; S opens the status menu.
    await ada.locator('main').focus();
    await ada.keyboard.press('j');
    assert.equal(await focusedText(ada), 'Hire a photographer');
    await ada.keyboard.press('j');
    await ada.keyboard.press('ArrowDown');
    await ada.keyboard.press('k');
    const second = await focusedText(ada);
    assert.equal(second, 'Check seat 151');
    await ada.keyboard.press('s');
    await ada.getByRole('menuitemradio', { name: 'In progress' }).click();
    await eventually(async () => assert.equal(await statusOf('Check seat 151'), 'In progress'));
    await ada.getByRole('link', { name: 'Check seat 151', exact: true }).focus();
    await ada.keyboard.press('o');
    await ada.waitForURL(new RegExp(`/tasks/${ids['Check seat 151']}$`));
    // On a task's page, S is that task's status.
    await visible(ada.getByLabel('Title', { exact: true }));
    await ada.keyboard.press('s');
    await visible(ada.getByRole('menu', { name: 'Status of “Check seat 151”' }));
    await ada.keyboard.press('Escape');

    // B: the list as a board, and back.
    await ada.goto(`/lists/${launchId}?priority=urgent`);
    await visible(ada.getByRole('link', { name: 'Book the venue', exact: true }));
    await ada.keyboard.press('b');
    await ada.waitForURL(/\?view=board&priority=urgent$/);
    await visible(card(ada, 'In progress', 'Book the venue'));
    await ada.keyboard.press('b');
    await ada.waitForURL(/\/lists\/\d+\?priority=urgent$/);
  });

  it('asked nothing of any other host and raised no page errors', () => assertCleanRun(watch));
});
