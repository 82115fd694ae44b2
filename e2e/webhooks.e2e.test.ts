/**
 * Settings → Webhooks in a real browser against the real `tasklane serve` and a loopback
 * receiver: create a webhook with the event picker (its secret shown once), send a test, read the
 * delivery log (summaries; a delivery opened is fetched whole, with its body; older deliveries on
 * demand) and retry a failed delivery, disable and enable, rotate the secret (the old one
 * signs beside the new), see why a webhook was disabled, and a team admin's narrower view (disable
 * or delete another's, nothing else).
 * Every request the receiver gets is verified with the reference `standardwebhooks` package.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Page } from 'playwright-core';
import { TEST_WEBHOOK_ENV } from '../test/harness.js';
import { startReceiver, verify, waitFor, type Receiver } from '../test/webhooks/support.js';
import { assertCleanRun, describeInBrowser, launchBrowser, requireBrowser, screenshot } from './support/browser.js';
import { expectAccessible, gone, openPage, visible, type WebappRun } from './support/pages.js';
import { eventually, startWorkspace } from './support/workspace.js';

describeInBrowser('Settings → Webhooks in a real browser', () => {
  const run = { watch: { foreignRequests: [], errors: [], cspReports: [] } } as unknown as WebappRun;
  let receiver: Receiver;
  let status = 204;
  let ada: Page;
  let secret: string;
  let webhookId: string;
  const hookPath = '/e2e-hook';
  const arrived = () => receiver.requests.filter((r) => r.path === hookPath);
  const section = () =>
    ada.getByRole('region', { name: 'Webhooks' }).or(ada.locator('section[aria-labelledby="webhooks-heading"]'));
  const item = () => ada.getByRole('listitem', { name: /^Webhook http:\/\/127\.0\.0\.1/ });

  before(async () => {
    requireBrowser();
    receiver = await startReceiver(() => ({ status, body: status >= 400 ? 'receiver says no' : '' }));
    run.workspace = await startWorkspace({
      ...TEST_WEBHOOK_ENV,
      WEBHOOK_DELIVERY: 'on',
      WEBHOOK_RETRY_FIRST_DELAY_MS: '60000',
    });
    run.browser = await launchBrowser();
    ada = await openPage(run, run.workspace.ada, 'Rocket');
  });

  after(async () => {
    await run.browser?.close();
    await run.workspace?.close();
    await receiver?.close();
  });

  it('creates a webhook for chosen events; its secret is shown once, and a test arrives signed with it', async () => {
    await ada.getByRole('link', { name: 'Settings' }).click();
    await visible(ada.getByRole('heading', { name: 'Webhooks' }));
    await ada.getByLabel('Payload URL').fill(`${receiver.url}${hookPath}`);
    await ada.getByLabel('Description').fill('Chat bridge');
    await ada.getByLabel('Only these:').check();
    await ada.getByLabel(/^Task created/).check();
    await ada.getByLabel(/^Task changed/).check();
    await ada.getByRole('button', { name: 'Create webhook' }).click();
    const box = ada.getByRole('region', { name: 'New webhook secret' });
    await visible(box);
    secret = await ada.getByLabel('Webhook signing secret').inputValue();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    await visible(item().getByText('Task created, Task changed'));
    await visible(item().getByText('Enabled'));
    await screenshot(ada, '15-webhooks-created');
    await expectAccessible(ada, 'settings with webhooks');
    await box.getByRole('button', { name: 'Done' }).click();
    await ada.reload();
    await visible(item());
    assert.ok(!(await ada.content()).includes(secret.slice(6)), 'the secret is never shown again');

    const { body: hooks } = await run.workspace.api(run.workspace.ada, 'GET', '/v1/webhooks');
    webhookId = hooks[0].id;
    await item().getByRole('button', { name: 'Send test' }).click();
    const [test] = await waitFor('the test delivery', () => arrived().length > 0 && arrived());
    assert.equal(verify(secret, test!).type, 'webhook.test');
  });

  it('the delivery log shows a failed attempt with its status, answer and next try; Retry sends it again', async () => {
    status = 500;
    const created = await run.workspace.api(run.workspace.ada, 'POST', '/v1/tasks', { title: 'Through the hook' });
    assert.equal(created.status, 201);
    await waitFor('the failed attempt', () => arrived().length >= 2);
    await item().getByRole('button', { name: 'Deliveries' }).click();
    const log = ada.getByRole('dialog', { name: /^Deliveries to / });
    await visible(log);
    await eventually(async () => {
      await log.getByRole('button', { name: 'Refresh' }).click();
      await log.getByText('Task created').first().waitFor({ timeout: 1000 });
    });
    await log.getByText('Task created').first().click(); // opens its attempts
    await visible(log.getByText('HTTP 500').first());
    await visible(log.getByText('receiver says no').first());
    await visible(log.getByText(/next try/).first());
    await screenshot(ada, '16-webhook-deliveries');
    await expectAccessible(ada, 'the delivery log');

    status = 204;
    const delivery = arrived().at(-1)!;
    await log.getByRole('button', { name: `Retry delivery ${delivery.webhookId}` }).click();
    await waitFor(
      'the retried delivery',
      () => arrived().filter((r) => r.webhookId === delivery.webhookId).length === 2,
    );
    assert.equal(verify(secret, arrived().at(-1)!).data.title, 'Through the hook');
    await eventually(async () => {
      await log.getByRole('button', { name: 'Refresh' }).click();
      await log.getByText('Delivered').nth(1).waitFor({ timeout: 1000 });
    });
    await log.getByRole('button', { name: 'Close' }).click();
  });

  it('the log lists deliveries without bodies, older ones on demand; a delivery opened is fetched whole, with the body sent, on a phone too', async () => {
    // Fifty tests more: the log's first page (50) no longer reaches the task's delivery.
    for (let i = 0; i < 50; i++) {
      assert.equal((await run.workspace.api(run.workspace.ada, 'POST', `/v1/webhooks/${webhookId}/test`)).status, 202);
    }
    const logPath = `/v1/webhooks/${webhookId}/deliveries`;
    for (const viewport of [undefined, { width: 390, height: 844 }]) {
      const page = viewport ? await openPage(run, run.workspace.ada, 'Rocket', viewport) : ada;
      try {
        if (viewport) await page.getByRole('link', { name: 'Settings' }).click();
        const listed = page.waitForResponse((r) => new URL(r.url()).pathname === logPath);
        await page
          .getByRole('listitem', { name: /^Webhook http:\/\/127\.0\.0\.1/ })
          .getByRole('button', { name: 'Deliveries' })
          .click();
        const log = page.getByRole('dialog', { name: /^Deliveries to / });
        const first = await listed;
        const summaries: Record<string, unknown>[] = await first.json();
        assert.equal(summaries.length, 50);
        assert.ok(
          summaries.every((d) => !('payload' in d) && !('attempts' in d)),
          'the log holds no bodies',
        );
        assert.match((await first.headerValue('link')) ?? '', /rel="next"/);
        await eventually(async () => assert.equal(await log.locator('li.delivery').count(), 50));
        assert.equal(await log.getByText('Task created').count(), 0, 'the oldest are not loaded yet');

        await log.getByRole('button', { name: 'Show older deliveries' }).click();
        const delivery = log.locator('li.delivery').filter({ hasText: 'Task created' });
        await visible(delivery);
        await gone(log.getByRole('button', { name: 'Show older deliveries' }));

        const whole = page.waitForResponse((r) => /\/deliveries\/\d+$/.test(new URL(r.url()).pathname));
        await delivery.getByText('Task created').click();
        assert.equal((await whole).status(), 200);
        await visible(delivery.getByText('receiver says no').first());
        await delivery.getByText('Body sent').click();
        await visible(delivery.getByText(/"title":"Through the hook"/));
        await expectAccessible(page, `the delivery log, one delivery open${viewport ? ', on a phone' : ''}`);
        if (viewport) await screenshot(page, '16-phone-webhook-delivery');
        await log.getByRole('button', { name: 'Close' }).click();
      } finally {
        if (viewport) await page.context().close();
      }
    }
  });

  it('disables and enables it; rotating the secret shows the new one, and both sign for a day', async () => {
    await item().getByRole('button', { name: 'Disable' }).click();
    await visible(item().getByText('Disabled by Ada Lovelace.'));
    await item().getByRole('button', { name: 'Enable' }).click();
    await visible(item().getByText('Enabled'));

    await item()
      .getByRole('button', { name: /^Rotate secret of / })
      .click();
    await ada.getByRole('button', { name: 'Rotate now' }).click();
    await visible(ada.getByRole('region', { name: 'New webhook secret' }));
    const rotated = await ada.getByLabel('Webhook signing secret').inputValue();
    assert.notEqual(rotated, secret);
    await visible(item().getByText(/the previous secret signs too until/));
    const before = arrived().length;
    await run.workspace.api(run.workspace.ada, 'POST', '/v1/tasks', { title: 'After rotation' });
    const [latest] = await waitFor(
      'a delivery after the rotation',
      () => arrived().length > before && arrived().slice(-1),
    );
    assert.equal(verify(rotated, latest!).data.title, 'After rotation');
    assert.equal(verify(secret, latest!).data.title, 'After rotation');
    await ada.getByRole('region', { name: 'New webhook secret' }).getByRole('button', { name: 'Done' }).click();
  });

  it('after a 410 the webhook is disabled, and says why', async () => {
    status = 410;
    await run.workspace.api(run.workspace.ada, 'POST', '/v1/tasks', { title: 'Gone' });
    await eventually(async () => {
      await ada.reload();
      await item().getByText('The endpoint answered 410 Gone.').waitFor({ timeout: 1000 });
    });
    await screenshot(ada, '17-webhook-disabled');
  });

  it("a team admin sees the owner's webhook and may only disable or delete it", async () => {
    status = 204;
    const ok = await run.workspace.api(run.workspace.ada, 'PATCH', `/v1/webhooks/${webhookId}`, { enabled: true });
    assert.equal(ok.status, 200);
    const cy = await openPage(run, run.workspace.cy);
    await cy.getByRole('link', { name: 'Settings' }).click();
    const theirs = cy.getByRole('listitem', { name: /^Webhook http:\/\/127\.0\.0\.1/ });
    await visible(theirs.getByText(/owner: Ada Lovelace/));
    assert.equal(await theirs.getByRole('button', { name: /Rotate|Send test|Deliveries|Enable/ }).count(), 0);
    await visible(theirs.getByRole('button', { name: /^Delete webhook / }));
    await theirs.getByRole('button', { name: 'Disable' }).click();
    await visible(theirs.getByText('Disabled by Cy Park.'));
    await expectAccessible(cy, "an admin's webhooks");
    await cy.context().close();
  });

  it('deletes it', async () => {
    await ada.reload();
    await item()
      .getByRole('button', { name: /^Delete webhook / })
      .click();
    await ada.getByRole('button', { name: 'Delete now' }).click();
    await visible(ada.getByText('No webhooks yet.'));
    assert.ok(section());
  });

  it('asked nothing of any other host and raised no page errors', () => assertCleanRun(run.watch));
});
