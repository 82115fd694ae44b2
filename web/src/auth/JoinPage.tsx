/**
 * The invitation link's page, `/join#<token>` (the token stays in the fragment, which browsers
 * never send to a server or in a Referer). It shows whose team it is, the role and who invited;
 * a newcomer makes an account (name, email, password), someone with an account signs in with it,
 * and either lands in the team, signed in. A link that was used, has expired or was revoked gets
 * a page that says so, never an error dump.
 *
 * The server never says that an email is taken (SECURITY.md): a newcomer's form whose email has
 * an account is that account's sign-in, so its own password joins, and any other is the
 * sign-in's 401. The page then turns the form into the sign-in, saying the email may have an
 * account already.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { InvitationPreview, SessionInfo } from '@contract';
import { ApiError, messageOf } from '../api/client';
import { acceptInvitation, previewInvitation } from '../api/invitations';
import { switchTeam } from '../api/session';
import { formatTimestamp } from '../lib/dates';
import { useAsync } from '../lib/use-async';
import { tokenFromLocation } from '../lib/fragment-token';
import { useDocumentTitle } from '../lib/use-document-title';
import { roleWithArticle } from '../settings/team/member-rules';
import { ErrorNote } from '../ui/ErrorNote';
import { focusOnMount } from '../ui/focus';
import { NewPasswordFields, newPasswordProblem, PASSWORD_MAX } from './NewPasswordFields';

interface Props {
  /** Who is signed in in this browser already, if anyone. */
  signedInAs: SessionInfo | null;
  /** Signed in to the team: after joining it, or (already a member) after opening it. */
  onJoined: (session: SessionInfo) => void;
}

/** The invitation, or the server's reason for refusing the token. */
type Preview = { invitation: InvitationPreview } | { refused: string };

/** Said after a newcomer's form is refused as the sign-in of the account its email has (401). */
const MAYBE_HAS_ACCOUNT = 'If you already have a tasklane account with this email, enter its password to join.';

/** The token cannot be used: malformed (400), unknown (404), or used, revoked or expired (410). */
const isRefusal = (failure: unknown): failure is ApiError =>
  failure instanceof ApiError && [400, 404, 410].includes(failure.status);

const loadPreview = (token: string): Promise<Preview> =>
  previewInvitation(token).then(
    (invitation) => ({ invitation }),
    (failure: unknown) => {
      if (isRefusal(failure)) return { refused: failure.message };
      throw failure; // offline, too many attempts, or a 5xx: worth trying again
    },
  );

export function JoinPage({ signedInAs, onJoined }: Props) {
  const [token, setToken] = useState(tokenFromLocation);
  // Another link pasted into this tab only changes the fragment: the page stays, the token changes.
  useEffect(() => {
    const onHashChange = () => setToken(tokenFromLocation());
    window.addEventListener('hashchange', onHashChange);
    return () => window.removeEventListener('hashchange', onHashChange);
  }, []);
  const preview = useAsync(() => (token ? loadPreview(token) : Promise.resolve(null)), [token]);
  const invitation = preview.data && 'invitation' in preview.data ? preview.data.invitation : null;
  // Used or revoked while the form was open: the same page as for a link refused at once.
  const onRefused = (message: string) => preview.mutate(() => ({ refused: message }));
  useDocumentTitle(invitation ? `Join ${invitation.teamName}` : 'Invitation');

  let body;
  if (!token) {
    body = (
      <Unusable title="This invitation link is incomplete">
        The part after <code>#</code> is missing. Open the whole link you were sent, or ask for a new one.
      </Unusable>
    );
  } else if (preview.data && 'refused' in preview.data) {
    body = (
      <Unusable title="This invitation can’t be used">
        {preview.data.refused} Ask whoever invited you for a new link. If you have joined already, sign in.
      </Unusable>
    );
  } else if (invitation) {
    body = (
      <JoinForm
        key={token}
        token={token}
        invitation={invitation}
        signedInAs={signedInAs}
        onJoined={onJoined}
        onRefused={onRefused}
      />
    );
  } else if (preview.error !== null) {
    body = (
      <>
        <h1>Invitation</h1>
        <ErrorNote message={`Could not open the invitation: ${preview.error}`} />
        <button type="button" class="button-secondary" onClick={preview.reload}>
          Try again
        </button>
      </>
    );
  } else {
    body = (
      <p class="muted" aria-busy="true">
        Loading the invitation…
      </p>
    );
  }

  return (
    <main class="auth-page" id="main">
      <div class="auth-card join-card">
        <p class="brand brand-large" aria-hidden="true">
          <span class="brand-mark">✓</span> tasklane
        </p>
        {body}
      </div>
    </main>
  );
}

function Unusable({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <>
      <h1>{title}</h1>
      <p>{children}</p>
      <p>
        <a href="/">Go to sign in</a>
      </p>
    </>
  );
}

interface FormProps {
  token: string;
  invitation: InvitationPreview;
  signedInAs: SessionInfo | null;
  onJoined: (session: SessionInfo) => void;
  onRefused: (message: string) => void;
}

