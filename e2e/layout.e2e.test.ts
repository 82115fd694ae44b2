/**
 * Every main screen at a phone's width (390 px) and a desktop's (1400 px), with data in it: long
 * titles and list names, several members, a key, an invitation, a webhook. Each must fit: nothing
 * scrolls sideways, and no control lies beyond reach (e2e/support/layout.ts). Then the small
 * things a layout promises: titles wrap between words, the filter bar keeps to one line, list
 * rows have column headers, board cards grow with their title, one date format, the focus after
 * S and Escape, and a sign-in page that asks nothing it is refused. Screenshots go to
 * test-artifacts/layout-*.png.
 *
 * The tests share one workspace and run in order.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Page } from 'playwright-core';
import { TEST_WEBHOOK_ENV } from '../test/harness.js';
import { admin } from '../test/processes.js';
import { assertCleanRun, describeInBrowser, launchBrowser, newContext, requireBrowser } from './support/browser.js';
import {
  DESKTOP,
  expectFitsPhoneAndDesktop,
  openPage,
  PHONE,
  valueButton,
  visible,
  type WebappRun,
} from './support/pages.js';
import { eventually, startWorkspace, type Person } from './support/workspace.js';

const YEAR = new Date().getFullYear();
const LIST = 'Internationalisation and accessibility programme';
const LONG_TITLE =
  'Agree with the caterers, the venue and the sound engineers on a timetable for the whole launch day, ' +
  'from the first delivery in the morning to the last guest leaving at night';
/** Words longer than a phone's row is wide: they may break, but only where nothing else can. */
const LONG_WORD = 'Supercalifragilisticexpialidocious-internationalisation';

