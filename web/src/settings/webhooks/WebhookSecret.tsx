/** A webhook's signing secret, shown once (after creating it or rotating it), with a copy button. */
import { ShownOnce } from '../../ui/ShownOnce';

interface Props {
  /** What the secret is for: "the new webhook" or "the webhook's new secret". */
  title: string;
  secret: string;
  onDone: () => void;
}

export function WebhookSecret({ title, secret, onDone }: Props) {
  return (
    <ShownOnce
      regionLabel="New webhook secret"
      inputId="webhook-secret"
      inputLabel="Webhook signing secret"
      value={secret}
      noun="secret"
      onDone={onDone}
      footer={
        <>
          Check each request's <code>webhook-signature</code> with it, as the Standard Webhooks libraries do.
        </>
      }
    >
      <strong>Copy the signing secret of {title} now.</strong> It will not be shown again.
    </ShownOnce>
  );
}
