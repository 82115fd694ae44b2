/**
 * The texts of a description's change, before and after, behind a disclosure under its entry. A
 * page of activity cuts long descriptions to their first 1,000 characters (`shortened`); "Show the
 * whole texts" fetches the entry whole (GET …/activity/{entryId}) and shows it in their place.
 */
import { useState } from 'preact/hooks';
import type { ActivityEntry } from '@contract';
import { fetchActivityEntry } from '../api/activity';
import { messageOf } from '../api/client';
import { ErrorNote } from '../ui/ErrorNote';

function Side({ label, text }: { label: string; text: string | null }) {
  return (
    <div class="description-side">
      <p class="small">{label}</p>
      {text === null || text === '' ? (
        <p class="muted small">No description</p>
      ) : (
        // Focusable: a keyboard scrolls a long text too.
        <pre class="description-text" tabIndex={0}>
          {text}
        </pre>
      )}
    </div>
  );
}

export function DescriptionChange({ entry }: { entry: ActivityEntry }) {
  const [whole, setWhole] = useState<ActivityEntry | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const change = (whole ?? entry).changes.description;
  if (!change) return null;

  const expand = async () => {
    setLoading(true);
    setError(null);
    try {
      setWhole(await fetchActivityEntry(entry.taskId, entry.id));
    } catch (failure) {
      setError(`The whole texts could not be loaded: ${messageOf(failure)}`);
    } finally {
      setLoading(false);
    }
  };

  const shortened = entry.shortened && !whole;
  return (
    <details class="description-change">
      <summary>{shortened ? 'Show the start of the texts' : 'Show the texts'}</summary>
      <div class="description-sides">
        <Side label="Before" text={change.from} />
        <Side label="After" text={change.to} />
      </div>
      {shortened && (
        <p class="small">
          Each text is cut to its first 1,000 characters.{' '}
          <button type="button" class="button-link" disabled={loading} onClick={() => void expand()}>
            {loading ? 'Loading the whole texts…' : 'Show the whole texts'}
          </button>
        </p>
      )}
      <ErrorNote message={error} />
    </details>
  );
}
