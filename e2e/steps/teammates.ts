/**
 * Two teammates at once: sharing, seeing each other's changes live, archiving and the Archived
 * section, the description conflict, and Ben's view of the shared list on a phone.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { screenshot } from '../support/browser.js';
import {
  choose,
  expectAccessible,
  expectFitsPhoneAndDesktop,
  gone,
  openPage,
  sidebarLink,
  sidebarOf,
  taskByTitle,
  visible,
  type WebappRun,
} from '../support/pages.js';
import { eventually } from '../support/workspace.js';

export function teammateSteps(run: WebappRun): void {
  it('two teammates see each other live: sharing, new tasks, edits, renames', async () => {
    const { workspace, ada } = run;
    const ben = await openPage(run, workspace.ben);
    run.ben = ben;
    assert.equal(await sidebarLink(ben, 'Launch').count(), 0, 'Ben is not in Launch yet');

    await sidebarLink(ada, 'Launch').click();
    await ada.getByRole('button', { name: 'Members' }).click();
    const dialog = ada.getByRole('dialog', { name: 'Share “Launch”' });
    await dialog.getByLabel('Add a teammate').selectOption({ label: 'Ben Okafor (ben@example.test)' });
    await dialog.getByRole('button', { name: 'Add', exact: true }).click();
    await visible(dialog.getByRole('button', { name: 'Remove Ben Okafor from Launch' }));
    await screenshot(ada, '06-share-dialog');
    await expectAccessible(ada, 'the share dialog');
    await ada.keyboard.press('Escape'); // a modal dialog closes from the keyboard
    await gone(dialog);

    // Added to the list, Ben sees it appear in his sidebar without reloading.
    await visible(sidebarLink(ben, 'Launch'));
    await sidebarLink(ben, 'Launch').click();
    await visible(ben.getByRole('link', { name: 'Book the venue', exact: true }));

    await ada.getByLabel('New task', { exact: true }).fill('Print posters');
    await ada.getByLabel('New task', { exact: true }).press('Enter');
    await visible(ben.getByRole('link', { name: 'Print posters', exact: true }));

    await choose(ben, 'Priority of “Print posters”', 'Urgent');
    await visible(ada.getByRole('button', { name: 'Priority of “Print posters”: Urgent' }));

    await sidebarOf(ada).getByRole('button', { name: 'Actions for list Launch' }).click();
    await ada.getByRole('button', { name: 'Rename or recolour' }).click();
    const edit = ada.getByRole('form', { name: 'Edit list Launch' });
    await edit.getByLabel('List name').fill('Launch 2026');
    await edit.getByRole('radio', { name: 'Purple' }).check();
    await edit.getByRole('button', { name: 'Save' }).click();
    await visible(sidebarLink(ben, 'Launch 2026'));
    await visible(ben.getByRole('heading', { name: 'Launch 2026' }));

    // A list Ben makes through the API and shares with Ada appears in her sidebar.
    const research = await workspace.api(workspace.ben, 'POST', '/v1/lists', { name: 'Research', color: 'Teal' });
    await workspace.api(workspace.ben, 'POST', `/v1/lists/${research.body.id}/members`, { userId: workspace.ada.id });
    await visible(sidebarLink(ada, 'Research'));
  });

  it('archiving removes the list from the other sidebar; it can be found and unarchived', async () => {
    const { workspace, ada, ben, launchListId } = run;
    await sidebarOf(ada).getByRole('button', { name: 'Actions for list Launch 2026' }).click();
    await ada.getByRole('button', { name: 'Archive', exact: true }).click();
    await gone(sidebarLink(ada, 'Launch 2026'));
    await gone(sidebarLink(ben, 'Launch 2026'));
    await visible(ben.getByText('This list is archived'));

    await sidebarOf(ben)
      .getByRole('button', { name: /^Archived \(/ })
      .click();
    await visible(sidebarOf(ben).getByRole('button', { name: 'Unarchive Launch 2026' }));
    await sidebarOf(ada)
      .getByRole('button', { name: /^Archived \(/ })
      .click();
    await visible(sidebarOf(ada).getByRole('button', { name: 'Unarchive Launch 2026' }));
    await screenshot(ada, '07-archived');

    await sidebarOf(ben).getByRole('button', { name: 'Unarchive Launch 2026' }).click();
    await visible(sidebarLink(ada, 'Launch 2026'));
    await visible(sidebarLink(ben, 'Launch 2026'));
    await gone(sidebarOf(ada).getByRole('button', { name: 'Unarchive Launch 2026' }));
    const { body } = await workspace.api(workspace.ada, 'GET', `/v1/lists/${launchListId}`);
    assert.equal(body.isArchived, false);
  });

  it('the Archived section shows what the server holds archived, also to a browser that never saw it happen, and stores nothing', async () => {
    const { workspace } = run;
    // Archived through the API before this browser (a new context: no storage) ever loaded.
    const { body: lists } = await workspace.api(workspace.ben, 'GET', '/v1/lists');
    const research = lists.find((list: any) => list.name === 'Research');
    assert.equal((await workspace.api(workspace.ben, 'POST', `/v1/lists/${research.id}/archive`)).status, 200);
    const fresh = await openPage(run, workspace.ada, 'Rocket');
    try {
      await sidebarOf(fresh).getByRole('button', { name: 'Archived (1)' }).click();
      await visible(sidebarOf(fresh).getByRole('button', { name: 'Unarchive Research' }));
      assert.equal(await sidebarLink(fresh, 'Research').count(), 0, 'not among the active lists');

      // Unarchived elsewhere, it moves back live.
      await workspace.api(workspace.ben, 'POST', `/v1/lists/${research.id}/unarchive`);
      await visible(sidebarLink(fresh, 'Research'));
      await gone(sidebarOf(fresh).getByRole('button', { name: 'Unarchive Research' }));
      // (It keeps only whether it may hold a session, so that a signed-out page asks for none: lib/session-hint.ts.)
      assert.deepEqual(
        await fresh.evaluate('Object.keys(localStorage)'),
        ['tasklane.may-have-session'],
        'the browser keeps no list of its own',
      );
    } finally {
      await fresh.context().close();
    }
  });

  it('detects a description conflict live and resolves it without losing either text', async () => {
    const { workspace, ada, ben } = run;
    const task = await taskByTitle(workspace, workspace.ada, 'Print posters');
    await ada.goto(`/tasks/${task.id}`);
    await ben.goto(`/tasks/${task.id}`);
    const adaText = 'Ada: print the posters in A2, on recycled paper.';
    const benText = 'Ben: the print shop needs the files by Friday.';

    await ada.getByRole('button', { name: 'Edit description' }).click();
    await ada.getByLabel('Description (CommonMark)').fill(adaText);
    await ben.getByRole('button', { name: 'Edit description' }).click();
    await ben.getByLabel('Description (CommonMark)').fill(benText);

    // A status change by someone else is not a conflict: Ada's edit moves along with it.
    await workspace.api(workspace.cy, 'PATCH', `/v1/tasks/${task.id}`, { taskStatusId: task.taskStatusId });

    await ben.getByRole('button', { name: 'Save description' }).click();
    await visible(ben.getByRole('button', { name: 'Edit description' }));

    // Ada learns of it live, before she saves, and from whom (the task's activity says).
    await visible(ada.getByText('Ben Okafor just changed this description'));
    await expectFitsPhoneAndDesktop(ada, 'the description editor, changed meanwhile', '08-description-changed');
    await ada.getByRole('button', { name: 'Save description' }).click();
    await visible(ada.getByRole('heading', { name: 'Ben Okafor changed this description while you were editing' }));
    assert.equal(await ada.getByLabel('Their version (saved)').inputValue(), benText);
    assert.equal(await ada.getByLabel('Your version (not saved)').inputValue(), adaText);
    assert.equal(
      (await taskByTitle(workspace, workspace.ada, 'Print posters')).description,
      benText,
      'the refused save changed nothing',
    );
    await screenshot(ada, '08-conflict');
    await expectFitsPhoneAndDesktop(ada, 'the description conflict', '08-conflict');

    await ada.getByRole('button', { name: 'Combine both' }).click();
    const resolution = await ada.getByLabel('Text to keep').inputValue();
    assert.ok(resolution.includes(adaText) && resolution.includes(benText), resolution);
    await ada.getByRole('button', { name: 'Save this text' }).click();
    await visible(ada.getByRole('button', { name: 'Edit description' }));

    const saved = (await taskByTitle(workspace, workspace.ada, 'Print posters')).description;
    assert.ok(saved.includes(adaText) && saved.includes(benText), saved);
    // Ben's open detail view follows live.
    await visible(ben.getByRole('region', { name: 'Description' }).getByText(adaText));
  });

  it('reads well on a phone-sized screen: the sidebar becomes a drawer', async () => {
    const { workspace } = run;
    const phone = await openPage(run, workspace.ben, undefined, { width: 390, height: 844 });
    assert.equal(await sidebarOf(phone).isVisible(), false, 'the sidebar is tucked away');
    await phone.getByRole('button', { name: 'Lists and navigation' }).click();
    await visible(sidebarLink(phone, 'Launch 2026'));
    await eventually(async () =>
      assert.equal(
        await phone.evaluate('document.activeElement.closest("#sidebar") !== null'),
        true,
        'focus is in the drawer',
      ),
    );
    await screenshot(phone, '11-phone-drawer');
    await sidebarLink(phone, 'Launch 2026').click();
    await visible(phone.getByRole('heading', { name: 'Launch 2026' }));
    await eventually(async () => assert.equal(await sidebarOf(phone).isVisible(), false));
    await visible(phone.getByRole('link', { name: 'Book the venue', exact: true }));
    await screenshot(phone, '10-phone-list');
    await expectAccessible(phone, 'the phone list view');
    const overflow = await phone.evaluate(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    );
    assert.equal(overflow, 0, 'nothing sticks out sideways');
  });
}
