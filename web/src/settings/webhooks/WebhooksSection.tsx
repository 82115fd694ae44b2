/**
 * Settings → Webhooks (a chunk of its own, loaded when Settings opens): your webhooks, and for a
 * team's owners and admins everyone's. Create one (its secret is shown once), enable or disable
 * it, rotate its secret, send a test, read its delivery log; a disabled one says why. Everyone
 * may delete what is listed: their own, and an owner or admin anyone's (a removed member's too).
 */
import { useState } from 'preact/hooks';
import type { Webhook, WebhookWithSecret } from '@contract';
import { messageOf } from '../../api/client';
import {
  deleteWebhook,
  fetchWebhookAvailability,
  fetchWebhooks,
  rotateSecret,
  sendTest,
  updateWebhook,
} from '../../api/webhooks';
import { useSession } from '../../app/session-context';
import { formatTimestamp } from '../../lib/dates';
import { useAsync } from '../../lib/use-async';
import { ConfirmButton } from '../../ui/ConfirmButton';
import { ErrorNote } from '../../ui/ErrorNote';
import { useNotify } from '../../ui/notices';
import { DeliveryLog } from './DeliveryLog';
import { describeEventTypes } from './event-types';
import { NewWebhookForm } from './NewWebhookForm';
import { WebhookSecret } from './WebhookSecret';

function StatusLine({ webhook }: { webhook: Webhook }) {
  if (!webhook.enabled) {
    return (
      <p class="webhook-status">
        <span class="status-badge status-failed">Disabled</span> {webhook.disabledReason}
        {webhook.disabledAt && <span class="muted"> ({formatTimestamp(webhook.disabledAt)})</span>}
      </p>
    );
  }
  return (
    <p class="webhook-status">
      <span class="status-badge status-succeeded">Enabled</span>
      {webhook.failingSince && (
        <span class="error-note"> Failing since {formatTimestamp(webhook.failingSince)}: see the deliveries.</span>
      )}
    </p>
  );
}

export function WebhooksSection() {
  const { session } = useSession();
  const webhooks = useAsync(fetchWebhooks, []);
  const availability = useAsync(fetchWebhookAvailability, []);
  const notify = useNotify();
  const [secret, setSecret] = useState<{ title: string; secret: string } | null>(null);
  const [logOf, setLogOf] = useState<Webhook | null>(null);

  /** Runs an action on a webhook, says how it went, and reloads the list. */
  const act = async (what: string, action: () => Promise<unknown>, done?: string) => {
    try {
      await action();
      if (done) notify(done);
    } catch (failure) {
      notify(`Could not ${what}: ${messageOf(failure)}`, 'error');
    }
    webhooks.reload();
  };

  const showSecret = (title: string) => (created: WebhookWithSecret) => {
    setSecret({ title, secret: created.secret });
    webhooks.reload();
  };

  return (
    <section class="card" aria-labelledby="webhooks-heading">
      <h2 id="webhooks-heading">Webhooks</h2>
      <p class="muted">
        A webhook POSTs each change you can see to a URL of yours, signed in the Standard Webhooks format. It sends only
        what you may see yourself.
      </p>
      {secret && <WebhookSecret title={secret.title} secret={secret.secret} onDone={() => setSecret(null)} />}
      {availability.data?.available === false && (
        <p class="warning-note" role="status">
          {availability.data.reason}
        </p>
      )}
      {/* Only once the server said it can make webhooks (or could not say): no form that can only fail. */}
      {(availability.data?.available || availability.error) && (
        <NewWebhookForm onCreated={showSecret('the new webhook')} />
      )}
      <ErrorNote message={webhooks.error} />
      {webhooks.data?.length === 0 && <p class="muted">No webhooks yet.</p>}
      <ul class="webhooks">
        {webhooks.data?.map((webhook) => {
          const mine = webhook.owner.id === session.user.id;
          return (
            <li key={webhook.id} class="webhook" aria-label={`Webhook ${webhook.url}`}>
              <p>
                <code class="webhook-url-text">{webhook.url}</code>
                {webhook.description && <span class="muted"> · {webhook.description}</span>}
              </p>
              <p class="small muted">
                {describeEventTypes(webhook.eventTypes)}
                {!mine && <> · owner: {webhook.owner.name}</>}
                {webhook.previousSecretExpiresAt && Date.parse(webhook.previousSecretExpiresAt) > Date.now() && (
                  <> · the previous secret signs too until {formatTimestamp(webhook.previousSecretExpiresAt)}</>
                )}
              </p>
              <StatusLine webhook={webhook} />
              <div class="webhook-actions">
                {webhook.enabled ? (
                  <button
                    type="button"
                    class="button-secondary"
                    onClick={() =>
                      void act('disable it', () => updateWebhook(webhook.id, { enabled: false }), 'Webhook disabled.')
                    }
                  >
                    Disable
                  </button>
                ) : (
                  mine && (
                    <button
                      type="button"
                      class="button-secondary"
                      onClick={() =>
                        void act('enable it', () => updateWebhook(webhook.id, { enabled: true }), 'Webhook enabled.')
                      }
                    >
                      Enable
                    </button>
                  )
                )}
                {mine && (
                  <>
                    <button
                      type="button"
                      class="button-secondary"
                      disabled={!webhook.enabled}
                      onClick={() =>
                        void act('send a test', () => sendTest(webhook.id), 'A test delivery is on its way.')
                      }
                    >
                      Send test
                    </button>
                    <button type="button" class="button-secondary" onClick={() => setLogOf(webhook)}>
                      Deliveries
                    </button>
                    <ConfirmButton
                      label="Rotate secret"
                      confirmLabel="Rotate now"
                      ariaLabel={`Rotate secret of ${webhook.url}`}
                      onConfirm={() =>
                        void act('rotate the secret', async () =>
                          showSecret("the webhook's new secret (the old one signs too for 24 hours)")(
                            await rotateSecret(webhook.id),
                          ),
                        )
                      }
                    />
                  </>
                )}
                <ConfirmButton
                  label="Delete"
                  confirmLabel="Delete now"
                  ariaLabel={`Delete webhook ${webhook.url}`}
                  onConfirm={() => void act('delete it', () => deleteWebhook(webhook.id), 'Webhook deleted.')}
                />
              </div>
            </li>
          );
        })}
      </ul>
      {logOf && <DeliveryLog webhook={logOf} onClose={() => setLogOf(null)} />}
    </section>
  );
}
