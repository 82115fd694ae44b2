/**
 * Headless Chromium from the system (Debian's /usr/bin/chromium), driven by playwright-core.
 * No test ever downloads a browser: without one the suite is skipped with a notice, and with
 * REQUIRE_BROWSER=1 (CI) that skip is a failure instead.
 */
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  chromium,
  type Browser,
  type BrowserContext,
  type BrowserServer,
  type Locator,
  type Page,
} from 'playwright-core';
import { ROOT } from '../../test/processes.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const ARTIFACTS = join(ROOT, 'test-artifacts');
/** The screenshots README.md shows, kept in the repository (README_SCREENSHOTS=1 renews them). */
export const README_SCREENSHOTS = join(ROOT, 'docs', 'screenshots');

/** Why the browser tests cannot run here, or null when they can. */
export function missingBrowser(): string | null {
  return existsSync(CHROMIUM) ? null : `no Chromium at ${CHROMIUM} (install it: apt-get install chromium)`;
}

/**
 * A browser suite: without Chromium (and without REQUIRE_BROWSER=1) it is one visible, counted
 * skip with a notice; with REQUIRE_BROWSER=1 its set-up fails instead (call `requireBrowser()`
 * first in its `before`).
 */
export function describeInBrowser(name: string, body: () => void): void {
  const missing = missingBrowser();
  if (missing && process.env.REQUIRE_BROWSER !== '1') {
    console.log(`\nNOTICE: ${name} SKIPPED: ${missing}. REQUIRE_BROWSER=1 makes this a failure.\n`);
    it(name, { skip: missing }, () => {});
  } else describe(name, body);
}

/** Fails a suite's set-up when there is no browser (only reached with REQUIRE_BROWSER=1). */
export function requireBrowser(): void {
  const missing = missingBrowser();
  if (missing) throw new Error(`REQUIRE_BROWSER=1 but ${missing}`);
}

const LAUNCH_OPTIONS = {
  executablePath: CHROMIUM,
  headless: true,
  // The machine has no internet: keep Chromium from calling home at all.
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
};

/**
 * Where a Chromium that every browser suite of a run shares listens (scripts/test.mjs starts it):
 * a suite then connects to it instead of starting its own, and each test still gets contexts of
 * its own, as isolated as in a browser of their own.
 */
export const SHARED_BROWSER_ENV = 'TASKLANE_SHARED_BROWSER';

/** The shared Chromium when the run has one, else a new one; `close()` closes only this suite's part. */
export function launchBrowser(): Promise<Browser> {
  const shared = process.env[SHARED_BROWSER_ENV];
  return shared ? chromium.connect(shared) : chromium.launch(LAUNCH_OPTIONS);
}

/** Starts the Chromium the browser suites of one run share (its `wsEndpoint()` goes in SHARED_BROWSER_ENV). */
export function startSharedBrowser(): Promise<BrowserServer> {
  return chromium.launchServer(LAUNCH_OPTIONS);
}

/** What a context saw that a healthy app never does: requests off the server, page errors. */
export interface Watch {
  foreignRequests: string[];
  errors: string[];
  /**
   * Content-Security-Policy refusals. A hostile description makes Chromium report its inline
   * handlers as blocked while the sanitiser parses it (in an inert document): expected, and
   * the only kind allowed.
   */
  cspReports: string[];
}

/** A healthy run asked nothing of any other host, raised no page error and never tripped its own CSP. */
export function assertCleanRun(watch: Watch): void {
  assert.deepEqual(watch.foreignRequests, [], 'every request went to the tasklane server');
  assert.deepEqual(watch.errors, []);
  const unexpected = watch.cspReports.filter((report) => !report.startsWith('Executing inline event handler'));
  assert.deepEqual(unexpected, [], 'the app itself never trips its Content-Security-Policy');
}

export async function newContext(
  browser: Browser,
  baseURL: string,
  watch: Watch,
  viewport = { width: 1280, height: 860 },
  /** The device's time zone: UTC unless a suite needs another. */
  timezoneId = 'UTC',
): Promise<BrowserContext> {
  const context = await browser.newContext({
    baseURL,
    viewport,
    locale: 'en-GB',
    timezoneId,
    reducedMotion: 'reduce', // the drawer is screenshotted open, not halfway
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL });
  context.on('request', (request) => {
    if (!request.url().startsWith(baseURL) && !request.url().startsWith('data:'))
      watch.foreignRequests.push(request.url());
  });
  context.on('page', (page) => watchPage(page, watch));
  return context;
}

function watchPage(page: Page, watch: Watch): void {
  page.on('pageerror', (error) => watch.errors.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    // Chromium logs every 4xx as "Failed to load resource"; those are expected (401 before sign-in, 412 conflicts).
    if (message.type() !== 'error' || message.text().startsWith('Failed to load resource')) return;
    const where = `${message.location().url}:${message.location().lineNumber}`;
    if (message.text().includes('Content Security Policy')) watch.cspReports.push(`${message.text()} (at ${where})`);
    else watch.errors.push(`console: ${message.text()} (at ${where})`);
  });
}

/**
 * The whole page, as tall as its content. The window is made that tall for the picture
 * (Playwright's stitched full-page capture would draw the sticky top bar mid-page).
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const viewport = page.viewportSize()!;
  const height = Number(await page.evaluate('document.documentElement.scrollHeight'));
  if (height > viewport.height) await page.setViewportSize({ width: viewport.width, height });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
  await page.setViewportSize(viewport);
}

/**
 * The window as it is, for README.md: test-artifacts/<name>.png, and with README_SCREENSHOTS=1
 * docs/screenshots/<readmeName>.png too, to be committed.
 */
export async function readmeScreenshot(page: Page, name: string, readmeName: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
  if (process.env.README_SCREENSHOTS !== '1') return;
  mkdirSync(README_SCREENSHOTS, { recursive: true });
  copyFileSync(join(ARTIFACTS, `${name}.png`), join(README_SCREENSHOTS, `${readmeName}.png`));
}

/** As `readmeScreenshot`, of one part of the page (a settings section, a card) rather than all of it. */
export async function readmeElementScreenshot(element: Locator, name: string, readmeName: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await element.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
  if (process.env.README_SCREENSHOTS !== '1') return;
  mkdirSync(README_SCREENSHOTS, { recursive: true });
  copyFileSync(join(ARTIFACTS, `${name}.png`), join(README_SCREENSHOTS, `${readmeName}.png`));
}

/**
 * Every visible control on the page has an accessible name (a label, aria-label or text);
 * returns the ones that do not. Runs in the page, so it is given as a string (no DOM types here).
 */
export async function unlabelledControls(page: Page): Promise<string[]> {
  return page.evaluate(`(() => {
    const nameOf = (el) => {
      const byAria = el.getAttribute('aria-label');
      if (byAria && byAria.trim()) return byAria;
      const labelledBy = el.getAttribute('aria-labelledby');
      if (labelledBy) return labelledBy.split(' ').map((id) => document.getElementById(id)?.textContent ?? '').join(' ');
      if (el.labels && el.labels.length) return [...el.labels].map((label) => label.textContent).join(' ');
      if (el.matches('button, a')) return el.textContent;
      return el.getAttribute('title') ?? '';
    };
    return [...document.querySelectorAll('input, select, textarea, button, a[href]')]
      .filter((el) => el.getClientRects().length > 0)
      .filter((el) => !(nameOf(el) ?? '').trim())
      .map((el) => el.outerHTML.slice(0, 160));
  })()`);
}
