/**
 * What the browser steps share: the run (workspace, browser, the pages open so far) and the
 * ways to find things on a page. The steps build on each other, so they share one run.
 */
import assert from 'node:assert/strict';
import type { Browser, Download, Locator, Page } from 'playwright-core';
import { seriousViolations } from './axe.js';
import { newContext, screenshot, unlabelledControls, type Watch } from './browser.js';
import { layoutProblems } from './layout.js';
import type { Person, Workspace } from './workspace.js';

export interface WebappRun {
  workspace: Workspace;
  browser: Browser;
  watch: Watch;
  /** Ada's page, signed in to Rocket by the first step. */
  ada: Page;
  /** Ben's page, opened when the teammates' steps begin. */
  ben: Page;
  /** The list Ada makes in the sidebar ("Launch", later "Launch 2026"). */
  launchListId: number;
}

export const visible = (locator: Locator) => locator.waitFor({ state: 'visible' });
export const gone = (locator: Locator) => locator.waitFor({ state: 'detached' });
export const sidebarOf = (page: Page) => page.getByRole('navigation', { name: 'Lists and views' });
/** A list in the sidebar's main section (not under Archived). */
export const sidebarLink = (page: Page, name: string) =>
  page.getByRole('list', { name: 'Your lists' }).getByRole('link', { name, exact: true });

/**
 * The screen as it is now passes the accessibility checks: every visible control has a name,
 * and axe-core finds nothing serious or critical.
 */
export async function expectAccessible(page: Page, screen: string): Promise<void> {
  assert.deepEqual(await unlabelledControls(page), [], `controls without an accessible name on ${screen}`);
  assert.deepEqual(await seriousViolations(page), [], `axe-core: serious or critical violations on ${screen}`);
}

/** A desktop and a phone: the widths each main screen is checked at. */
export const DESKTOP = { width: 1400, height: 900 };
export const PHONE = { width: 390, height: 844 };

/**
 * The page's width holds its content: nothing scrolls sideways, and every control can be reached
 * (none lies beyond the window's width with nothing to scroll it into view, none is cut off by a
 * box that hides its overflow: support/layout.ts). Fails naming what sticks out.
 */
export async function fitsWidth(page: Page): Promise<void> {
  const { overflow, unreachable } = await layoutProblems(page);
  assert.equal(overflow, null);
  assert.deepEqual(unreachable, [], `controls out of reach in a ${page.viewportSize()?.width} px window`);
}

/**
 * The screen as it is now, on a phone and on a desktop: it fits the width and passes the
 * accessibility checks at each, and is screenshotted as test-artifacts/<name>-phone.png and
 * <name>-desktop.png. The page is then given back its own size.
 */
export async function expectFitsPhoneAndDesktop(page: Page, screen: string, name: string): Promise<void> {
  const own = page.viewportSize()!;
  for (const [device, size] of [
    ['phone', PHONE],
    ['desktop', DESKTOP],
  ] as const) {
    await page.setViewportSize(size);
    await fitsWidth(page);
    await expectAccessible(page, `${screen} on a ${device}`);
    await screenshot(page, `${name}-${device}`);
  }
  await page.setViewportSize(own);
}

export async function signIn(page: Page, who: Person, team?: string): Promise<void> {
  await page.goto('/');
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  if (team) await page.getByRole('button', { name: new RegExp(`^${team}`) }).click();
  await visible(page.getByRole('heading', { name: 'My tasks' }));
  await visible(page.locator('.connection-live')); // the event stream is open
}

/** A signed-in page in a browser context of its own (its own cookies and storage). */
export async function openPage(
  run: WebappRun,
  who: Person,
  team?: string,
  viewport?: { width: number; height: number },
): Promise<Page> {
  const context = await newContext(run.browser, run.workspace.url, run.watch, viewport);
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await signIn(page, who, team);
  return page;
}

/** The task with exactly this title, as `who` reads it through the API (GET /v1/tasks/{id}). */
export async function taskByTitle(workspace: Workspace, who: Person, title: string): Promise<any> {
  const { body } = await workspace.api(who, 'GET', `/v1/tasks?query=${encodeURIComponent(title)}`);
  const task = body.find((t: any) => t.title === title);
  assert.ok(task, `no task "${title}" for ${who.name}`);
  return (await workspace.api(who, 'GET', `/v1/tasks/${task.id}`)).body;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A value's button in a task row or on the detail page, whatever it holds: "Status of “Book the venue”: …". */
export const valueButton = (page: Page, field: string) =>
  page.getByRole('button', { name: new RegExp(`^${escapeRegExp(field)}: `) });

/** Picks a status or a priority the way a person does: opens its menu and clicks the choice. */
export async function choose(page: Page, field: string, option: string): Promise<void> {
  await valueButton(page, field).click();
  await page.getByRole('menuitemradio', { name: option, exact: true }).click();
}

/**
 * Sets a due date with the mouse: clicks the date and fills the input it becomes in one go, as a
 * pick from its calendar does (the calendar itself is Chromium's own window, out of a page's reach).
 */
export async function setDueDate(page: Page, task: string, date: string): Promise<void> {
  await valueButton(page, `Due date of ${task}`).click();
  await page.getByLabel(`Due date of ${task}`, { exact: true }).fill(date);
  await visible(valueButton(page, `Due date of ${task}`));
}

/**
 * The sidebar's background runs down the whole page, however tall: the nav that holds it is as
 * tall as the page, not as the window (a sticky nav of one window's height left the rest of the
 * column bare in full-page screenshots and in print).
 */
export async function expectSidebarFullHeight(page: Page, screen: string): Promise<void> {
  const { navBottom, pageHeight, windowHeight } = (await page.evaluate(`(() => {
    const nav = document.querySelector('nav.sidebar').getBoundingClientRect();
    return { navBottom: nav.bottom + window.scrollY, pageHeight: document.documentElement.scrollHeight, windowHeight: innerHeight };
  })()`)) as { navBottom: number; pageHeight: number; windowHeight: number };
  assert.ok(pageHeight > windowHeight, `${screen} is taller than the window (${pageHeight} > ${windowHeight})`);
  assert.ok(
    navBottom >= pageHeight - 1,
    `${screen}: the sidebar ends at ${navBottom}px of a page ${pageHeight}px tall`,
  );
}

/**
 * A download's bytes. Read as a stream: `download.path()` is not available when the browser is
 * shared over a connection, as the suite's runner shares one Chromium.
 */
export async function downloaded(download: Download): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await download.createReadStream()) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
