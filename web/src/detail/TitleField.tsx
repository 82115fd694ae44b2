/**
 * The task's title, edited in place: saved on Enter or when focus leaves, Escape undoes. A text
 * box that grows with the title (the CSS: `field-sizing: content`), so a long title shows whole,
 * wrapped between words; a title holds no line break, so Enter saves and a pasted one becomes a space.
 */
import { useEffect, useRef, useState } from 'preact/hooks';

interface Props {
  title: string;
  onSave: (title: string) => void;
}

/** Line breaks (typed, pasted or dropped) as the single spaces a title has instead. */
const oneLine = (text: string) => text.replace(/\s*[\r\n]+\s*/g, ' ');

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
    <textarea
      class="title-input"
      aria-label="Title"
      rows={1}
      value={draft}
      maxLength={500}
      onFocus={() => setEditing(true)}
      onInput={(event) => {
        const text = oneLine(event.currentTarget.value);
        // Written back at once, so a pasted break never shows as a second line.
        if (text !== event.currentTarget.value) event.currentTarget.value = text;
        setDraft(text);
      }}
      onBlur={commit}
      onKeyDown={(event) => {
        if (event.key === 'Enter') {
          event.preventDefault();
          event.currentTarget.blur();
        }
        if (event.key === 'Escape') {
          cancelled.current = true;
          setDraft(title);
          event.currentTarget.blur();
        }
      }}
    />
  );
}
