/** One person's day: signing in, a list and its tasks, inline edits, filters, the task detail. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { newContext, screenshot } from '../support/browser.js';
import {
  choose,
  expectAccessible,
  expectSidebarFullHeight,
  gone,
  setDueDate,
  sidebarLink,
  sidebarOf,
  taskByTitle,
  visible,
  type WebappRun,
} from '../support/pages.js';
import { eventually } from '../support/workspace.js';

export function tasksSteps(run: WebappRun): void {
  it('signs in with email and password; someone in two teams picks the team', async () => {
    const { workspace } = run;
    const adaContext = await newContext(run.browser, workspace.url, run.watch);
    const ada = await adaContext.newPage();
    run.ada = ada;
    ada.setDefaultTimeout(10_000);
    await ada.goto('/');
    await visible(ada.getByRole('heading', { name: 'Sign in' }));
    await screenshot(ada, '01-sign-in');
    await expectAccessible(ada, 'sign-in');

    await ada.getByLabel('Email').fill(workspace.ada.email);
    await ada.getByLabel('Password').fill('not the password');
    await ada.getByRole('button', { name: 'Sign in' }).click();
    await visible(ada.getByRole('alert'));

    await ada.getByLabel('Password').fill(workspace.ada.password);
    await ada.getByRole('button', { name: 'Sign in' }).click();
    await visible(ada.getByRole('heading', { name: 'Choose a team' }));
    await screenshot(ada, '02-team-picker');
    await ada.getByRole('button', { name: /^Rocket/ }).click();
    await visible(ada.getByRole('heading', { name: 'My tasks' }));
    await visible(ada.locator('.connection-live'));

    const cookie = (await adaContext.cookies()).find((c) => c.name === 'tasklane_session');
    assert.ok(cookie, 'session cookie set');
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Strict');
    // A change with the cookie but without the CSRF token is refused.
    const status = await ada.evaluate(
      `fetch('/v1/lists', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"x"}' }).then((r) => r.status)`,
    );
    assert.equal(status, 403);
  });

  it('creates a list from the sidebar, quick-adds tasks and a subtask under its parent', async () => {
    const { workspace, ada } = run;
    await sidebarOf(ada).getByRole('button', { name: '+ New list' }).click();
    const form = ada.getByRole('form', { name: 'New list' });
    await form.getByLabel('List name').fill('Launch');
    // A first list is offered shared with the whole team; this story shares it with Ben by hand later.
    const share = form.getByRole('checkbox', { name: /Share with the whole team/ });
    assert.equal(await share.isChecked(), true, 'a first list is offered shared');
    await share.uncheck();
    await form.getByRole('radio', { name: 'Blue' }).check();
    await form.getByRole('button', { name: 'Create list' }).click();
    await ada.waitForURL(/\/lists\/\d+$/);
    const launchListId = Number(new URL(ada.url()).pathname.split('/').pop());
    run.launchListId = launchListId;
    await visible(ada.getByRole('heading', { name: 'Launch' }));
    await visible(sidebarLink(ada, 'Launch'));

    for (const title of ['Write the announcement', 'Book the venue', 'Order snacks']) {
      await ada.getByLabel('New task', { exact: true }).fill(title);
      await ada.getByLabel('New task', { exact: true }).press('Enter');
      await visible(ada.getByRole('link', { name: title, exact: true }));
    }

    await ada.getByRole('button', { name: 'Add a subtask to “Write the announcement”' }).click();
    await ada.getByLabel('New subtask of “Write the announcement”').fill('Draft the outline');
    await ada.getByLabel('New subtask of “Write the announcement”').press('Enter');
    const subtasks = ada.getByRole('list', { name: 'Subtasks of Write the announcement' });
    await visible(subtasks.getByRole('link', { name: 'Draft the outline' }));

    const { body: list } = await workspace.api(workspace.ada, 'GET', `/v1/lists/${launchListId}`);
    assert.deepEqual(list, {
      id: launchListId,
      name: 'Launch',
      color: 'Blue',
      isArchived: false,
      sharedWithTeam: false,
    });
    const parent = await taskByTitle(workspace, workspace.ada, 'Write the announcement');
    const child = await taskByTitle(workspace, workspace.ada, 'Draft the outline');
    assert.equal(child.parentId, parent.id);
    assert.deepEqual(
      child.taskLists.map((l: any) => l.id),
      [launchListId],
    );
  });

  it('edits status, priority, due date, assignees, lists and done in place', async () => {
    const { workspace, ada } = run;
    // A list made through the API shows up in the sidebar without a reload.
    const marketing = await workspace.api(workspace.ada, 'POST', '/v1/lists', { name: 'Marketing', color: 'Pink' });
    assert.equal(marketing.status, 201);
    await visible(sidebarLink(ada, 'Marketing'));

    const task = '“Book the venue”';
    await choose(ada, `Status of ${task}`, 'In progress');
    await choose(ada, `Priority of ${task}`, 'High');
    await setDueDate(ada, task, '2026-12-01');

    await ada.getByRole('button', { name: new RegExp(`^Assignees of ${task}`) }).click();
    await ada.getByRole('checkbox', { name: 'Ben Okafor' }).check();
    await ada.getByRole('checkbox', { name: 'Ada Lovelace' }).check();
    await ada.keyboard.press('Escape');
    await visible(ada.getByRole('button', { name: `Assignees of ${task}: Ada Lovelace, Ben Okafor` }));

    await ada.getByRole('button', { name: new RegExp(`^Lists of ${task}`) }).click();
    await ada.getByRole('checkbox', { name: 'Marketing' }).check();
    await ada.keyboard.press('Escape');

    await ada.getByLabel('Done: “Order snacks”').check();

    await eventually(async () => {
      const venue = await taskByTitle(workspace, workspace.ada, 'Book the venue');
      assert.equal(venue.status.name, 'In progress');
      assert.equal(venue.priority, 'high');
      assert.equal(venue.dueDate, '2026-12-01');
      assert.deepEqual(venue.assignees.map((p: any) => p.name).sort(), ['Ada Lovelace', 'Ben Okafor']);
      assert.deepEqual(venue.taskLists.map((l: any) => l.name).sort(), ['Launch', 'Marketing']);
      const snacks = await taskByTitle(workspace, workspace.ada, 'Order snacks');
      assert.equal(snacks.isCompleted, true);
    });
    await ada.getByLabel(`Priority of ${task}`).focus(); // a visible focus ring in the screenshot
    await screenshot(ada, '03-list');
    await expectAccessible(ada, 'the list view');
  });

  it('keeps filters in the address, so a filtered view survives a reload and can be shared', async () => {
    const { ada } = run;
    await ada.getByRole('button', { name: /^Priority: / }).click();
    await ada.getByRole('checkbox', { name: 'High' }).check();
    await ada.keyboard.press('Escape');
    await ada.waitForURL(/priority=high/);
    await gone(ada.getByRole('link', { name: 'Write the announcement', exact: true }));
    await visible(ada.getByRole('link', { name: 'Book the venue', exact: true }));

    await ada.getByLabel('Show').selectOption('false');
    await ada.getByLabel('Search task titles').fill('venue');
    await ada.waitForURL(/query=venue/);
    const shared = ada.url();
    assert.match(shared, /isCompleted=false/);

    await ada.reload();
    await visible(ada.getByRole('link', { name: 'Book the venue', exact: true }));
    assert.equal(await ada.getByRole('link', { name: 'Order snacks', exact: true }).count(), 0);
    assert.equal(await ada.getByLabel('Search task titles').inputValue(), 'venue');

    await ada.getByRole('button', { name: 'Clear filters' }).first().click();
    await visible(ada.getByRole('link', { name: 'Order snacks', exact: true }));
    assert.equal(new URL(ada.url()).search, '');

    await ada.getByRole('link', { name: 'My tasks' }).click();
    await visible(ada.getByRole('heading', { name: 'My tasks' }));
    await visible(ada.getByRole('link', { name: 'Book the venue', exact: true }));
    assert.equal(await ada.getByRole('link', { name: 'Order snacks', exact: true }).count(), 0);
    await screenshot(ada, '04-my-tasks');
  });

  it('task detail: edits the title and a CommonMark description whose preview runs no script', async () => {
    const { workspace, ada } = run;
    await sidebarLink(ada, 'Launch').click();
    await ada.getByRole('link', { name: 'Write the announcement', exact: true }).click();
    await ada.waitForURL(/\/tasks\/\d+$/);
    await ada.getByLabel('Title', { exact: true }).fill('Write the launch announcement');
    await ada.getByLabel('Title', { exact: true }).press('Enter');
    await visible(ada.getByRole('link', { name: 'Draft the outline' })); // subtasks under the parent

    await ada.getByRole('button', { name: 'Edit description' }).click();
    const source = [
      '# Launch plan',
      '',
      'Some **bold** words, a list and a [safe link](https://example.com):',
      '',
      '- first',
      '- second',
      '',
      '<script>window.__pwned = "script"</script>',
      '<img src="nothing.png" onerror="window.__pwned = \'img\'">',
      '[click me](javascript:window.__pwned=1)',
      '<a href="javascript:window.__pwned=2">raw link</a>',
      '<iframe src="/"></iframe>',
    ].join('\n');
    await ada.getByLabel('Description (CommonMark)').fill(source);
    // The description's own tabs: the timeline's composer below has Write and Preview too.
    const editor = ada.getByRole('form', { name: 'Edit description' });
    await editor.getByRole('button', { name: 'Preview', exact: true }).click();
    const preview = ada.getByRole('region', { name: 'Preview' });
    await visible(preview.getByRole('heading', { name: 'Launch plan' }));
    await visible(preview.locator('strong', { hasText: 'bold' }));
    await ada.getByRole('button', { name: 'Save description' }).click();

    const rendered = ada.getByRole('region', { name: 'Description' });
    await visible(rendered.getByRole('heading', { name: 'Launch plan' }));
    assert.equal(await rendered.locator('script, iframe, [onerror], a[href^="javascript"]').count(), 0);
    assert.equal(
      await rendered.getByRole('link', { name: 'safe link' }).getAttribute('rel'),
      'noopener noreferrer nofollow',
    );
    await ada.waitForTimeout(300); // give an injected handler every chance to fire
    assert.equal(await ada.evaluate('window.__pwned'), undefined, 'no script from a description ever runs');

    await eventually(async () => {
      const task = await taskByTitle(workspace, workspace.ada, 'Write the launch announcement');
      assert.equal(task.description, source);
    });
    await screenshot(ada, '05-task-detail');
    await expectAccessible(ada, 'the task detail');
    await expectSidebarFullHeight(ada, 'the task detail');
  });
}
