/**
 * A value shown this once (an API key, a webhook secret, an invitation link): read-only, selected
 * on focus, with Copy and Done, and a note on whether the copy worked. The caller says what it is.
 */
import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { copyText } from '../lib/clipboard';

interface Props {
  /** The region's accessible name. */
  regionLabel: string;
  inputId: string;
  /** The input's (screen-reader) label. */
  inputLabel: string;
  value: string;
  /** "key", "secret", "link": named in the note when copying fails. */
  noun: string;
  copyLabel?: string;
  onDone: () => void;
  /** The sentence above the value. */
  children: ComponentChildren;
  /** A note below it (how to use the value), if any. */
  footer?: ComponentChildren;
}

export function ShownOnce({
  regionLabel,
  inputId,
  inputLabel,
  value,
  noun,
  copyLabel,
  onDone,
  children,
  footer,
}: Props) {
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<boolean | null>(null);
  return (
    <div class="secret-box" role="region" aria-label={regionLabel}>
      <p>{children}</p>
      <div class="secret-row">
        <label class="sr-only" for={inputId}>
          {inputLabel}
        </label>
        <input
          id={inputId}
          ref={input}
          class="secret"
          readOnly
          value={value}
          onFocus={(e) => e.currentTarget.select()}
        />
        <button
          type="button"
          class="button-primary"
          onClick={async () => setCopied(await copyText(value, input.current))}
        >
          {copyLabel ?? 'Copy'}
        </button>
        <button type="button" class="button-quiet" onClick={onDone}>
          Done
        </button>
      </div>
      <p class="small" role="status">
        {copied === true && 'Copied to the clipboard.'}
        {copied === false && `Could not copy: select the ${noun} and copy it yourself.`}
      </p>
      {footer && <p class="muted small">{footer}</p>}
    </div>
  );
}
