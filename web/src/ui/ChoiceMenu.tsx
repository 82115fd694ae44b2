/**
 * Picks one value from a popover menu (a status, a priority). The button shows the value as text;
 * Enter, Space, an arrow key or a click opens the menu at the current choice, the arrows, Home,
 * End and a first letter move, Enter or a click picks (applied at once) and Escape leaves the
 * value as it was. A native select could not promise that last one: Chromium commits an arrow
 * press in its open list.
 */
import type { ComponentChildren } from 'preact';
import { Popover } from './Popover';

interface Option<T> {
  value: T;
  label: string;
}

interface Props<T> {
  /** What is being picked, e.g. "Status of “Write the spec”". */
  label: string;
  options: Array<Option<T>>;
  selected: T;
  onChange: (value: T) => void;
  /** What the button shows: the current value, as text. */
  display: ComponentChildren;
  buttonClass?: string;
  align?: 'start' | 'end';
}

export function ChoiceMenu<T extends string | number | null>({
  label,
  options,
  selected,
  onChange,
  display,
  buttonClass,
  align,
}: Props<T>) {
  const current = options.find((option) => option.value === selected);
  return (
    <Popover label={`${label}: ${current?.label ?? ''}`} button={display} buttonClass={buttonClass} align={align}>
      {(close) => (
        <div class="menu" role="menu" aria-label={label} onKeyDown={moveFocus}>
          {options.map((option) => {
            const checked = option.value === selected;
            return (
              <button
                key={String(option.value)}
                type="button"
                role="menuitemradio"
                aria-checked={checked}
                tabIndex={checked ? 0 : -1}
                data-current={checked || undefined}
                onClick={() => {
                  close();
                  if (!checked) onChange(option.value);
                }}
              >
                <span class="menu-check" aria-hidden="true">
                  {checked ? '✓' : ''}
                </span>
                <span class="menu-label">{option.label}</span>
              </button>
            );
          })}
        </div>
      )}
    </Popover>
  );
}

/** Arrow keys, Home, End and type-ahead (a first letter) move between the menu's items. */
function moveFocus(event: KeyboardEvent): void {
  const items = [...(event.currentTarget as HTMLElement).querySelectorAll<HTMLElement>('[role="menuitemradio"]')];
  const at = items.indexOf(document.activeElement as HTMLElement);
  const key = event.key;
  let next: number | undefined;
  if (key === 'ArrowDown') next = (at + 1) % items.length;
  else if (key === 'ArrowUp') next = (at - 1 + items.length) % items.length;
  else if (key === 'Home') next = 0;
  else if (key === 'End') next = items.length - 1;
  else if (key.length === 1 && /\S/.test(key)) {
    const letter = key.toLowerCase();
    const after = [...items.slice(at + 1), ...items.slice(0, at + 1)];
    const match = after.find((item) =>
      item.querySelector('.menu-label')?.textContent?.toLowerCase().startsWith(letter),
    );
    next = match ? items.indexOf(match) : undefined;
  }
  if (next === undefined) return;
  event.preventDefault();
  items[next]?.focus();
}
