/**
 * The web app in a real browser (headless Chromium driven by playwright-core) against the real
 * `tasklane serve`: sign-in, lists and tasks, inline edits, filters in the address, two
 * teammates seeing each other live, archiving, the description conflict, settings and API keys,
 * and a phone-sized screen. Screenshots of each main screen go to test-artifacts/.
 *
 * The steps (e2e/steps/) share one workspace and build on each other, so they run in order.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { launchBrowser, missingBrowser } from './support/browser.js';
import type { WebappRun } from './support/pages.js';
import { startWorkspace } from './support/workspace.js';
import { accountSteps } from './steps/account.js';
import { tasksSteps } from './steps/tasks.js';
import { teammateSteps } from './steps/teammates.js';

const missing = missingBrowser();
const requireBrowser = process.env.REQUIRE_BROWSER === '1';
if (missing && !requireBrowser) {
  console.log(`\nNOTICE: web app browser tests SKIPPED: ${missing}. REQUIRE_BROWSER=1 makes this a failure.\n`);
}

/** Without a browser (and without REQUIRE_BROWSER=1) the suite is one visible, counted skip. */
const skipWholeSuite = missing !== null && !requireBrowser;
if (skipWholeSuite) it('web app in a real browser', { skip: missing }, () => {});
else
  describe('web app in a real browser', () => {
    // Filled in as the steps go: the workspace and browser here, the pages by the steps.
    const run = { watch: { foreignRequests: [], errors: [], cspReports: [] } } as unknown as WebappRun;

    before(async () => {
      if (missing) throw new Error(`REQUIRE_BROWSER=1 but ${missing}`);
      run.workspace = await startWorkspace();
      run.browser = await launchBrowser();
    });

    after(async () => {
      await run.browser?.close();
      await run.workspace?.close();
    });

    tasksSteps(run);
    teammateSteps(run);
    accountSteps(run);

    it('asked nothing of any other host and raised no page errors', () => {
      const { watch } = run;
      assert.deepEqual(watch.foreignRequests, [], 'every request went to the tasklane server');
      assert.deepEqual(watch.errors, []);
      const unexpected = watch.cspReports.filter((report) => !report.startsWith('Executing inline event handler'));
      assert.deepEqual(unexpected, [], 'the app itself never trips its Content-Security-Policy');
    });
  });
