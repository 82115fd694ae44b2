/** Creates a webhook: its URL, a description, and every event or the chosen types. */
import { useState } from 'preact/hooks';
import type { ChangeEventType, WebhookWithSecret } from '@contract';
import { messageOf } from '../../api/client';
import { createWebhook } from '../../api/webhooks';
import { ErrorNote } from '../../ui/ErrorNote';
import { EVENT_TYPES, labelOf } from './event-types';

export function NewWebhookForm({ onCreated }: { onCreated: (created: WebhookWithSecret) => void }) {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [allEvents, setAllEvents] = useState(true);
  const [chosen, setChosen] = useState<ChangeEventType[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const toggle = (type: ChangeEventType, on: boolean) =>
    setChosen((current) =>
      on ? EVENT_TYPES.filter((t) => t === type || current.includes(t)) : current.filter((t) => t !== type),
    );

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    setBusy(true);
    try {
      const created = await createWebhook({
        url: url.trim(),
        description: description.trim() || undefined,
        eventTypes: allEvents ? undefined : chosen,
      });
      setUrl('');
      setDescription('');
      onCreated(created);
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="webhook-form" onSubmit={submit} aria-label="New webhook">
      <div class="inline-form">
        <label class="field webhook-url">
          <span>Payload URL</span>
          <input
            type="url"
            value={url}
            maxLength={2000}
            placeholder="https://example.com/webhooks/tasklane"
            onInput={(e) => setUrl(e.currentTarget.value)}
          />
        </label>
        <label class="field">
          <span>Description</span>
          <input
            value={description}
            maxLength={500}
            placeholder="optional"
            onInput={(e) => setDescription(e.currentTarget.value)}
          />
        </label>
      </div>
      <fieldset class="event-picker">
        <legend>Events</legend>
        <label class="check">
          <input type="radio" name="webhook-events" checked={allEvents} onChange={() => setAllEvents(true)} />
          All events, also ones added later
        </label>
        <label class="check">
          <input type="radio" name="webhook-events" checked={!allEvents} onChange={() => setAllEvents(false)} />
          Only these:
        </label>
        {!allEvents && (
          <div class="event-choices">
            {EVENT_TYPES.map((type) => (
              <label class="check" key={type}>
                <input
                  type="checkbox"
                  checked={chosen.includes(type)}
                  onChange={(e) => toggle(type, e.currentTarget.checked)}
                />
                {labelOf(type)} <code class="muted">{type}</code>
              </label>
            ))}
          </div>
        )}
      </fieldset>
      <div>
        <button
          type="submit"
          class="button-primary"
          disabled={busy || !url.trim() || (!allEvents && chosen.length === 0)}
        >
          Create webhook
        </button>
      </div>
      <ErrorNote message={error} />
    </form>
  );
}
