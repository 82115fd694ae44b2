/**
 * Issue 32's import in headless Chromium against the real `tasklane serve`, its scheduled jobs on
 * (an apply runs in their batches): in Settings → Import and export, an owner uploads a small
 * spreadsheet (a real file input) and sees its plan: counts by kind, the person the team does not
 * have, the problem that names them with its line, and that nothing has been written. Applying
 * it follows its progress to the end; the tasks are in the app; an undo is refused with the
 * server's reason while a task it made has been edited since, and once that task is gone, takes
 * the rest back. A file its source cannot read is refused with the server's reason, and a plan
 * can be dropped. A member sees the export alone. Axe and 390 / 1400 px widths on the section;
 * test-artifacts/import-*-part-{phone,desktop}.png show the import part alone.
 *
 * The tests share one workspace and run in order.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import {
  ARTIFACTS,
  assertCleanRun,
  describeInBrowser,
  launchBrowser,
  readmeElementScreenshot,
  requireBrowser,
  type Watch,
} from './support/browser.js';
import {
  DESKTOP,
  expectFitsPhoneAndDesktop,
  gone,
  openPage,
  PHONE,
  sidebarLink,
  visible,
  type WebappRun,
} from './support/pages.js';
import { eventually, startWorkspace, type Workspace } from './support/workspace.js';

/** Three tasks for a new list; the second names someone who is not in the team (line 3). */
const SHEET = [
  'Title,Status,Assignees,List',
  'Write the launch post,,ada@example.test,Launch',
  'Book the venue,,stranger@example.test,Launch',
  'Order the cake,In progress,,Launch',
  '',
].join('\r\n');
const TITLES = ['Write the launch post', 'Book the venue', 'Order the cake'];

const sectionOf = (page: Page) => page.getByRole('region', { name: 'Import and export' });
const importOf = (page: Page) => page.getByRole('region', { name: 'Import', exact: true });
const viewOf = (page: Page) => importOf(page).getByRole('group', { name: /^Spreadsheet \(CSV\): / });
/** A kind's counts in the plan's table: create, update, match, unchanged, skip (blank for none). */
const countsOf = (scope: Locator, kind: string) =>
  scope
    .getByRole('row', { name: new RegExp(`^${kind}\\b`) })
    .getByRole('cell')
    .allTextContents();

/** The import part alone, on a phone and on a desktop, for a look: test-artifacts/<name>-phone.png, -desktop.png. */
async function importScreenshots(page: Page, name: string): Promise<void> {
  const own = page.viewportSize()!;
  mkdirSync(ARTIFACTS, { recursive: true });
  for (const [device, size] of [
    ['phone', PHONE],
    ['desktop', DESKTOP],
  ] as const) {
    await page.setViewportSize(size);
    await importOf(page).screenshot({ path: join(ARTIFACTS, `${name}-${device}.png`) });
  }
  await page.setViewportSize(own);
}

