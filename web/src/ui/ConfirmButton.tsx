/** A destructive action that asks once more, in place, before it happens. */
import { useState } from 'preact/hooks';
import { focusOnMount } from './focus';

interface Props {
  label: string;
  confirmLabel: string;
  /** Accessible name when the visible label alone is ambiguous ("Revoke" in a table of keys). */
  ariaLabel?: string;
  onConfirm: () => void;
}

export function ConfirmButton({ label, confirmLabel, ariaLabel, onConfirm }: Props) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" class="button-danger-quiet" aria-label={ariaLabel} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <span class="confirm" role="group" aria-label={ariaLabel ?? label}>
      <button
        type="button"
        class="button-danger"
        ref={focusOnMount}
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        {confirmLabel}
      </button>
      <button type="button" class="button-quiet" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}
