/** A key just created: its secret, shown this once, with a copy button (and, for an agent's key, its MCP configurations). */
import type { ComponentChildren } from 'preact';
import { ShownOnce } from '../ui/ShownOnce';

interface Props {
  name: string;
  secret: string;
  onDone: () => void;
  children?: ComponentChildren;
}

export function NewKeySecret({ name, secret, onDone, children }: Props) {
  return (
    <div class="new-key-secret">
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
      {children}
    </div>
  );
}
