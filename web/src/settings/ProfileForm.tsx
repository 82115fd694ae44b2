/**
 * The display name teammates see, and the email that is the person's sign-in: owners and admins
 * change their own, confirmed with their password (POST /auth/email); a plain member is told who
 * can (the server's operator).
 */
import { useState } from 'preact/hooks';
import { messageOf } from '../api/client';
import { changeEmail, updateProfile } from '../api/session';
import { useSession } from '../app/session-context';
import { useTeamData } from '../app/team-data';
import { ErrorNote } from '../ui/ErrorNote';
import { useNotify } from '../ui/notices';

export function ProfileForm() {
  const { session, replaceSession } = useSession();
  const { reloadMembers } = useTeamData();
  // The session's role follows changes live (app/live-session.ts).
  const manager = session.role === 'owner' || session.role === 'admin';
  const notify = useNotify();
  const [name, setName] = useState(session.user.name);
  const [error, setError] = useState<string | null>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      replaceSession(await updateProfile(name.trim()));
      reloadMembers();
      notify('Your name has been saved.');
    } catch (failure) {
      setError(messageOf(failure));
    }
  };

  return (
    <section class="card" aria-labelledby="profile-heading">
      <h2 id="profile-heading">Profile</h2>
      <form class="card-form" aria-label="Your name" onSubmit={submit}>
        <label class="field">
          <span>Name</span>
          <input value={name} maxLength={200} required onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <ErrorNote message={error} />
        <div class="form-actions">
          <button type="submit" class="button-primary" disabled={!name.trim() || name.trim() === session.user.name}>
            Save name
          </button>
        </div>
      </form>
      {manager ? (
        <EmailForm />
      ) : (
        <>
          <label class="field">
            <span>Email</span>
            <input value={session.user.email} readOnly aria-describedby="email-note" />
          </label>
          <p id="email-note" class="muted small">
            Your email is your sign-in; the server’s operator can change it.
          </p>
        </>
      )}
    </section>
  );
}

/** An owner's or admin's own email, changed once their password confirms it is them. */
function EmailForm() {
  const { session, replaceSession } = useSession();
  const { reloadMembers } = useTeamData();
  const notify = useNotify();
  const [email, setEmail] = useState(session.user.email);
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const changed = email.trim().toLowerCase() !== session.user.email;

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    setBusy(true);
    try {
      const info = await changeEmail(email.trim(), password);
      replaceSession(info);
      setEmail(info.user.email);
      setPassword('');
      reloadMembers();
      notify(`Your email is now ${info.user.email}: sign in with it from now on.`);
    } catch (failure) {
      setError(messageOf(failure));
    }
    setBusy(false);
  };

  return (
    <form class="card-form" aria-label="Your email" onSubmit={submit}>
      <label class="field">
        <span>Email</span>
        <input
          type="email"
          autoComplete="email"
          maxLength={320}
          required
          aria-describedby="email-note"
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
      </label>
      <p id="email-note" class="muted small">
        Your email is your sign-in. Confirm a new one with your password.
      </p>
      {changed && (
        <label class="field">
          <span>Current password</span>
          <input
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
      )}
      <ErrorNote message={error} />
      <div class="form-actions">
        <button type="submit" class="button-primary" disabled={busy || !changed || !password}>
          Change email
        </button>
      </div>
    </form>
  );
}
