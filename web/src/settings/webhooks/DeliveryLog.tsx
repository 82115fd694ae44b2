/**
 * A webhook's deliveries, newest first: the status, when, how many attempts and what the newest
 * one got; a delivery opened shows its attempts and the body sent (DeliveryDetail, fetched then:
 * the log's pages hold no bodies); older deliveries on demand; any delivery can be sent again.
 */
import { useState } from 'preact/hooks';
import type { Webhook, WebhookDeliverySummary } from '@contract';
import { messageOf, type Page } from '../../api/client';
import { fetchDeliveries, retryDelivery } from '../../api/webhooks';
import { formatTimestamp } from '../../lib/dates';
import { useAsync } from '../../lib/use-async';
import { Dialog } from '../../ui/Dialog';
import { ErrorNote } from '../../ui/ErrorNote';
import { useNotify } from '../../ui/notices';
import { DeliveryDetail } from './DeliveryDetail';
import { labelOf } from './event-types';

const STATUS_LABEL: Record<WebhookDeliverySummary['status'], string> = {
  pending: 'Pending',
  succeeded: 'Delivered',
  failed: 'Failed',
};

/** The newest attempt's outcome, as the log line shows it. */
function lastOutcome(delivery: WebhookDeliverySummary): string {
  const last = delivery.lastAttempt;
  if (!last) return '';
  return ` · last: ${last.status !== null ? `HTTP ${last.status}` : (last.error ?? 'no answer')}`;
}

function DeliveryItem(props: {
  webhookId: string;
  delivery: WebhookDeliverySummary;
  version: number;
  onRetry: (delivery: WebhookDeliverySummary) => void;
}) {
  const { delivery } = props;
  const [open, setOpen] = useState(false);
  return (
    <li class={`delivery delivery-${delivery.status}`}>
      <details onToggle={(event) => setOpen((event.currentTarget as HTMLDetailsElement).open)}>
        <summary>
          <span class={`status-badge status-${delivery.status}`}>{STATUS_LABEL[delivery.status]}</span>{' '}
          {labelOf(delivery.type)} <span class="muted">· {formatTimestamp(delivery.occurredAt)}</span>
          <span class="muted">
            {' '}
            · {delivery.attemptCount} {delivery.attemptCount === 1 ? 'attempt' : 'attempts'}
            {lastOutcome(delivery)}
            {delivery.nextAttemptAt && delivery.attemptCount > 0 && (
              <> · next try {formatTimestamp(delivery.nextAttemptAt)}</>
            )}
          </span>
        </summary>
        {open && <DeliveryDetail webhookId={props.webhookId} deliveryId={delivery.id} version={props.version} />}
      </details>
      <button
        type="button"
        class="button-secondary"
        aria-label={`Retry delivery ${delivery.messageId}`}
        onClick={() => props.onRetry(delivery)}
      >
        Retry
      </button>
    </li>
  );
}

export function DeliveryLog({ webhook, onClose }: { webhook: Webhook; onClose: () => void }) {
  // Every load of the newest page starts over: older pages are dropped, open deliveries read again.
  const [version, setVersion] = useState(0);
  const newest = useAsync(() => fetchDeliveries(webhook.id), [webhook.id]);
  const [older, setOlder] = useState<Page<WebhookDeliverySummary> | null>(null);
  const [olderState, setOlderState] = useState<{ loading: boolean; error: string | null }>({
    loading: false,
    error: null,
  });
  const notify = useNotify();

  const reload = () => {
    setOlder(null);
    setOlderState({ loading: false, error: null });
    setVersion((v) => v + 1);
    newest.reload();
  };

  const deliveries = [...(newest.data?.items ?? []), ...(older?.items ?? [])];
  const more = older ? older.more : (newest.data?.more ?? false);

  const loadOlder = async () => {
    const oldest = deliveries[deliveries.length - 1];
    if (!oldest) return;
    setOlderState({ loading: true, error: null });
    try {
      const page = await fetchDeliveries(webhook.id, oldest.id);
      setOlder((held) => ({ items: [...(held?.items ?? []), ...page.items], more: page.more }));
      setOlderState({ loading: false, error: null });
    } catch (failure) {
      setOlderState({ loading: false, error: `Older deliveries could not be loaded: ${messageOf(failure)}` });
    }
  };

  const retry = async (delivery: WebhookDeliverySummary) => {
    try {
      await retryDelivery(webhook.id, delivery.id);
      notify(`Delivery ${delivery.messageId} will be sent again.`);
    } catch (failure) {
      notify(`Could not retry ${delivery.messageId}: ${messageOf(failure)}`, 'error');
    }
    reload();
  };

  return (
    <Dialog title={`Deliveries to ${webhook.url}`} onClose={onClose} wide>
      <div class="delivery-log" aria-busy={newest.loading}>
        <p class="section-header">
          <span class="muted small">Newest first. Open a delivery for its attempts and body (kept 30 days).</span>
          <button type="button" class="button-secondary" onClick={reload}>
            Refresh
          </button>
        </p>
        {!newest.data && newest.loading && <p class="muted">Loading…</p>}
        <ErrorNote message={newest.error} />
        {newest.data?.items.length === 0 && <p class="muted">Nothing has been sent to this webhook yet.</p>}
        <ul class="deliveries">
          {deliveries.map((delivery) => (
            <DeliveryItem
              key={delivery.id}
              webhookId={webhook.id}
              delivery={delivery}
              version={version}
              onRetry={retry}
            />
          ))}
        </ul>
        <ErrorNote message={olderState.error} />
        {more && (
          <button type="button" class="button-secondary" disabled={olderState.loading} onClick={() => void loadOlder()}>
            {olderState.loading ? 'Loading older deliveries…' : 'Show older deliveries'}
          </button>
        )}
      </div>
    </Dialog>
  );
}