function JoinForm({ token, invitation, signedInAs, onJoined, onRefused }: FormProps) {
  const fixedEmail = invitation.email;
  // Someone signed in here most likely has an account already.
  const [hasAccount, setHasAccount] = useState(signedInAs !== null);
  // The sign-in's first field: the password when the email is known already (set on switching).
  const [passwordFirst, setPasswordFirst] = useState(fixedEmail !== null || signedInAs !== null);
  const [name, setName] = useState('');
  const [email, setEmail] = useState(fixedEmail ?? signedInAs?.user.email ?? '');
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!hasAccount) {
      const problem = newPasswordProblem(password, repeat);
      if (problem) return setError(problem);
    }
    setError(null);
    setBusy(true);
    try {
      const emailField = fixedEmail ? {} : { email: email.trim() };
      onJoined(
        await acceptInvitation(
          hasAccount ? { token, ...emailField, password } : { token, name: name.trim(), ...emailField, password },
        ),
      );
    } catch (failure) {
      setBusy(false);
      if (failure instanceof ApiError && [404, 410].includes(failure.status)) return onRefused(failure.message);
      // The server took the newcomer's form as the sign-in of an account with this email, and
      // the password is not its own: ask for that account's password.
      if (failure instanceof ApiError && failure.status === 401 && !hasAccount) {
        setError(`${failure.message} ${MAYBE_HAS_ACCOUNT}`);
        setPasswordFirst(true);
        setHasAccount(true);
        setPassword('');
        setRepeat('');
        return;
      }
      setError(messageOf(failure));
    }
  };

  // The preview names the team but not its id: a team of the same name is taken for it (the
  // server has the last word: joining it again is a 409 saying so).
  const alreadyIn = signedInAs?.teams.find((team) => team.name === invitation.teamName);
  const openTeam = async (teamId: string) => {
    try {
      onJoined(teamId === signedInAs?.team.id ? signedInAs : await switchTeam(teamId));
    } catch (failure) {
      setError(messageOf(failure));
    }
  };

  const switchMode = () => {
    setPasswordFirst(fixedEmail !== null || email.trim() !== '');
    setHasAccount(!hasAccount);
    setError(null);
    setPassword('');
    setRepeat('');
  };

  return (
    <>
      <h1>Join {invitation.teamName}</h1>
      <p>
        <strong>{invitation.invitedBy.name}</strong> invited you to join <strong>{invitation.teamName}</strong> as{' '}
        {roleWithArticle(invitation.role)}.
      </p>
      <p class="muted small">
        {fixedEmail ? (
          <>
            This invitation is for <strong>{fixedEmail}</strong>.{' '}
          </>
        ) : null}
        The link works until {formatTimestamp(invitation.expiresAt)}.
      </p>
      {signedInAs && alreadyIn && (
        <div class="info-note" role="status">
          <p>
            You are signed in as {signedInAs.user.email}, already a member of {alreadyIn.name}.{' '}
            <button type="button" class="button-link" onClick={() => void openTeam(alreadyIn.id)}>
              Open {alreadyIn.name}
            </button>
          </p>
          <p class="small">To join with another account instead, use the form below.</p>
        </div>
      )}
      {signedInAs && !alreadyIn && (
        <p class="info-note">
          You are signed in as {signedInAs.user.email}. Joining here signs this browser in as the account that joins.
        </p>
      )}
      <form class="join-form" aria-label={hasAccount ? 'Sign in to join' : 'Create your account'} onSubmit={submit}>
        <h2>{hasAccount ? 'Sign in to join' : 'Create your account'}</h2>
        {!hasAccount && (
          <label class="field">
            <span>Your name</span>
            <input
              name="name"
              autoComplete="name"
              required
              maxLength={200}
              ref={focusOnMount}
              value={name}
              onInput={(e) => setName(e.currentTarget.value)}
            />
          </label>
        )}
        <label class="field">
          <span>Email</span>
          <input
            type="email"
            name="email"
            autoComplete={hasAccount ? 'username' : 'email'}
            required
            maxLength={320}
            readOnly={fixedEmail !== null}
            aria-describedby={fixedEmail ? 'join-email-note' : undefined}
            ref={hasAccount && !passwordFirst ? focusOnMount : undefined}
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        </label>
        {fixedEmail && (
          <p id="join-email-note" class="muted small">
            The invitation names this email, so it cannot be changed here.
          </p>
        )}
        {/* Keyed: the two password inputs are never one DOM element (taking back a maxlength leaves 0). */}
        {hasAccount ? (
          <label class="field" key="current-password">
            <span>Password</span>
            <input
              type="password"
              name="password"
              autoComplete="current-password"
              required
              maxLength={PASSWORD_MAX}
              ref={passwordFirst ? focusOnMount : undefined}
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
          </label>
        ) : (
          <NewPasswordFields
            key="new-password"
            label="Password"
            password={password}
            repeat={repeat}
            onPassword={setPassword}
            onRepeat={setRepeat}
          />
        )}
        <ErrorNote message={error} />
        <button
          type="submit"
          class="button-primary"
          disabled={busy || !email.trim() || !password || (!hasAccount && (!name.trim() || !repeat))}
        >
          {busy ? 'Joining…' : hasAccount ? `Sign in and join ${invitation.teamName}` : `Join ${invitation.teamName}`}
        </button>
      </form>
      <p class="small">
        {hasAccount ? 'New to tasklane? ' : 'Already have a tasklane account? '}
        <button type="button" class="button-link" onClick={switchMode}>
          {hasAccount ? 'Create an account instead' : 'Sign in with it instead'}
        </button>
      </p>
    </>
  );
}
