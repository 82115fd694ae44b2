/**
 * A task's due date as text ("Due 1 Dec"), or, without one, nothing but a quiet "+ Due date". A
 * click, Enter or Space turns it into a date input (a click opens the calendar too). A date picked
 * from the calendar is saved at once; a typed one on Enter or when focus leaves, not on each
 * change, because Chromium reports every typed digit of the year as a whole date (0002-12-01…).
 * Escape leaves the date as it was.
 */
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { formatDueDate, isOverdue } from '../lib/dates';
import { EmptyValue, quote, valueButtonClass, type FieldProps } from './fields';

export function DueDateField({ task, onChange, compact }: FieldProps) {
  // How the editor was opened: a click also opens the calendar, the keyboard types the date.
  const [editing, setEditing] = useState<'pointer' | 'keyboard' | null>(null);
  const button = useRef<HTMLButtonElement>(null);
  const refocus = useRef(false);
  const label = `Due date of ${quote(task)}`;
  const due = task.dueDate;

  // Layout effects, here and in the editor: the focus moves before the next key is handled.
  useLayoutEffect(() => {
    if (!editing && refocus.current) button.current?.focus();
    refocus.current = false;
  }, [editing]);

  const finish = (value: string | null, returnFocus: boolean) => {
    refocus.current = returnFocus;
    setEditing(null);
    if (value !== null && value !== (due ?? '')) onChange({ dueDate: value || null });
  };

  if (editing) {
    return <DateEditor label={label} initial={due ?? ''} openCalendar={editing === 'pointer'} onDone={finish} />;
  }
  const overdue = isOverdue(due, task.isCompleted);
  return (
    <button
      ref={button}
      type="button"
      class={`${valueButtonClass(compact, !due)}${overdue ? ' is-overdue' : ''}`}
      // The name holds the words shown ("Due 1 Dec", "No due date"): WCAG 2.5.3, Label in Name.
      aria-label={`${label}: ${due ? `due ${formatDueDate(due)}` : compact ? 'none' : 'no due date'}${overdue ? ', overdue' : ''}`}
      // A click from the keyboard (Enter, Space) has no pointer position: detail is 0.
      onClick={(event) => setEditing(event.detail > 0 ? 'pointer' : 'keyboard')}
    >
      {due ? `Due ${formatDueDate(due)}` : <EmptyValue compact={compact} full="No due date" short="Due date" />}
    </button>
  );
}

interface EditorProps {
  label: string;
  initial: string;
  openCalendar: boolean;
  /** The date to save ('' clears it), or null to keep the old one; and whether focus goes back. */
  onDone: (value: string | null, returnFocus: boolean) => void;
}

/** The input, uncontrolled: a live reload of the task must not reset a date half typed. */
function DateEditor({ label, initial, openCalendar, onDone }: EditorProps) {
  const input = useRef<HTMLInputElement>(null);
  const done = useRef(false);
  // A change that no key in the input caused came from the calendar (or a paste).
  const typed = useRef(false);
  const finish = (value: string | null, returnFocus: boolean) => {
    if (done.current) return;
    done.current = true;
    onDone(value, returnFocus);
  };

  useLayoutEffect(() => {
    const element = input.current!;
    element.value = initial;
    element.focus();
    if (openCalendar) {
      try {
        element.showPicker();
      } catch {
        // not offered here: the input is focused, which is enough
      }
    }
  }, []);

  return (
    <input
      ref={input}
      type="date"
      class="field-date"
      aria-label={label}
      onChange={(event) => {
        if (!typed.current) finish(event.currentTarget.value, true);
      }}
      onKeyDown={(event) => {
        typed.current = true;
        if (event.key === 'Enter') {
          event.preventDefault();
          finish(event.currentTarget.value, true);
        } else if (event.key === 'Escape') {
          event.preventDefault();
          event.stopPropagation(); // the phone drawer listens for Escape too
          finish(null, true);
        }
      }}
      onBlur={(event) => finish(event.currentTarget.value, false)}
    />
  );
}
