/**
 * Issue 31's attachments in headless Chromium against the real `tasklane serve` (files capped at
 * 4 KB by ATTACHMENTS_MAX_FILE_BYTES): a file chosen with "Attach file" shows with its thumbnail,
 * size and uploader, and reaches a teammate's open page live; one over the limit, and one past the
 * team's quota, are refused with the server's reason; a screenshot pasted into the comment
 * composer is attached and referred to, and the posted comment shows it inline; a file dropped on
 * the task is attached; deletion asks first and is offered only to the uploader and the team's
 * owners and admins; someone the task is not shared with cannot read a file's content. Axe and
 * 390 / 1400 px widths on the section. Screenshots go to test-artifacts/ (31-*.png).
 *
 * The tests share one workspace and run in order.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { assertCleanRun, describeInBrowser, launchBrowser, requireBrowser, type Watch } from './support/browser.js';
import { expectFitsPhoneAndDesktop, gone, openPage, visible, type WebappRun } from './support/pages.js';
import { eventually, startWorkspace, type Person, type Workspace } from './support/workspace.js';

const MAX_FILE_BYTES = 4096;

/** A 1×1 PNG (a red pixel): small, and a real image the browser decodes. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);

const sectionOf = (page: Page) => page.getByRole('region', { name: /^Attachments/ });
const itemOf = (page: Page, name: string) => sectionOf(page).getByRole('listitem', { name: `Attachment ${name}` });
const composerOf = (page: Page) => page.getByRole('form', { name: 'Add a comment' });
const commentBox = (page: Page) => composerOf(page).getByLabel('Comment (CommonMark)');

/** The image has been fetched and decoded (a broken or refused image has no natural width). */
const loadedImage = async (image: Locator) =>
  eventually(async () =>
    assert.ok((await image.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)) > 0),
  );

/**
 * Sends `type` ("paste" or "drop") to the element with one file in it, as the browser does for a
 * screenshot pasted from the clipboard or a file dragged from the desktop.
 */
async function sendFile(target: Locator, type: 'paste' | 'drop', file: { name: string; type: string; base64: string }) {
  await target.evaluate(
    (element, { type, file }) => {
      // Runs in the page (this file is compiled without the DOM's types, hence the window's own constructors).
      const page = element.ownerDocument.defaultView as any;
      const bytes = Uint8Array.from(page.atob(file.base64) as string, (character) => character.charCodeAt(0));
      const transfer = new page.DataTransfer();
      transfer.items.add(new page.File([bytes], file.name, { type: file.type }));
      const init = { bubbles: true, cancelable: true };
      if (type === 'paste')
        element.dispatchEvent(new page.ClipboardEvent('paste', { ...init, clipboardData: transfer }));
      else {
        element.dispatchEvent(new page.DragEvent('dragover', { ...init, dataTransfer: transfer }));
        element.dispatchEvent(new page.DragEvent('drop', { ...init, dataTransfer: transfer }));
      }
    },
    { type, file },
  );
}

