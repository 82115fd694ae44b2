/**
 * Name and colour of a list: creating one, or renaming and recolouring it. A new list may be
 * shared with the whole team at once (`initialShared` says whether the box starts ticked).
 */
import type { ListColor } from '@contract/enums';
import { useId, useState } from 'preact/hooks';
import { messageOf } from '../api/client';
import { isListColor } from '../lib/colors';
import { ColorPicker } from '../ui/ColorPicker';
import { ErrorNote } from '../ui/ErrorNote';
import { focusOnMount } from '../ui/focus';

interface Props {
  /** Names the form for assistive technology, e.g. "New list" or "Edit list Launch". */
  title: string;
  initialName?: string;
  initialColor?: string;
  submitLabel: string;
  /** Offers "Share with the whole team", ticked or not to begin with; undefined: no such box (editing). */
  initialShared?: boolean;
  onSubmit: (name: string, color: ListColor, sharedWithTeam: boolean) => Promise<void>;
  onCancel: () => void;
}

export function ListForm({
  title,
  initialName = '',
  initialColor = 'Green',
  submitLabel,
  initialShared,
  onSubmit,
  onCancel,
}: Props) {
  const [name, setName] = useState(initialName);
  const [color, setColor] = useState<ListColor>(isListColor(initialColor) ? initialColor : 'Green');
  // Follows `initialShared` until the box is touched: the sidebar may learn whether this is the
  // first list only after the form opened.
  const [chosenShared, setShared] = useState<boolean | null>(null);
  const shared = chosenShared ?? initialShared ?? false;
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const id = useId();

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!name.trim()) return setError('Give the list a name.');
    setBusy(true);
    setError(null);
    try {
      await onSubmit(name.trim(), color, shared);
    } catch (failure) {
      setError(messageOf(failure));
      setBusy(false);
    }
  };

  return (
    <form
      class="list-form"
      aria-label={title}
      onSubmit={submit}
      onKeyDown={(event) => event.key === 'Escape' && onCancel()}
    >
      <label class="field" for={`${id}-name`}>
        <span>List name</span>
      </label>
      <input
        id={`${id}-name`}
        value={name}
        maxLength={200}
        ref={focusOnMount}
        required
        onInput={(event) => setName(event.currentTarget.value)}
      />
      <ColorPicker name={`${id}-color`} value={color} onChange={setColor} />
      {initialShared !== undefined && (
        <label class="checkbox-field">
          <input type="checkbox" checked={shared} onChange={(event) => setShared(event.currentTarget.checked)} />
          <span>
            Share with the whole team
            <small class="muted"> Everyone in the team, and everyone who joins later, is a member.</small>
          </span>
        </label>
      )}
      <ErrorNote message={error} />
      <div class="form-actions">
        <button type="submit" class="button-primary" disabled={busy}>
          {submitLabel}
        </button>
        <button type="button" class="button-quiet" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
