/** Picks any number of values from a popover of checkboxes; each tick is applied at once. */
import type { ComponentChildren } from 'preact';
import { Popover } from './Popover';

interface Option<T> {
  value: T;
  label: string;
  /** Shown, but cannot be changed here (an archived list the task stays in). */
  disabled?: boolean;
}

interface Props<T> {
  /** What is being picked, e.g. "Assignees of “Write the spec”". */
  label: string;
  options: Array<Option<T>>;
  selected: T[];
  onChange: (selected: T[]) => void;
  /** Named on the button when nothing is picked. */
  emptyText: string;
  /** What the button shows, when not the names of the picked values (avatars, chips). */
  display?: ComponentChildren;
  align?: 'start' | 'end';
  buttonClass?: string;
}

export function CheckboxMenu<T extends string | number>({
  label,
  options,
  selected,
  onChange,
  emptyText,
  display,
  align,
  buttonClass = 'button-field',
}: Props<T>) {
  const chosen = options.filter((option) => selected.includes(option.value)).map((option) => option.label);
  const summary = chosen.length === 0 ? emptyText : chosen.join(', ');
  return (
    <Popover
      label={`${label}: ${summary}`}
      button={display ?? <span class="truncate">{summary}</span>}
      buttonClass={buttonClass}
      align={align}
    >
      {() => (
        <fieldset class="checkbox-menu">
          <legend class="sr-only">{label}</legend>
          {options.length === 0 && <p class="muted">Nothing to choose from.</p>}
          {options.map((option) => (
            <label key={String(option.value)} class="check">
              <input
                type="checkbox"
                checked={selected.includes(option.value)}
                disabled={option.disabled}
                onChange={(event) =>
                  onChange(
                    event.currentTarget.checked
                      ? [...selected, option.value]
                      : selected.filter((value) => value !== option.value),
                  )
                }
              />
              <span>{option.label}</span>
            </label>
          ))}
        </fieldset>
      )}
    </Popover>
  );
}
