/**
 * One delivery whole, fetched when it is opened in the log (GET …/deliveries/{id}): its attempts,
 * newest first, with the status or error, how long each took, the start of the answer and the
 * next try, and the body as sent. The log itself holds no bodies: each is a whole task.
 */
import type { WebhookAttempt } from '@contract';
import { fetchDelivery } from '../../api/webhooks';
import { formatTimestamp } from '../../lib/dates';
import { useAsync } from '../../lib/use-async';
import { ErrorNote } from '../../ui/ErrorNote';

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
          {attempt.responseBody && <Scrolling text={attempt.responseBody} />}
        </li>
      ))}
    </ol>
  );
}

/** A text in a box that scrolls: focusable, so a keyboard can scroll it too. */
const Scrolling = ({ text }: { text: string }) => (
  <pre class="response-body" tabIndex={0}>
    {text}
  </pre>
);

/** `version` changes when the log reloads (a retry, Refresh): the delivery is read again with it. */
export function DeliveryDetail({
  webhookId,
  deliveryId,
  version,
}: {
  webhookId: string;
  deliveryId: number;
  version: number;
}) {
  const delivery = useAsync(() => fetchDelivery(webhookId, deliveryId), [webhookId, deliveryId, version]);
  const { data } = delivery;
  return (
    <div class="delivery-detail" aria-busy={delivery.loading}>
      {!data && delivery.loading && <p class="muted small">Loading the attempts and the body…</p>}
      <ErrorNote message={delivery.error && `The delivery could not be loaded: ${delivery.error}`} />
      {data && (
        <>
          <p class="small muted">
            <code>webhook-id: {data.messageId}</code>
          </p>
          <Attempts attempts={data.attempts} />
          {data.attemptCount > data.attempts.length && (
            <p class="muted small">
              The newest {data.attempts.length} of {data.attemptCount} attempts.
            </p>
          )}
          {data.payload && (
            <details class="payload">
              <summary>Body sent</summary>
              <Scrolling text={data.payload} />
            </details>
          )}
        </>
      )}
    </div>
  );
}
