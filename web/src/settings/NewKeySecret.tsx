/** A key just created: its secret, shown this once, with a copy button. */
import { ShownOnce } from '../ui/ShownOnce';

interface Props {
  name: string;
  secret: string;
  onDone: () => void;
}

export function NewKeySecret({ name, secret, onDone }: Props) {
  return (
    <ShownOnce
      regionLabel={`New API key ${name}`}
      inputId="new-key-secret"
      inputLabel="API key secret"
      value={secret}
      noun="key"
      onDone={onDone}
      footer={
        <>
          Use it as <code>x-api-key</code>: <code>curl -H 'x-api-key: …' {window.location.origin}/v1/me</code>
        </>
      }
    >
      <strong>Copy your new key “{name}” now.</strong> It will not be shown again.
    </ShownOnce>
  );
}
