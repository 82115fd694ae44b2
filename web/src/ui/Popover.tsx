/**
 * A button that opens a small panel (a menu, a picker). Enter, Space or the arrow keys open it and
 * the keyboard goes into the panel, to its current choice (`data-current`) or its first control;
 * Escape, a click outside or focus leaving closes it. Escape and a choice return the focus to
 * where it was when the panel opened: the button, or what a shortcut opened it from (S on a task
 * row leaves the focus on the task, not on its status).
 */
import type { ComponentChildren } from 'preact';
import { useId, useLayoutEffect, useRef, useState } from 'preact/hooks';

interface Props {
  /** The button's accessible name, which should include the current value. */
  label: string;
  button: ComponentChildren;
  buttonClass?: string;
  align?: 'start' | 'end';
  /** The panel; given a function to close it (after a menu action, say). */
  children: (close: () => void) => ComponentChildren;
}

export function Popover({ label, button, buttonClass = 'button-quiet', align = 'start', children }: Props) {
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const toggle = useRef<HTMLButtonElement>(null);
  // What had the focus when the panel opened (a click focuses the button first; a shortcut does not).
  const openedFrom = useRef<HTMLElement | null>(null);
  const panelId = useId();

  const close = (returnFocus = true) => {
    setOpen(false);
    if (!returnFocus) return;
    const from = openedFrom.current;
    (from?.isConnected && from !== document.body ? from : toggle.current)?.focus();
  };
  const openPanel = () => {
    openedFrom.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    setOpen(true);
  };

  // A layout effect: the focus moves before the next key is handled, however fast it comes.
  useLayoutEffect(() => {
    if (!open) return;
    const panel = root.current?.querySelector('.popover-panel');
    (
      panel?.querySelector<HTMLElement>('[data-current]') ??
      panel?.querySelector<HTMLElement>(':is(input, button, select, a, textarea)')
    )?.focus();
    const onPointerDown = (event: PointerEvent) => {
      if (!root.current?.contains(event.target as Node)) close(false);
    };
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === 'Escape') {
        event.stopPropagation();
        close();
      }
    };
    document.addEventListener('pointerdown', onPointerDown);
    document.addEventListener('keydown', onKeyDown);
    return () => {
      document.removeEventListener('pointerdown', onPointerDown);
      document.removeEventListener('keydown', onKeyDown);
    };
  }, [open]);

  const onFocusOut = (event: FocusEvent) => {
    const next = event.relatedTarget as Node | null;
    if (next && !root.current?.contains(next)) setOpen(false);
  };

  return (
    <div class="popover" ref={root} onFocusOut={onFocusOut}>
      <button
        ref={toggle}
        type="button"
        class={buttonClass}
        aria-label={label}
        aria-expanded={open}
        aria-controls={open ? panelId : undefined}
        onClick={() => (open ? setOpen(false) : openPanel())}
        onKeyDown={(event) => {
          // As a menu button does: the arrows open it too.
          if (!open && (event.key === 'ArrowDown' || event.key === 'ArrowUp')) {
            event.preventDefault();
            openPanel();
          }
        }}
      >
        {button}
      </button>
      {open && (
        <div id={panelId} class={`popover-panel popover-${align}`}>
          {children(() => close())}
        </div>
      )}
    </div>
  );
}
