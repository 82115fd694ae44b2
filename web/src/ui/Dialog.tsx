/** A modal dialog on the native <dialog>: focus is kept inside, Escape closes it. */
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';

interface Props {
  title: string;
  onClose: () => void;
  children: ComponentChildren;
  /** Room for a table or a log (the delivery log), not just a form. */
  wide?: boolean;
}

export function Dialog({ title, onClose, children, wide = false }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    dialog.current?.showModal();
    return () => opener?.focus?.(); // back to whatever opened it
  }, []);
  return (
    <dialog ref={dialog} class={wide ? 'dialog dialog-wide' : 'dialog'} aria-labelledby={titleId} onClose={onClose}>
      <header class="dialog-header">
        <h2 id={titleId}>{title}</h2>
        <button type="button" class="button-quiet" aria-label="Close" onClick={() => dialog.current?.close()}>
          ×
        </button>
      </header>
      {children}
    </dialog>
  );
}