describeInBrowser('attachments in a real browser', () => {
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
  const attachmentNamed = async (name: string) =>
    ((await api(workspace.ada, 'GET', `/v1/tasks/${taskId}/attachments`)) as { id: number; name: string }[]).find(
      (attachment) => attachment.name === name,
    );

  before(async () => {
    requireBrowser();
    workspace = await startWorkspace({ ATTACHMENTS_MAX_FILE_BYTES: String(MAX_FILE_BYTES) });
    run.workspace = workspace;
    run.browser = (await launchBrowser()) as Browser;
    // Ada's list Launch, shared with Ben (not with Cy, the team's admin), and a task in it.
    const launch = await api(workspace.ada, 'POST', '/v1/lists', { name: 'Launch', color: 'Blue' });
    await api(workspace.ada, 'POST', `/v1/lists/${launch.id}/members`, { userId: workspace.ben.id });
    taskId = (await api(workspace.ada, 'POST', '/v1/tasks', { title: 'Print the posters', taskListIds: [launch.id] }))
      .id;
    ada = await openPage(run, workspace.ada, 'Rocket');
    ben = await openPage(run, workspace.ben);
  });

  after(async () => {
    await run.browser?.close();
    await workspace?.close();
  });

  it('a file chosen with “Attach file” shows with its thumbnail, size and uploader, and reaches a teammate live', async () => {
    await ada.goto(`/tasks/${taskId}`);
    await ben.goto(`/tasks/${taskId}`);
    await visible(sectionOf(ada).getByText('No files yet.', { exact: false }));
    await visible(sectionOf(ben).getByText('No files yet.', { exact: false }));

    await sectionOf(ada)
      .getByLabel('Attach file')
      .setInputFiles({ name: 'pixel.png', mimeType: 'image/png', buffer: PNG });
    const item = itemOf(ada, 'pixel.png');
    await visible(item);
    await visible(item.getByText(`${PNG.length} bytes · Ada Lovelace`));
    const thumbnail = item.locator('img.attachment-thumbnail');
    assert.equal(await thumbnail.getAttribute('loading'), 'lazy');
    assert.deepEqual([await thumbnail.getAttribute('width'), await thumbnail.getAttribute('height')], ['48', '48']);
    await loadedImage(thumbnail);
    const download = item.getByRole('link', { name: 'pixel.png' });
    assert.match((await download.getAttribute('href')) ?? '', /^\/v1\/attachments\/\d+\/content$/);
    await visible(sectionOf(ada).getByRole('heading', { name: 'Attachments (1)' }));

    // Ben's page, open all along, follows the event.
    await visible(itemOf(ben, 'pixel.png'));
    await loadedImage(itemOf(ben, 'pixel.png').locator('img'));
  });

  it('a file over the limit is refused with the server’s reason, shown in the section', async () => {
    await sectionOf(ada)
      .getByLabel('Attach file')
      .setInputFiles({
        name: 'huge.bin',
        mimeType: 'application/octet-stream',
        buffer: Buffer.alloc(MAX_FILE_BYTES * 2, 7),
      });
    const alert = sectionOf(ada).getByRole('alert');
    await visible(alert);
    assert.match(
      await alert.innerText(),
      /“huge\.bin” was not attached: The file is larger than the limit of 4096 bytes/,
    );
    assert.equal(await itemOf(ada, 'huge.bin').count(), 0);
    assert.equal(await attachmentNamed('huge.bin'), undefined);
  });

  it('a screenshot pasted into the composer is attached and referred to; the comment shows it inline', async () => {
    await sendFile(commentBox(ada), 'paste', {
      name: 'screenshot.png',
      type: 'image/png',
      base64: PNG.toString('base64'),
    });
    await eventually(async () =>
      assert.match(await commentBox(ada).inputValue(), /^!\[screenshot\.png\]\(\/v1\/attachments\/\d+\/content\)\n$/),
    );
    const { id } = (await attachmentNamed('screenshot.png'))!;
    await visible(itemOf(ada, 'screenshot.png'));

    await composerOf(ada).getByRole('button', { name: 'Comment', exact: true }).click();
    const image = ada.locator(`.markdown img[src="/v1/attachments/${id}/content"]`);
    await visible(image);
    assert.equal(await image.getAttribute('alt'), 'screenshot.png');
    await loadedImage(image);
    await loadedImage(ben.locator(`.markdown img[src="/v1/attachments/${id}/content"]`));
  });

  it('a file dropped on the task is attached, shown as a file to download', async () => {
    await sendFile(ada.locator('.task-detail-header'), 'drop', {
      name: 'notes.txt',
      type: 'text/plain',
      base64: Buffer.from('Posters: A2, 40 copies.\n').toString('base64'),
    });
    const item = itemOf(ada, 'notes.txt');
    await visible(item);
    await visible(item.getByText('24 bytes · Ada Lovelace'));
    assert.equal(await item.locator('img').count(), 0, 'no thumbnail for a text file');
    await visible(itemOf(ben, 'notes.txt'));
    await expectFitsPhoneAndDesktop(ada, 'a task’s attachments', '31-01-attachments');
  });

  it('deletion is offered to the uploader and asks first; a teammate’s page follows', async () => {
    // Ben, a plain member, did not upload these: no Delete for him.
    assert.equal(
      await sectionOf(ben)
        .getByRole('button', { name: /^Delete “/ })
        .count(),
      0,
    );

    await sectionOf(ada).getByRole('button', { name: 'Delete “notes.txt”' }).click();
    await sectionOf(ada).getByRole('button', { name: 'Delete file' }).click();
    await gone(itemOf(ada, 'notes.txt'));
    await gone(itemOf(ben, 'notes.txt'));
    assert.equal(await attachmentNamed('notes.txt'), undefined);
  });

  it('a file past the team’s quota is refused with the server’s reason', async () => {
    // The server restarted with room for 10 bytes more than the two images kept so far.
    const quota = 2 * PNG.length + 10;
    await workspace.restart({
      ATTACHMENTS_MAX_FILE_BYTES: String(MAX_FILE_BYTES),
      ATTACHMENTS_TEAM_QUOTA_BYTES: String(quota),
    });
    await sectionOf(ada)
      .getByLabel('Attach file')
      .setInputFiles({ name: 'list.txt', mimeType: 'text/plain', buffer: Buffer.from('x'.repeat(100)) });
    const alert = sectionOf(ada).getByRole('alert');
    await visible(alert.getByText('“list.txt” was not attached:', { exact: false }));
    assert.match(await alert.innerText(), new RegExp(`does not fit in the team's attachment quota of ${quota} bytes`));
    assert.equal(await attachmentNamed('list.txt'), undefined);
  });

  it('someone the task is not shared with cannot read a file, though signed in', async () => {
    const { id } = (await attachmentNamed('pixel.png'))!;
    assert.equal((await ada.request.get(`/v1/attachments/${id}/content`)).status(), 200);
    const cy = await openPage(run, workspace.cy);
    const refused = await cy.request.get(`/v1/attachments/${id}/content`);
    assert.ok([403, 404].includes(refused.status()), `Cy read the file: ${refused.status()}`);
    await cy.context().close();
    assertCleanRun(watch);
  });
});
