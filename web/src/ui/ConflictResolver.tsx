/**
 * Someone saved the text (a description, a comment) after this person started editing it. Both
 * texts are shown side by side; the person composes the text to keep (theirs, mine, both, or an
 * edit of either) and saves it over the version they have now seen (lib/use-conflict-safe-edit.ts).
 */
import { useId, useState } from 'preact/hooks';
import { combine } from '../lib/conflict-safe-edit';

interface Props {
  theirs: string;
  mine: string;
  busy: boolean;
  onSave: (resolution: string) => void;
  onDiscardMine: () => void;
  /** What happened, as the heading says it. */
  heading: string;
  /** The saved version's label. */
  theirsLabel: string;
}

export function ConflictResolver({ theirs, mine, busy, onSave, onDiscardMine, heading, theirsLabel }: Props) {
  const [resolution, setResolution] = useState(mine);
  const id = useId();
  return (
    <section class="conflict" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{heading}</h3>
      <p>Your text has not been saved and nothing is lost. Compare both versions, then save the text to keep.</p>
      <div class="conflict-columns">
        <label class="field">
          <span>{theirsLabel}</span>
          <textarea readOnly rows={8} value={theirs} />
        </label>
        <label class="field">
          <span>Your version (not saved)</span>
          <textarea readOnly rows={8} value={mine} />
        </label>
      </div>
      <div class="form-actions">
        <button type="button" class="button-secondary" onClick={() => setResolution(mine)}>
          Start from mine
        </button>
        <button type="button" class="button-secondary" onClick={() => setResolution(theirs)}>
          Start from theirs
        </button>
        <button type="button" class="button-secondary" onClick={() => setResolution(combine(theirs, mine))}>
          Combine both
        </button>
      </div>
      <label class="field">
        <span>Text to keep</span>
        <textarea rows={10} value={resolution} onInput={(event) => setResolution(event.currentTarget.value)} />
      </label>
      <div class="form-actions">
        <button type="button" class="button-primary" disabled={busy} onClick={() => onSave(resolution)}>
          Save this text
        </button>
        <button type="button" class="button-quiet" onClick={onDiscardMine}>
          Discard my version
        </button>
      </div>
    </section>
  );
}
