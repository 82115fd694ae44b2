/** A new invitation's link, shown this once, with a copy button. */
import type { CreatedInvitation } from '@contract';
import { formatTimestamp } from '../../lib/dates';
import { ShownOnce } from '../../ui/ShownOnce';
import { roleWithArticle } from './member-rules';

interface Props {
  invitation: CreatedInvitation;
  onDone: () => void;
}

export function InvitationLink({ invitation, onDone }: Props) {
  return (
    <ShownOnce
      regionLabel="New invitation link"
      inputId="new-invitation-link"
      inputLabel="Invitation link"
      value={invitation.link}
      noun="link"
      copyLabel="Copy link"
      onDone={onDone}
    >
      <strong>Copy the invitation link now: you won’t see it again.</strong> Send it to{' '}
      {invitation.email ?? 'the person you are inviting'} yourself. It lets{' '}
      {invitation.email ? 'them' : 'whoever has it'} join as {roleWithArticle(invitation.role)} until{' '}
      {formatTimestamp(invitation.expiresAt)}, once.
    </ShownOnce>
  );
}
