/**
 * A webhook's deliveries, newest first, each with its attempts (kept 30 days): the status or
 * error, how long it took, the start of the answer, and when it is tried next; any delivery can
 * be sent again.
 */
import type { Webhook, WebhookAttempt, WebhookDelivery } from '@contract';
import { messageOf } from '../../api/client';
import { fetchDeliveries, retryDelivery } from '../../api/webhooks';
import { formatTimestamp } from '../../lib/dates';
import { useAsync } from '../../lib/use-async';
import { Dialog } from '../../ui/Dialog';
import { ErrorNote } from '../../ui/ErrorNote';
import { useNotify } from '../../ui/notices';
import { labelOf } from './event-types';

const STATUS_LABEL: Record<WebhookDelivery['status'], string> = {
  pending: 'Pending',
  succeeded: 'Delivered',
  failed: 'Failed',
};

function outcomeOf(attempt: WebhookAttempt): string {
  if (attempt.status !== null) return `HTTP ${attempt.status}`;
  return attempt.error ?? 'No answer';
}

function Attempts({ attempts }: { attempts: WebhookAttempt[] }) {
  if (attempts.length === 0) return <p class="muted small">Not attempted yet.</p>;
  return (
    <ol class="attempts" reversed>
      {attempts.map((attempt) => (
        <li key={attempt.attemptedAt}>
          <p>
            <strong>{outcomeOf(attempt)}</strong>
            <span class="muted">
              {' '}
              · {formatTimestamp(attempt.attemptedAt)} · {attempt.durationMs} ms
              {attempt.nextAttemptAt && <> · next try {formatTimestamp(attempt.nextAttemptAt)}</>}
            </span>
          </p>
          {attempt.status !== null && attempt.error && <p class="error-note">{attempt.error}</p>}
          {attempt.responseBody && <pre class="response-body">{attempt.responseBody}</pre>}
        </li>
      ))}
    </ol>
  );
}

export function DeliveryLog({ webhook, onClose }: { webhook: Webhook; onClose: () => void }) {
  const deliveries = useAsync(() => fetchDeliveries(webhook.id), [webhook.id]);
  const notify = useNotify();

  const retry = async (delivery: WebhookDelivery) => {
    try {
      await retryDelivery(webhook.id, delivery.id);
      notify(`Delivery ${delivery.messageId} will be sent again.`);
    } catch (failure) {
      notify(`Could not retry ${delivery.messageId}: ${messageOf(failure)}`, 'error');
    }
    deliveries.reload();
  };

  return (
    <Dialog title={`Deliveries to ${webhook.url}`} onClose={onClose} wide>
      <div class="delivery-log">
        <p class="section-header">
          <span class="muted small">Newest first. Each attempt is kept for 30 days.</span>
          <button type="button" class="button-secondary" onClick={deliveries.reload}>
            Refresh
          </button>
        </p>
        <ErrorNote message={deliveries.error} />
        {deliveries.data?.length === 0 && <p class="muted">Nothing has been sent to this webhook yet.</p>}
        <ul class="deliveries">
          {deliveries.data?.map((delivery) => (
            <li key={delivery.id} class={`delivery delivery-${delivery.status}`}>
              <details>
                <summary>
                  <span class={`status-badge status-${delivery.status}`}>{STATUS_LABEL[delivery.status]}</span>{' '}
                  {labelOf(delivery.type)} <span class="muted">· {formatTimestamp(delivery.occurredAt)}</span>
                  <span class="muted">
                    {' '}
                    · {delivery.attemptCount} {delivery.attemptCount === 1 ? 'attempt' : 'attempts'}
                    {delivery.nextAttemptAt && delivery.attemptCount > 0 && (
                      <> · next try {formatTimestamp(delivery.nextAttemptAt)}</>
                    )}
                  </span>
                </summary>
                <p class="small muted">
                  <code>webhook-id: {delivery.messageId}</code>
                </p>
                <Attempts attempts={delivery.attempts} />
                {delivery.payload && (
                  <details class="payload">
                    <summary>Body sent</summary>
                    <pre class="response-body">{delivery.payload}</pre>
                  </details>
                )}
              </details>
              <button
                type="button"
                class="button-secondary"
                aria-label={`Retry delivery ${delivery.messageId}`}
                onClick={() => void retry(delivery)}
              >
                Retry
              </button>
            </li>
          ))}
        </ul>
      </div>
    </Dialog>
  );
}
