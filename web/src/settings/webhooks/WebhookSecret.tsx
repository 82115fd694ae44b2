/** A webhook's signing secret, shown once (after creating it or rotating it), with a copy button. */
import { useRef, useState } from 'preact/hooks';
import { copyText } from '../../lib/clipboard';

interface Props {
  /** What the secret is for: "the new webhook" or "the webhook's new secret". */
  title: string;
  secret: string;
  onDone: () => void;
}

export function WebhookSecret({ title, secret, onDone }: Props) {
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<boolean | null>(null);
  return (
    <div class="secret-box" role="region" aria-label="New webhook secret">
      <p>
        <strong>Copy the signing secret of {title} now.</strong> It will not be shown again.
      </p>
      <div class="secret-row">
        <label class="sr-only" for="webhook-secret">
          Webhook signing secret
        </label>
        <input
          id="webhook-secret"
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
        {copied === false && 'Could not copy: select the secret and copy it yourself.'}
      </p>
      <p class="muted small">
        Check each request's <code>webhook-signature</code> with it, as the Standard Webhooks libraries do.
      </p>
    </div>
  );
}
