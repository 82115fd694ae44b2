/**
 * A task's timeline in headless Chromium against the real `tasklane serve`: two teammates
 * comment on one task and see each other's comments and changes arrive without reloading; a
 * teammate the task is not shared with gets the not-found page; a draft survives a reload; an
 * edit that meets a newer version shows both and loses neither; an owner deletes a comment;
 * older history loads on demand; a long description's change shows the start of its texts and
 * then, asked, the whole entry. Screenshots go to test-artifacts/ (15-*.png).
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
  requireBrowser,
  screenshot,
  type Watch,
} from './support/browser.js';
import {
  choose,
  expectAccessible,
  expectFitsPhoneAndDesktop,
  gone,
  openPage,
  visible,
  type WebappRun,
} from './support/pages.js';
import { eventually, startWorkspace, type Person, type Workspace } from './support/workspace.js';

const TITLE = 'Book the venue';
const YEAR = new Date().getFullYear();

/** The page's timeline: entries and comments, oldest first. */
const timelineOf = (page: Page) => page.getByRole('list', { name: 'Activity and comments, oldest first' });
const composerOf = (page: Page) => page.getByRole('form', { name: 'Add a comment' });
const commentBox = (page: Page) => composerOf(page).getByLabel('Comment (CommonMark)');
const commentBy = (page: Page, author: string, text: string) =>
  timelineOf(page)
    .getByRole('article', { name: `${author} commented` })
    .filter({ hasText: text });

