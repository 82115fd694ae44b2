/** One line to add a task to the current view; focus stays for the next one. */
import { useId, useState } from 'preact/hooks';
import { messageOf } from '../api/client';
import { createTask, type NewTaskDefaults } from '../api/tasks';
import { ErrorNote } from '../ui/ErrorNote';
import { focusOnMount } from '../ui/focus';

interface Props {
  /** What makes a new task belong to this view: its list, or the caller as assignee. */
  defaults: NewTaskDefaults;
  label?: string;
  placeholder?: string;
  onCreated: () => void;
  onCancel?: () => void;
  autoFocus?: boolean;
  /** The view's own quick add is where N (app/shortcuts.tsx) puts the keyboard. */
  shortcut?: boolean;
}

export function QuickAdd({
  defaults,
  label = 'New task',
  placeholder = 'Add a task and press Enter',
  onCreated,
  onCancel,
  autoFocus,
  shortcut,
}: Props) {
  const [title, setTitle] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const id = useId();

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!title.trim() || busy) return;
    setBusy(true);
    setError(null);
    try {
      await createTask({ ...defaults, title: title.trim() });
      setTitle('');
      onCreated();
    } catch (failure) {
      setError(messageOf(failure));
    }
    setBusy(false);
  };

  return (
    <form class="quick-add" onSubmit={submit} onKeyDown={(event) => event.key === 'Escape' && onCancel?.()}>
      <label class="sr-only" for={id}>
        {label}
      </label>
      <input
        id={id}
        value={title}
        maxLength={500}
        placeholder={placeholder}
        ref={autoFocus ? focusOnMount : undefined}
        autoComplete="off"
        data-shortcut={shortcut ? 'new-task' : undefined}
        aria-keyshortcuts={shortcut ? 'N' : undefined}
        onInput={(event) => setTitle(event.currentTarget.value)}
      />
      <button type="submit" class="button-primary" disabled={!title.trim() || busy}>
        Add
      </button>
      {onCancel && (
        <button type="button" class="button-quiet" onClick={onCancel}>
          Cancel
        </button>
      )}
      <ErrorNote message={error} />
    </form>
  );
}
