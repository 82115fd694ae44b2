/** Settings (API keys, members, name and password), signing out and in, and switching team. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { it } from 'node:test';
import { screenshot } from '../support/browser.js';
import {
  expectAccessible,
  expectSidebarFullHeight,
  gone,
  sidebarLink,
  visible,
  type WebappRun,
} from '../support/pages.js';

/** Status code of a curl request with an API key (the way a script would use a key). */
function curlStatus(url: string, key: string): string {
  const run = spawnSync('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-H', `x-api-key: ${key}`, url]);
  assert.equal(run.status, 0, `curl failed: ${run.stderr}`);
  return run.stdout.toString();
}

export function accountSteps(run: WebappRun): void {
  it('settings: an API key made in the app works with curl until revoked; members and roles', async () => {
    const { workspace, ada } = run;
    await ada.getByRole('link', { name: 'Settings' }).click();
    await visible(ada.getByRole('heading', { name: 'Settings', exact: true }));
    const members = ada.getByRole('table', { name: 'Team members and their roles' });
    // The owner sees others' roles in selects ("Member"), her own as a badge ("owner").
    await visible(members.getByRole('row', { name: /Ben Okafor.*member/i }));
    await visible(members.getByRole('row', { name: /Cy Park.*admin/i }));
    await visible(members.getByRole('row', { name: /Ada Lovelace.*owner/i }));

    await ada.getByLabel('New key name').fill('curl check');
    await ada.getByRole('button', { name: 'Create key' }).click();
    const secretBox = ada.getByRole('region', { name: 'New API key curl check' });
    await visible(secretBox);
    const secret = await ada.getByLabel('API key secret').inputValue();
    assert.match(secret, /^tlk_[0-9A-Za-z]{49}$/);
    await secretBox.getByRole('button', { name: 'Copy' }).click();
    await visible(ada.getByText('Copied to the clipboard.'));
    assert.equal(await ada.evaluate('navigator.clipboard.readText()'), secret);

    assert.equal(curlStatus(`${workspace.url}/v1/me`, secret), '200');
    const keys = ada.getByRole('table', { name: 'Your API keys' });
    await visible(keys.getByRole('row', { name: /curl check/ }));
    await screenshot(ada, '09-settings');
    await expectAccessible(ada, 'settings');
    await expectSidebarFullHeight(ada, 'settings');

    await secretBox.getByRole('button', { name: 'Done' }).click();
    await ada.getByRole('button', { name: 'Revoke key curl check' }).click();
    await ada.getByRole('button', { name: 'Revoke now' }).click();
    await gone(keys.getByRole('row', { name: /curl check/ }));
    assert.equal(curlStatus(`${workspace.url}/v1/me`, secret), '401');
  });

  it('settings: changes the name and the password, then signs out and back in with the keyboard', async () => {
    const { workspace, ada } = run;
    await ada.getByLabel('Name', { exact: true }).fill('Ada King');
    await ada.getByRole('button', { name: 'Save name' }).click();
    await visible(ada.locator('.user-name', { hasText: 'Ada King' }));
    const me = await workspace.api(workspace.ada, 'GET', '/v1/me');
    assert.equal(me.body.user.name, 'Ada King');

    const newPassword = 'a-brand-new-password';
    await ada.getByLabel('Current password').fill(workspace.ada.password);
    await ada.getByLabel('New password', { exact: true }).fill(newPassword);
    await ada.getByLabel('Repeat the new password').fill(newPassword);
    await ada.getByRole('button', { name: 'Change password' }).click();
    await visible(ada.getByText('Password changed.'));

    await ada.getByRole('button', { name: 'Sign out' }).click();
    await visible(ada.getByRole('heading', { name: 'Sign in' }));
    assert.equal(await ada.evaluate(`fetch('/auth/session').then((r) => r.status)`), 401);

    // Keyboard only: the email field has focus, Tab moves on, Enter submits.
    await ada.keyboard.type(workspace.ada.email);
    await ada.keyboard.press('Tab');
    await ada.keyboard.type(workspace.ada.password);
    await ada.keyboard.press('Enter');
    await visible(ada.getByRole('alert'));
    await ada.getByLabel('Password').fill(newPassword);
    await ada.keyboard.press('Enter');
    await visible(ada.getByRole('heading', { name: 'Choose a team' }));
    await ada.getByRole('button', { name: /^Rocket/ }).focus();
    await ada.keyboard.press('Enter');
    await visible(ada.getByRole('heading', { name: 'My tasks' }));
    workspace.ada.password = newPassword;
  });

  it('switches team from the top bar', async () => {
    const { ada } = run;
    await visible(sidebarLink(ada, 'Launch 2026'));
    await ada.getByLabel('Team', { exact: true }).selectOption({ label: 'Moon base' });
    await visible(ada.getByText(/You are in no list yet/).first());
    assert.equal(await sidebarLink(ada, 'Launch 2026').count(), 0, 'Rocket’s lists stay in Rocket');
    await ada.getByLabel('Team', { exact: true }).selectOption({ label: 'Rocket' });
    await visible(sidebarLink(ada, 'Launch 2026'));
  });
}