describeInBrowser('a task’s timeline in a real browser', () => {
  const watch: Watch = { foreignRequests: [], errors: [], cspReports: [] };
  const run = { watch } as unknown as WebappRun;
  let workspace: Workspace;
  let ada: Page;
  let ben: Page;
  let taskId: number;

  const api = async (who: Person, method: string, path: string, body?: unknown) => {
    const response = await workspace.api(who, method, path, body);
    assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  };
  const comments = async () => (await api(workspace.ada, 'GET', `/v1/tasks/${taskId}/comments`)) as any[];

  /** Writes and sends a comment the way a person does. */
  const postComment = async (page: Page, text: string) => {
    await commentBox(page).fill(text);
    await composerOf(page).getByRole('button', { name: 'Comment', exact: true }).click();
    await eventually(async () => assert.equal(await commentBox(page).inputValue(), '', 'the box empties once sent'));
  };

  before(async () => {
    requireBrowser();
    workspace = await startWorkspace();
    run.workspace = workspace;
    run.browser = (await launchBrowser()) as Browser;
    // Ada's list Launch, shared with Ben (not with Cy, the team's admin), and a task in it.
    const launch = await api(workspace.ada, 'POST', '/v1/lists', { name: 'Launch', color: 'Blue' });
    await api(workspace.ada, 'POST', `/v1/lists/${launch.id}/members`, { userId: workspace.ben.id });
    const task = await api(workspace.ada, 'POST', '/v1/tasks', {
      title: TITLE,
      taskListIds: [launch.id],
      dueDate: `${YEAR}-11-30`,
    });
    taskId = task.id;
    ada = await openPage(run, workspace.ada, 'Rocket');
    ben = await openPage(run, workspace.ben);
  });

  after(async () => {
    await run.browser?.close();
    await workspace?.close();
  });

  it('two teammates see each other’s comments and changes appear without reloading', async () => {
    await ada.goto(`/tasks/${taskId}`);
    await ben.goto(`/tasks/${taskId}`);
    await visible(timelineOf(ada).getByText('You created this task'));
    await visible(timelineOf(ben).getByText('Ada Lovelace created this task'));

    await postComment(ada, 'The **town hall** is free on the 5th. Shall we book it?');
    await visible(commentBy(ada, 'You', 'The town hall is free'));
    const seenByBen = commentBy(ben, 'Ada Lovelace', 'The town hall is free');
    await visible(seenByBen);
    await visible(seenByBen.locator('strong', { hasText: 'town hall' })); // Markdown, rendered

    // Ben answers from the keyboard: Ctrl+Enter sends.
    await commentBox(ben).fill('Yes, and move the date to the 5th.');
    await commentBox(ben).press('Control+Enter');
    await visible(commentBy(ada, 'Ben Okafor', 'move the date to the 5th'));

    // Their changes reach the other's timeline as sentences, live.
    await api(workspace.ada, 'PATCH', `/v1/tasks/${taskId}`, { dueDate: `${YEAR}-12-05` });
    await visible(timelineOf(ben).getByText('Ada Lovelace changed the due date from 30 Nov to 5 Dec'));
    await choose(ben, `Status of “${TITLE}”`, 'Done');
    await visible(timelineOf(ada).getByText('Ben Okafor moved this to Done'));
    await visible(timelineOf(ben).getByText('You moved this to Done'));

    // Oldest first, comments among the entries by time.
    const order = await timelineOf(ada).locator(':scope > li').allInnerTexts();
    const at = (text: string) => order.findIndex((item) => item.includes(text));
    assert.ok(at('You created this task') < at('The town hall is free'), order.join('\n'));
    assert.ok(at('The town hall is free') < at('move the date to the 5th'), order.join('\n'));
    assert.ok(at('move the date to the 5th') < at('moved this to Done'), order.join('\n'));

    // Relative times, with the exact time on hover, dated as everywhere (this year's without its year).
    const time = commentBy(ada, 'Ben Okafor', 'move the date').locator('time').first();
    assert.equal(await time.innerText(), 'just now');
    // The hour is numeric ("0:19" after midnight, "14:05" after noon): a run before 10:00 is no exception.
    assert.match((await time.getAttribute('title')) ?? '', /^\d{1,2} [A-Z][a-z]{2}, \d{1,2}:\d\d$/);
    await screenshot(ada, '15-timeline');
    await expectAccessible(ada, 'the task timeline');
  });

  it('a teammate the task is not shared with gets the not-found page', async () => {
    const cy = await openPage(run, workspace.cy);
    try {
      await cy.goto(`/tasks/${taskId}`);
      await visible(cy.getByRole('heading', { name: 'Task not found' }));
      assert.equal(await cy.getByText('The town hall is free').count(), 0, 'no comment shows');
      assert.equal(await cy.getByText(TITLE).count(), 0, 'nor the title');
      // Nothing but the same answers from the API.
      assert.equal((await workspace.api(workspace.cy, 'GET', `/v1/tasks/${taskId}/comments`)).status, 403);
      assert.equal((await workspace.api(workspace.cy, 'GET', `/v1/tasks/${taskId}/activity`)).status, 403);
      // A task that does not exist reads the same.
      await cy.goto('/tasks/999999');
      await visible(cy.getByRole('heading', { name: 'Task not found' }));
    } finally {
      await cy.context().close();
    }
  });

  it('a comment being written survives a reload, shows a preview, and is cleared once sent', async () => {
    const draft = 'Draft: _call the caterers_ first';
    await commentBox(ben).fill(draft);
    await composerOf(ben).getByRole('button', { name: 'Preview' }).click();
    await visible(composerOf(ben).locator('em', { hasText: 'call the caterers' }));
    await ben.reload();
    await visible(commentBox(ben));
    assert.equal(await commentBox(ben).inputValue(), draft, 'the draft is back after a reload');

    await postComment(ben, `${draft}, then the florist.`);
    await visible(commentBy(ada, 'Ben Okafor', 'then the florist'));
    await ben.reload();
    await visible(commentBy(ben, 'You', 'then the florist'));
    assert.equal(await commentBox(ben).inputValue(), '', 'sent: no draft left');
    const drafts = `Object.keys(localStorage).filter((key) => key.startsWith('tasklane.comment-draft')).length`;
    assert.equal(await ben.evaluate(drafts), 0, 'nothing kept once sent');
  });

  it('an edit that meets a newer version shows both texts, loses neither, and reaches the teammate', async () => {
    const mine = commentBy(ada, 'You', 'The town hall is free');
    await mine.getByRole('button', { name: 'Edit your comment' }).click();
    const editor = ada.getByRole('form', { name: 'Edit your comment' });
    const adaText = 'The town hall is free on the 5th: booked for 18:00.';
    await editor.getByLabel('Your comment (CommonMark)').fill(adaText);

    // Meanwhile Ada's comment is changed elsewhere (her API key: another device).
    const comment = (await comments()).find((c) => c.body.startsWith('The **town hall**'));
    const elsewhere = 'The town hall is free on the 5th and the 6th.';
    await api(workspace.ada, 'PATCH', `/v1/tasks/${taskId}/comments/${comment.id}`, { body: elsewhere });
    await visible(editor.getByText('This comment was just changed elsewhere'));
    await expectFitsPhoneAndDesktop(ada, 'a comment’s editor, changed meanwhile', '15-comment-changed');

    await editor.getByRole('button', { name: 'Save comment' }).click();
    await visible(ada.getByRole('heading', { name: 'This comment was changed elsewhere while you were editing it' }));
    assert.equal(await ada.getByLabel('Saved version').inputValue(), elsewhere);
    assert.equal(await ada.getByLabel('Your version (not saved)').inputValue(), adaText);
    assert.equal(
      (await comments()).find((c) => c.id === comment.id).body,
      elsewhere,
      'the refused save changed nothing',
    );
    await screenshot(ada, '15-comment-conflict');
    await expectFitsPhoneAndDesktop(ada, 'a comment’s conflict', '15-comment-conflict');

    await ada.getByRole('button', { name: 'Combine both' }).click();
    await ada.getByRole('button', { name: 'Save this text' }).click();
    await gone(ada.getByLabel('Text to keep'));
    const saved = (await comments()).find((c) => c.id === comment.id).body;
    assert.ok(saved.includes(adaText) && saved.includes(elsewhere), saved);

    // Ben's page follows: the new text, marked edited, and the edit as an entry.
    const seen = commentBy(ben, 'Ada Lovelace', 'booked for 18:00');
    await visible(seen);
    await visible(seen.getByText('edited'));
    // Two edits: the one made elsewhere, and the text kept.
    await eventually(async () =>
      assert.equal(await timelineOf(ben).getByText('Ada Lovelace edited their comment').count(), 2),
    );
  });

  it('the team’s owner deletes a teammate’s comment; the author sees it go and who did it', async () => {
    const bens = commentBy(ada, 'Ben Okafor', 'move the date to the 5th');
    await bens.getByRole('button', { name: 'Delete the comment by Ben Okafor' }).click();
    await bens.getByRole('button', { name: 'Delete comment' }).click();
    await gone(commentBy(ada, 'Ben Okafor', 'move the date to the 5th'));
    await gone(commentBy(ben, 'You', 'move the date to the 5th'));
    await visible(timelineOf(ben).getByText('Ada Lovelace deleted a comment by you'));
    // Ben, a member, may neither edit nor delete Ada's comment.
    const adas = commentBy(ben, 'Ada Lovelace', 'booked for 18:00');
    assert.equal(await adas.getByRole('button').count(), 0, 'no Edit or Delete on another’s comment');
  });

  it('reads on a phone-sized screen: nothing sticks out sideways', async () => {
    const phone = await openPage(run, workspace.ben, undefined, { width: 390, height: 844 });
    try {
      await phone.goto(`/tasks/${taskId}`);
      await visible(commentBy(phone, 'Ada Lovelace', 'booked for 18:00'));
      await visible(composerOf(phone));
      await screenshot(phone, '15-phone-timeline');
      await expectAccessible(phone, 'the timeline on a phone');
      const overflow = await phone.evaluate(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      );
      assert.equal(overflow, 0, 'nothing sticks out sideways');
    } finally {
      await phone.context().close();
    }
  });

  it('older activity loads on demand when there is more than a page', async () => {
    // Sixty changes push the task's creation beyond the first page (50 entries).
    for (let i = 0; i < 60; i++) {
      await api(workspace.ada, 'PATCH', `/v1/tasks/${taskId}`, { priority: i % 2 ? 'high' : 'low' });
    }
    await ada.reload();
    await visible(timelineOf(ada).getByText('You changed the priority from High to Low').first());
    const older = ada.getByRole('button', { name: 'Show older activity' });
    await visible(older);
    assert.equal(await timelineOf(ada).getByText('You created this task').count(), 0, 'not loaded yet');
    assert.equal(await commentBy(ada, 'You', 'booked for 18:00').count(), 0, 'nor the comments of that time');
    await older.click();
    await visible(timelineOf(ada).getByText('You created this task'));
    await visible(commentBy(ada, 'You', 'booked for 18:00'));
    await gone(older);
    // A change now joins the top of what is loaded, and keeps the older entries.
    await api(workspace.ben, 'PATCH', `/v1/tasks/${taskId}`, { title: 'Book the town hall' });
    await visible(timelineOf(ada).getByText('Ben Okafor renamed this from “Book the venue” to “Book the town hall”'));
    await visible(timelineOf(ada).getByText('You created this task'));
  });

  it('a long description change shows the start of both texts; "Show the whole texts" fetches the entry whole, on a phone too', async () => {
    const text = (label: string) =>
      `${label} starts here. ${'Lorem ipsum dolor sit amet. '.repeat(150)}${label} ENDS HERE`;
    await api(workspace.ada, 'PATCH', `/v1/tasks/${taskId}`, { description: text('Before') });
    await api(workspace.ada, 'PATCH', `/v1/tasks/${taskId}`, { description: text('After') });
    const [entry] = await api(workspace.ada, 'GET', `/v1/tasks/${taskId}/activity?limit=1`);
    assert.equal(entry.shortened, true, 'the page shortens texts of over 1,000 characters');

    for (const viewport of [undefined, { width: 390, height: 844 }]) {
      const page = await openPage(run, workspace.ada, 'Rocket', viewport);
      try {
        await page.goto(`/tasks/${taskId}`);
        const edited = timelineOf(page).getByRole('listitem').filter({ hasText: 'You edited the description' });
        await edited.getByText('Show the start of the texts').click();
        await visible(edited.getByText('After starts here.'));
        await visible(edited.getByText('Before starts here.'));
        assert.equal(await edited.getByText(/ENDS HERE/).count(), 0, 'the texts are cut');
        await visible(edited.getByText('Each text is cut to its first 1,000 characters.'));

        const whole = page.waitForResponse((r) => r.url().endsWith(`/v1/tasks/${taskId}/activity/${entry.id}`));
        await edited.getByRole('button', { name: 'Show the whole texts' }).click();
        assert.equal((await whole).status(), 200);
        await visible(edited.getByText('After ENDS HERE'));
        await visible(edited.getByText('Before ENDS HERE'));
        await gone(edited.getByRole('button', { name: 'Show the whole texts' }));
        await expectAccessible(page, `a description's change shown whole${viewport ? ' on a phone' : ''}`);
        if (viewport) {
          await screenshot(page, '15-phone-description-change');
          const overflow = await page.evaluate(
            'document.documentElement.scrollWidth - document.documentElement.clientWidth',
          );
          assert.equal(overflow, 0, 'nothing sticks out sideways');
        }
      } finally {
        await page.context().close();
      }
    }
  });

  it('asked nothing of any other host and raised no page errors', () => assertCleanRun(watch));
});
