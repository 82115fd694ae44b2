/** A new invitation's link, shown this once, with a copy button. */
import { useRef, useState } from 'preact/hooks';
import type { CreatedInvitation } from '@contract';
import { copyText } from '../../lib/clipboard';
import { formatTimestamp } from '../../lib/dates';
import { roleWithArticle } from './member-rules';

interface Props {
  invitation: CreatedInvitation;
  onDone: () => void;
}

export function InvitationLink({ invitation, onDone }: Props) {
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<boolean | null>(null);
  return (
    <div class="secret-box" role="region" aria-label="New invitation link">
      <p>
        <strong>Copy the invitation link now: you won’t see it again.</strong> Send it to{' '}
        {invitation.email ?? 'the person you are inviting'} yourself. It lets{' '}
        {invitation.email ? 'them' : 'whoever has it'} join as {roleWithArticle(invitation.role)} until{' '}
        {formatTimestamp(invitation.expiresAt)}, once.
      </p>
      <div class="secret-row">
        <label class="sr-only" for="new-invitation-link">
          Invitation link
        </label>
        <input
          id="new-invitation-link"
          ref={input}
          class="secret"
          readOnly
          value={invitation.link}
          onFocus={(e) => e.currentTarget.select()}
        />
        <button
          type="button"
          class="button-primary"
          onClick={async () => setCopied(await copyText(invitation.link, input.current))}
        >
          Copy link
        </button>
        <button type="button" class="button-quiet" onClick={onDone}>
          Done
        </button>
      </div>
      <p class="small" role="status">
        {copied === true && 'Copied to the clipboard.'}
        {copied === false && 'Could not copy: select the link and copy it yourself.'}
      </p>
    </div>
  );
}
