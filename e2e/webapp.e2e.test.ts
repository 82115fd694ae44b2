/**
 * The web app in a real browser (headless Chromium driven by playwright-core) against the real
 * `tasklane serve`: sign-in, lists and tasks, inline edits, filters in the address, two
 * teammates seeing each other live, archiving, the description conflict, settings and API keys,
 * and a phone-sized screen. Screenshots of each main screen go to test-artifacts/.
 *
 * The steps (e2e/steps/) share one workspace and build on each other, so they run in order.
 */
import { after, before, it } from 'node:test';
import { assertCleanRun, describeInBrowser, launchBrowser, requireBrowser } from './support/browser.js';
import type { WebappRun } from './support/pages.js';
import { startWorkspace } from './support/workspace.js';
import { accountSteps } from './steps/account.js';
import { tasksSteps } from './steps/tasks.js';
import { teammateSteps } from './steps/teammates.js';

describeInBrowser('web app in a real browser', () => {
  // Filled in as the steps go: the workspace and browser here, the pages by the steps.
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

  tasksSteps(run);
  teammateSteps(run);
  accountSteps(run);

  it('asked nothing of any other host and raised no page errors', () => assertCleanRun(run.watch));
});
