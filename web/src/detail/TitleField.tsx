/** The task's title, edited in place: saved on Enter or when focus leaves, Escape undoes. */
import { useEffect, useRef, useState } from 'preact/hooks';

interface Props {
  title: string;
  onSave: (title: string) => void;
}

export function TitleField({ title, onSave }: Props) {
  const [draft, setDraft] = useState(title);
  const [editing, setEditing] = useState(false);
  // Escape blurs the field too: the blur that follows must not save what Escape undid.
  const cancelled = useRef(false);
  // Live changes from others show unless this person is typing.
  useEffect(() => {
    if (!editing) setDraft(title);
  }, [title, editing]);

  const commit = () => {
    setEditing(false);
    if (cancelled.current) {
      cancelled.current = false;
      return;
    }
    const next = draft.trim();
    if (next && next !== title) onSave(next);
    else setDraft(title);
  };

  return (
    <input
      class="title-input"
      aria-label="Title"
      value={draft}
      maxLength={500}
      onFocus={() => setEditing(true)}
      onInput={(event) => setDraft(event.currentTarget.value)}
      onBlur={commit}
      onKeyDown={(event) => {
        if (event.key === 'Enter') event.currentTarget.blur();
        if (event.key === 'Escape') {
          cancelled.current = true;
          setDraft(title);
          event.currentTarget.blur();
        }
      }}
    />
  );
}