describeInBrowser('imports in a real browser', () => {
  const watch: Watch = { foreignRequests: [], errors: [], cspReports: [] };
  const run = { watch } as unknown as WebappRun;
  let workspace: Workspace;
  let ada: Page;

  /** The titles of the team's tasks, as the owner reads them through the API. */
  const titles = async () => {
    const { status, body } = await workspace.api(workspace.ada, 'GET', '/v1/tasks?limit=1000');
    assert.equal(status, 200);
    return (body as { title: string }[]).map((task) => task.title);
  };

  before(async () => {
    requireBrowser();
    workspace = await startWorkspace({ SCHEDULED_JOBS: 'on', JOBS_POLL_MS: '200' });
    run.workspace = workspace;
    run.browser = (await launchBrowser()) as Browser;
    ada = await openPage(run, workspace.ada, 'Rocket');
  });

  after(async () => {
    await run.browser?.close();
    await workspace?.close();
  });

  it('an uploaded spreadsheet is planned: counts, the unknown person, the problem by line, and nothing written', async () => {
    await ada.goto('/settings');
    const part = importOf(ada);
    await visible(part.getByText('No imports yet.'));
    await part.getByLabel('Source').selectOption('csv');
    await part.getByLabel('Title', { exact: true }).fill('Title'); // a mapping sent as `columns`
    await part.getByLabel('File', { exact: true }).setInputFiles({
      name: 'launch.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(SHEET, 'utf8'),
    });
    await part.getByRole('button', { name: 'Upload and plan' }).click();

    const view = viewOf(ada);
    await visible(view.getByText('Nothing has been written yet.'));
    assert.match((await view.getByRole('heading').first().textContent()) ?? '', /launch\.csv/);
    assert.deepEqual(await countsOf(view, 'Tasks'), ['3', '', '', '', '']);
    assert.deepEqual(await countsOf(view, 'Lists'), ['1', '', '', '', '']);
    const unknown = view.getByRole('list', { name: 'People not in the team' }).getByRole('listitem');
    assert.equal(await unknown.count(), 1);
    assert.match((await unknown.textContent()) ?? '', /stranger@example\.test.*first on line 3.*named 1 time\b/);
    await readmeElementScreenshot(view, 'import-plan', 'import-plan');
    const problems = view.getByRole('list', { name: 'Problems' }).getByRole('listitem');
    assert.ok(
      (await problems.allTextContents()).some((text) => /^Line 3:.*stranger@example\.test/.test(text)),
      (await problems.allTextContents()).join(' | '),
    );
    await visible(part.getByRole('list', { name: 'Recent imports' }).getByRole('button', { name: /^Planned/ }));
    const written = await titles();
    assert.ok(!TITLES.some((title) => written.includes(title)), 'a plan writes nothing');

    await expectFitsPhoneAndDesktop(ada, 'Settings with an import planned', 'import-planned');
    await importScreenshots(ada, 'import-planned-part');
    assertCleanRun(watch);
  });

  it('“Apply” follows the import to its end, and the tasks are in the app', async () => {
    const view = viewOf(ada);
    await view.getByRole('button', { name: 'Apply' }).click();
    await visible(view.getByText('Applied', { exact: true }));
    await gone(view.getByRole('progressbar'));
    assert.match((await view.textContent()) ?? '', /objects? created/);
    await visible(
      importOf(ada)
        .getByRole('list', { name: 'Recent imports' })
        .getByRole('button', { name: /^Applied/ }),
    );
    await expectFitsPhoneAndDesktop(ada, 'Settings with an import applied', 'import-applied');
    await importScreenshots(ada, 'import-applied-part');

    await ada.reload();
    await sidebarLink(ada, 'Launch').click();
    for (const title of TITLES) await visible(ada.getByRole('link', { name: title, exact: true }));
    assertCleanRun(watch);
  });

  it('an undo is refused with the server’s reason while a task it made was edited since, then takes the rest back', async () => {
    const edited = ((await workspace.api(workspace.ada, 'GET', '/v1/tasks?limit=1000')).body as any[]).find(
      (task) => task.title === 'Order the cake',
    );
    assert.equal(
      (await workspace.api(workspace.ada, 'PATCH', `/v1/tasks/${edited.id}`, { priority: 'low' })).status,
      200,
    );

    await ada.goto('/settings');
    const part = importOf(ada);
    await part
      .getByRole('list', { name: 'Recent imports' })
      .getByRole('button', { name: /^Applied/ })
      .click();
    const view = viewOf(ada);
    await view.getByRole('button', { name: 'Undo this import' }).click();
    await view.getByRole('button', { name: 'Yes, take it back' }).click();
    const refusal = part.getByRole('alert');
    await visible(refusal);
    assert.match((await refusal.textContent()) ?? '', /The import was not undone: .*Order the cake.*edited/);
    assert.ok((await titles()).includes('Write the launch post'), 'a refused undo changes nothing');
    await expectFitsPhoneAndDesktop(ada, 'Settings with an undo refused', 'import-undo-refused');
    await importScreenshots(ada, 'import-undo-refused-part');

    assert.equal((await workspace.api(workspace.ada, 'DELETE', `/v1/tasks/${edited.id}`)).status, 200);
    await view.getByRole('button', { name: 'Undo this import' }).click();
    await view.getByRole('button', { name: 'Yes, take it back' }).click();
    await visible(view.getByText('Undone', { exact: true }));
    await gone(part.getByRole('alert'));
    await eventually(async () => {
      const left = await titles();
      assert.ok(!TITLES.some((title) => left.includes(title)), left.join(', '));
    });
    assert.equal(await view.getByRole('button', { name: 'Undo this import' }).count(), 0);

    await ada.goto('/');
    await visible(ada.getByRole('heading', { name: 'My tasks' }));
    assert.equal(await ada.getByRole('link', { name: 'Write the launch post', exact: true }).count(), 0);
    assertCleanRun(watch);
  });

  it('a file the source cannot read is refused with the server’s reason; a plan can be dropped', async () => {
    await ada.goto('/settings');
    const part = importOf(ada);
    const file = { name: 'launch.csv', mimeType: 'text/csv', buffer: Buffer.from(SHEET, 'utf8') };
    await part.getByLabel('Source').selectOption('trello');
    await part.getByLabel('File', { exact: true }).setInputFiles(file);
    await part.getByRole('button', { name: 'Upload and plan' }).click();
    const refusal = part.getByRole('alert');
    await visible(refusal);
    assert.match((await refusal.textContent()) ?? '', /^The file could not be planned: \S/);

    await part.getByLabel('Source').selectOption('csv');
    await part.getByLabel('File', { exact: true }).setInputFiles(file);
    await part.getByRole('button', { name: 'Upload and plan' }).click();
    const view = viewOf(ada);
    await visible(view.getByText('Nothing has been written yet.'));
    await gone(refusal);
    await view.getByRole('button', { name: 'Drop this plan' }).click();
    await visible(view.getByText('Cancelled', { exact: true }));
    assert.equal(await view.getByRole('button', { name: 'Apply' }).count(), 0);
    const left = await titles();
    assert.ok(!TITLES.some((title) => left.includes(title)), 'a dropped plan writes nothing');
    assertCleanRun(watch);
  });

  it('a member sees the export alone, not the import', async () => {
    const ben = await openPage(run, workspace.ben);
    await ben.goto('/settings');
    const section = sectionOf(ben);
    await visible(section.getByRole('button', { name: 'Export now' }));
    assert.equal(await importOf(ben).count(), 0);
    assert.equal(await section.getByRole('button', { name: 'Upload and plan' }).count(), 0);
    assert.equal(await section.getByLabel('File', { exact: true }).count(), 0);
    await expectFitsPhoneAndDesktop(ben, 'Settings as a member', 'import-member');
    assertCleanRun(watch);
    await ben.context().close();
  });
});
