/**
 * Inviting people (owners and admins): a link for a role, optionally for one email, working for
 * a few days. The link is shown once, with a copy button (the server keeps only its hash); the
 * pending invitations are listed, each revocable.
 */
import { useState } from 'preact/hooks';
import type { CreatedInvitation, Invitation } from '@contract';
import type { Role } from '@contract/enums';
import { messageOf } from '../../api/client';
import { createInvitation, fetchInvitations, revokeInvitation } from '../../api/invitations';
import { useLiveEvent } from '../../app/live';
import { formatTimestamp } from '../../lib/dates';
import { useAsync } from '../../lib/use-async';
import { ConfirmButton } from '../../ui/ConfirmButton';
import { ErrorNote } from '../../ui/ErrorNote';
import { useNotify } from '../../ui/notices';
import { InvitationLink } from './InvitationLink';
import { ROLE_HINTS, roleName, rolesGivenBy } from './member-rules';
import { useWhenVisibleAgain } from './use-when-visible-again';

/** The server's default is 7 days, its most 30. */
const EXPIRY_DAYS = [1, 3, 7, 14, 30] as const;
const DEFAULT_EXPIRY_DAYS = 7;

interface Props {
  myRole: Role;
  /**
   * Changes after each role change or removal, which revokes the invitations the member made
   * beyond their new role (all of them when they leave): read them again.
   */
  memberChanges: number;
  /** A change failed (a 403: the caller's role changed meanwhile). */
  onRefused: (failure: unknown) => void;
}

const forWhom = (invitation: Pick<Invitation, 'email'>) => invitation.email ?? 'anyone with the link';

export function Invitations({ myRole, memberChanges, onRefused }: Props) {
  const pending = useAsync(fetchInvitations, [memberChanges]);
  useWhenVisibleAgain(pending.reload);
  // Live: a link made, revoked or used (by anyone, from anywhere) joins or leaves the pending list.
  useLiveEvent((event) => {
    if (event.type.startsWith('invitation.') || event.type === 'sync.required') pending.reloadSoon();
  });
  const notify = useNotify();
  const [created, setCreated] = useState<CreatedInvitation | null>(null);

  const revoke = async (invitation: Invitation) => {
    try {
      await revokeInvitation(invitation.id);
      notify(`The invitation for ${forWhom(invitation)} was revoked: its link no longer works.`);
    } catch (failure) {
      notify(`Could not revoke the invitation: ${messageOf(failure)}`, 'error');
      onRefused(failure);
    }
    pending.reload();
  };

  return (
    <div class="invitations">
      <h3>Invite people</h3>
      {created && <InvitationLink invitation={created} onDone={() => setCreated(null)} />}
      <InviteForm
        myRole={myRole}
        onCreated={(invitation) => {
          setCreated(invitation);
          pending.reload();
        }}
        onRefused={onRefused}
      />
      <h3>Pending invitations</h3>
      <ErrorNote message={pending.error} />
      {pending.data === undefined && !pending.error && <p class="muted">Loading the invitations…</p>}
      {pending.data?.length === 0 && <p class="muted">No pending invitations.</p>}
      {pending.data && pending.data.length > 0 && (
        <div class="table-scroll">
          <table class="table table-stacks">
            <caption class="sr-only">Pending invitations</caption>
            <thead>
              <tr>
                <th scope="col">For</th>
                <th scope="col">Role</th>
                <th scope="col">Invited by</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {pending.data.map((invitation) => (
                <tr key={invitation.id}>
                  <td class="cell-name">{invitation.email ?? <span class="muted">Anyone with the link</span>}</td>
                  <td data-label="Role">
                    <span class="role-badge">{invitation.role}</span>
                  </td>
                  <td data-label="Invited by">{invitation.invitedBy.name}</td>
                  <td data-label="Expires">{formatTimestamp(invitation.expiresAt)}</td>
                  <td class="cell-actions">
                    <ConfirmButton
                      label="Revoke"
                      confirmLabel="Revoke now"
                      ariaLabel={`Revoke the invitation for ${forWhom(invitation)}`}
                      onConfirm={() => void revoke(invitation)}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

interface FormProps {
  myRole: Role;
  onCreated: (invitation: CreatedInvitation) => void;
  onRefused: (failure: unknown) => void;
}

function InviteForm({ myRole, onCreated, onRefused }: FormProps) {
  const roles = rolesGivenBy(myRole);
  const [role, setRole] = useState<Role>('member');
  const [email, setEmail] = useState('');
  const [days, setDays] = useState<number>(DEFAULT_EXPIRY_DAYS);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    setBusy(true);
    try {
      onCreated(await createInvitation({ role, email: email.trim() || null, expiresInDays: days }));
      setEmail('');
    } catch (failure) {
      setError(messageOf(failure));
      onRefused(failure);
    }
    setBusy(false);
  };

  return (
    <form class="invite-form" aria-label="Invite someone" onSubmit={submit}>
      <label class="field">
        <span>Role</span>
        <select value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
          {roles.map((choice) => (
            <option key={choice} value={choice}>
              {roleName(choice)}: {ROLE_HINTS[choice]}
            </option>
          ))}
        </select>
      </label>
      <label class="field">
        <span>Email (optional)</span>
        <input
          type="email"
          maxLength={320}
          placeholder="Anyone with the link"
          aria-describedby="invite-email-note"
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
      </label>
      <label class="field">
        <span>Link works for</span>
        <select value={String(days)} onChange={(e) => setDays(Number(e.currentTarget.value))}>
          {EXPIRY_DAYS.map((choice) => (
            <option key={choice} value={String(choice)}>
              {choice === 1 ? '1 day' : `${choice} days`}
            </option>
          ))}
        </select>
      </label>
      <p id="invite-email-note" class="muted small invite-note">
        With an email, only that person can join with the link. tasklane sends no email: you send the link.
      </p>
      <ErrorNote message={error} />
      <div class="form-actions">
        <button type="submit" class="button-primary" disabled={busy}>
          Create invitation link
        </button>
      </div>
    </form>
  );
}