describeInBrowser('every screen fits a phone and a desktop', () => {
  const run = { watch: { foreignRequests: [], errors: [], cspReports: [] } } as unknown as WebappRun;
  let ada: Page;
  let listId: number;
  let invitationLink: string;
  const ids: Record<string, number> = {};

  const api = async (method: string, path: string, body?: unknown, who: Person = run.workspace.ada) => {
    const response = await run.workspace.api(who, method, path, body);
    assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  };
  const addTask = async (title: string, fields: Record<string, unknown> = {}) => {
    ids[title] = (await api('POST', '/v1/tasks', { title, taskListIds: [listId], ...fields })).id;
  };

  before(async () => {
    requireBrowser();
    run.workspace = await startWorkspace({ ...TEST_WEBHOOK_ENV });
    run.browser = await launchBrowser();
    const { workspace } = run;
    const { ada: owner, ben, cy } = workspace;

    // More people, with long names and addresses, so the members table has rows to lay out.
    for (const [name, email] of [
      ['Maximiliana Featherstonehaugh-Wolstenholme', 'maximiliana.featherstonehaugh@example.test'],
      ['Dee Ng', 'dee@example.test'],
    ] as const) {
      const user = await admin(workspace.databaseUrl, 'user', 'create', '--email', email, '--name', name);
      await admin(workspace.databaseUrl, 'member', 'add', '--org', workspace.rocket.id, '--user', user.id);
    }
    await admin(
      workspace.databaseUrl,
      'key',
      'create',
      '--org',
      workspace.rocket.id,
      '--user',
      owner.id,
      '--name',
      'Continuous integration on the release branch',
    );
    invitationLink = (await api('POST', '/v1/invitations', { role: 'member', email: 'newcomer@example.test' })).link;
    await api('POST', '/v1/webhooks', {
      url: 'http://127.0.0.1:9/hooks/tasklane/a-rather-long-path-for-the-chat-bridge',
      description: 'The team chat bridge, for every change',
    });
    await api('POST', '/v1/task-statuses', { name: 'Waiting for the customer' });

    listId = (await api('POST', '/v1/lists', { name: LIST, color: 'Blue' })).id;
    await addTask(LONG_TITLE, { priority: 'urgent', dueDate: `${YEAR}-12-01`, assigneeIds: [owner.id, ben.id, cy.id] });
    await addTask(LONG_WORD, { priority: 'high', dueDate: `${YEAR + 1}-01-15`, assigneeIds: [owner.id] });
    await addTask('Book the venue', { assigneeIds: [owner.id] });
    await addTask('Print posters', { dueDate: `${YEAR}-12-03` });
    await addTask('Order snacks', { parentId: ids['Book the venue'], priority: 'low' });
    await api('PATCH', `/v1/tasks/${ids[LONG_TITLE]}`, {
      description: 'A description with a [link](https://example.test) and `code`.',
    });

    ada = await openPage(run, owner, 'Rocket', DESKTOP);
  });

  after(async () => {
    await run.browser?.close();
    await run.workspace?.close();
  });

  it('the sign-in page fits both sizes and asks the server nothing it refuses (no 401, no console error)', async () => {
    const context = await newContext(run.browser, run.workspace.url, run.watch, PHONE);
    const page = await context.newPage();
    const refused: string[] = [];
    const consoleErrors: string[] = [];
    page.on('response', (response) => {
      if (response.status() >= 400) refused.push(`${response.status()} ${response.url()}`);
    });
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    await page.goto('/');
    await visible(page.getByRole('heading', { name: 'Sign in' }));
    await page.waitForLoadState('networkidle');
    assert.deepEqual(refused, [], 'no request on load is refused');
    assert.deepEqual(consoleErrors, [], 'the console stays clean');
    await expectFitsPhoneAndDesktop(page, 'the sign-in page', 'layout-sign-in');
    await context.close();
  });

  it('a list as rows fits both sizes, with column headers over the values', async () => {
    await ada.goto(`/lists/${listId}`);
    await visible(ada.getByRole('link', { name: LONG_TITLE }));
    // A header row names the columns (each value's own name says it to a screen reader), over its cells.
    const header = ada.locator('.task-row-header');
    const names = (await header.innerText()).split(/\s+/).filter(Boolean);
    assert.deepEqual(
      names.map((name) => name.toLowerCase()),
      ['task', 'lists', 'status', 'priority', 'due', 'assignees'],
    );
    for (const cell of ['status', 'priority', 'due', 'assignees']) {
      const [over, under] = [
        header.locator(`.cell-${cell}`),
        ada.locator(`.task-row:not(.task-row-header) .cell-${cell}`).first(),
      ];
      const [a, b] = [(await over.boundingBox())!, (await under.boundingBox())!];
      assert.ok(Math.abs(a.x - b.x) <= 1 && Math.abs(a.width - b.width) <= 1, `"${cell}" stands over its column`);
    }
    await expectFitsPhoneAndDesktop(ada, 'a list as rows', 'layout-list');
  });

  it('the list’s title and the task titles wrap between words, never inside one', async () => {
    await ada.setViewportSize(PHONE);
    try {
      for (const locator of [ada.getByRole('heading', { name: LIST }), ada.getByRole('link', { name: LONG_TITLE })]) {
        const wrap = await locator.evaluate((el) => el.ownerDocument.defaultView!.getComputedStyle(el).overflowWrap);
        assert.equal(wrap, 'break-word', 'a word breaks only where it cannot fit whole');
        const broken = await locator.evaluate(brokenWords);
        assert.deepEqual(broken, [], 'no word is split across lines');
      }
    } finally {
      await ada.setViewportSize(DESKTOP);
    }
  });

  it('the filter bar keeps to one line at both sizes; "More filters" opens the rest', async () => {
    for (const size of [DESKTOP, PHONE]) {
      await ada.setViewportSize(size);
      const more = ada.getByRole('button', { name: 'More filters' });
      await visible(more);
      assert.equal(await more.getAttribute('aria-expanded'), 'false');
      const bar = ada.locator('.filter-bar');
      const tops = await bar.evaluate((el) =>
        [...el.querySelectorAll('input, button, select')]
          .filter((control) => control.getClientRects().length > 0)
          .map((control) => Math.round(control.getBoundingClientRect().top)),
      );
      assert.ok(tops.length >= 2, `the bar shows its first filters (${tops.length})`);
      assert.ok(Math.max(...tops) - Math.min(...tops) <= 8, `one line at ${size.width} px: ${tops.join(', ')}`);
      assert.equal(await ada.getByLabel('Due until').isVisible(), false, 'the dates wait behind More filters');
      await more.click();
      assert.equal(await more.getAttribute('aria-expanded'), 'true');
      await visible(ada.getByLabel('Due until'));
      await expectFitsPhoneAndDesktop(ada, `the filters, opened at ${size.width} px`, `layout-filters-${size.width}`);
      await more.click();
      assert.equal(await ada.getByLabel('Due until').isVisible(), false);
    }
    await ada.setViewportSize(DESKTOP);
  });

  it('one date format: due dates, and the task’s creation, the same way, the year only when not this year', async () => {
    await visible(valueButton(ada, `Due date of “${LONG_WORD}”`).getByText(`Due 15 Jan ${YEAR + 1}`));
    await visible(valueButton(ada, `Due date of “${LONG_TITLE}”`).getByText('Due 1 Dec', { exact: true }));
    await ada.getByRole('link', { name: LONG_TITLE }).click();
    const created = ada.locator('.task-properties').getByText(/^\d{1,2} [A-Z][a-z]{2}$/);
    await visible(created);
    assert.equal(
      await ada
        .locator('.task-properties')
        .getByText(/\d+\/\d+\/\d+/)
        .count(),
      0,
      'no 11/27/2026',
    );
  });

  it('the task detail fits both sizes; its title is a growing text box that shows the whole title', async () => {
    const title = ada.getByRole('textbox', { name: 'Title' });
    await visible(title);
    assert.equal(await title.evaluate((el) => el.tagName), 'TEXTAREA');
    for (const size of [PHONE, DESKTOP]) {
      await ada.setViewportSize(size);
      const hidden = await title.evaluate((el) => el.scrollHeight - el.clientHeight);
      assert.ok(hidden <= 1, `the whole title shows at ${size.width} px (${hidden} px hidden)`);
    }
    await expectFitsPhoneAndDesktop(ada, 'the task detail', 'layout-task');

    // Enter saves, and a title holds no line break.
    await title.click();
    await title.press('Control+End');
    await title.pressSequentially(' (draft)');
    await title.press('Enter');
    await eventually(async () =>
      assert.equal((await api('GET', `/v1/tasks/${ids[LONG_TITLE]}`)).title, `${LONG_TITLE} (draft)`),
    );
    assert.ok(!(await title.inputValue()).includes('\n'));
    await api('PATCH', `/v1/tasks/${ids[LONG_TITLE]}`, { title: LONG_TITLE });
  });

  it('S then Escape on a task row leaves the focus where it was', async () => {
    await ada.goto(`/lists/${listId}`);
    const link = ada.getByRole('link', { name: 'Book the venue' });
    await link.focus();
    await ada.keyboard.press('s');
    await visible(ada.getByRole('menu', { name: 'Status of “Book the venue”' }));
    await ada.keyboard.press('Escape');
    assert.equal(await ada.evaluate('document.activeElement?.textContent'), 'Book the venue');
  });

  it('the board fits both sizes: at 1400 px its columns fit, and on a phone they scroll sideways', async () => {
    await ada.goto(`/lists/${listId}?view=board`);
    await visible(ada.getByRole('region', { name: 'Waiting for the customer', exact: true }));
    await visible(ada.getByRole('link', { name: LONG_TITLE }));
    const board = ada.locator('.board');
    const fits = async () => board.evaluate((el) => el.scrollWidth <= el.clientWidth);
    assert.equal(await fits(), true, 'every column shows at 1400 px');
    await expectFitsPhoneAndDesktop(ada, 'a list as a board', 'layout-board');
  });

  it('a board card grows with its title: the whole title shows, and cards never overlap', async () => {
    const cards = ada.locator('.board-card');
    const long = cards.filter({ has: ada.getByRole('link', { name: LONG_TITLE }) });
    const short = cards.filter({ has: ada.getByRole('link', { name: 'Book the venue' }) });
    const title = long.getByRole('link', { name: LONG_TITLE });
    assert.ok(await title.evaluate((el) => el.scrollHeight <= el.clientHeight + 1), 'the title is not cut');
    const [longBox, shortBox] = [await long.boundingBox(), await short.boundingBox()];
    assert.ok(longBox!.height > shortBox!.height + 20, `${longBox!.height} px beside ${shortBox!.height} px`);
    const boxes = await ada
      .locator('.board-column')
      .first()
      .locator('.board-card')
      .evaluateAll((els) => els.map((el) => el.getBoundingClientRect()).map((rect) => [rect.top, rect.bottom]));
    for (let i = 1; i < boxes.length; i++) assert.ok(boxes[i]![0]! >= boxes[i - 1]![1]!, 'cards stack, not overlap');
  });

  it('My tasks fits both sizes', async () => {
    await ada.goto('/');
    await visible(ada.getByRole('link', { name: LONG_TITLE }));
    await expectFitsPhoneAndDesktop(ada, 'My tasks', 'layout-my-tasks');
    await ada.goto('/?view=board');
    await visible(ada.getByRole('link', { name: LONG_WORD }));
    await expectFitsPhoneAndDesktop(ada, 'My tasks as a board', 'layout-my-tasks-board');
  });

  it('Settings fits both sizes: profile, API keys, webhooks, members with an invitation, workflow statuses', async () => {
    await ada.goto('/settings');
    await visible(ada.getByText('Continuous integration on the release branch'));
    await visible(ada.getByText('The team chat bridge, for every change'));
    await visible(ada.getByText('Maximiliana Featherstonehaugh-Wolstenholme'));
    await visible(ada.getByText('newcomer@example.test'));
    await visible(ada.getByText('Waiting for the customer').first());
    await expectFitsPhoneAndDesktop(ada, 'Settings', 'layout-settings');

    // On a phone the tables are stacked rows: none scrolls sideways, each row's controls (Revoke,
    // a role, Remove) are on the screen as it is laid out.
    await ada.setViewportSize(PHONE);
    try {
      const sideways = await ada
        .locator('.table-scroll')
        .evaluateAll((boxes) => boxes.filter((box) => box.scrollWidth > box.clientWidth).length);
      assert.equal(sideways, 0, 'no table scrolls sideways on a phone');
      for (const control of [
        ada.getByRole('button', { name: /^Revoke key/ }).first(),
        ada.getByRole('button', { name: /^Revoke the invitation/ }),
        ada.getByRole('combobox', { name: 'Role of Dee Ng' }),
        ada.getByRole('button', { name: 'Remove Dee Ng' }),
      ]) {
        const box = (await control.boundingBox())!;
        assert.ok(box.x >= 0 && box.x + box.width <= PHONE.width, `${control} is on the screen (${box.x})`);
      }
    } finally {
      await ada.setViewportSize(DESKTOP);
    }
  });

  it('the workflow statuses line up: every row’s arrows in one column, no two buttons touching', async () => {
    const section = ada.locator('#statuses');
    const arrows = await section
      .getByRole('button', { name: /^Move .* (up|down)/ })
      .evaluateAll((els) => els.map((el) => Math.round(el.getBoundingClientRect().left)));
    const ups = new Set(arrows);
    assert.ok(ups.size <= 2, `the arrows stand in their columns: ${[...ups].join(', ')}`);
    const touching = await section.evaluate((el) => {
      const boxes = [...el.querySelectorAll('button')]
        .filter((b) => b.getClientRects().length > 0)
        .map((b) => b.getBoundingClientRect());
      const pairs: string[] = [];
      for (const a of boxes)
        for (const b of boxes)
          if (a !== b && a.top < b.bottom && b.top < a.bottom && a.right <= b.left && b.left - a.right < 2)
            pairs.push(`${a.right}→${b.left}`);
      return pairs;
    });
    assert.deepEqual(touching, [], 'buttons side by side keep a gap');
  });

  it('the invitation page fits both sizes', async () => {
    const context = await newContext(run.browser, run.workspace.url, run.watch, DESKTOP);
    const page = await context.newPage();
    await page.goto(invitationLink);
    await visible(page.getByRole('heading', { name: /join Rocket/i }));
    await expectFitsPhoneAndDesktop(page, 'the invitation page', 'layout-join');
    await context.close();
  });

  it('asked nothing of any other host and raised no page errors', () => assertCleanRun(run.watch));
});

/**
 * Runs in the page, on an element: the words of its text that a line break splits (the text laid
 * out as it is, read back a character at a time by the rectangles of a Range). A word may end a
 * line at its own hyphen. (No DOM types here: `element` is the page's.)
 */
function brokenWords(element: any): string[] {
  const broken: string[] = [];
  const SHOW_TEXT = 4; // NodeFilter.SHOW_TEXT
  const walker = element.ownerDocument.createTreeWalker(element, SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text: string = node.textContent;
    const range = element.ownerDocument.createRange();
    let word = '';
    let lastTop: number | null = null;
    for (let i = 0; i < text.length; i++) {
      if (/\s/.test(text[i]!)) {
        word = '';
        lastTop = null;
        continue;
      }
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const top = Math.round(range.getBoundingClientRect().top);
      if (lastTop !== null && top > lastTop + 2 && !/[-–]$/.test(word)) broken.push(word + text[i]);
      word += text[i];
      lastTop = top;
    }
  }
  return broken;
}
