/** A key just created: its secret, shown this once, with a copy button. */
import { useRef, useState } from 'preact/hooks';
import { copyText } from '../lib/clipboard';

interface Props {
  name: string;
  secret: string;
  onDone: () => void;
}

export function NewKeySecret({ name, secret, onDone }: Props) {
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<boolean | null>(null);
  return (
    <div class="secret-box" role="region" aria-label={`New API key ${name}`}>
      <p>
        <strong>Copy your new key “{name}” now.</strong> It will not be shown again.
      </p>
      <div class="secret-row">
        <label class="sr-only" for="new-key-secret">
          API key secret
        </label>
        <input
          id="new-key-secret"
          ref={input}
          class="secret"
          readOnly
          value={secret}
          onFocus={(e) => e.currentTarget.select()}
        />
        <button
          type="button"
          class="button-primary"
          onClick={async () => setCopied(await copyText(secret, input.current))}
        >
          Copy
        </button>
        <button type="button" class="button-quiet" onClick={onDone}>
          Done
        </button>
      </div>
      <p class="small" role="status">
        {copied === true && 'Copied to the clipboard.'}
        {copied === false && 'Could not copy: select the key and copy it yourself.'}
      </p>
      <p class="muted small">
        Use it as <code>x-api-key</code>: <code>curl -H 'x-api-key: …' {window.location.origin}/v1/me</code>
      </p>
    </div>
  );
}
