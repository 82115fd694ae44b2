/**
 * The display name teammates see, and the email that is the person's sign-in: owners and admins
 * change their own, confirmed with their password (POST /auth/email); a plain member is told who
 * can (the server's operator). And the time zone due-date reminders keep to, saved as chosen.
 */
import { useMemo, useState } from 'preact/hooks';
import { messageOf } from '../api/client';
import { changeEmail, updateProfile } from '../api/session';
import { useSession } from '../app/session-context';
import { useTeamData } from '../app/team-data';
import { ErrorNote } from '../ui/ErrorNote';
import { useNotify } from '../ui/notices';
import type { Reminders } from './reminders';

export function ProfileForm({ reminders }: { reminders: Reminders }) {
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
      <TimeZoneField reminders={reminders} />
    </section>
  );
}

/**
 * The time zone, from the browser's list (and UTC, the default, and the saved one, should the
 * browser not list it). While it is still the default UTC, the device's own zone is a click away.
 */
function TimeZoneField({ reminders: { settings, save } }: { reminders: Reminders }) {
  const [error, setError] = useState<string | null>(null);
  const saved = settings.data?.timeZone;
  const zones = useMemo(
    () => [...new Set(['UTC', ...(saved ? [saved] : []), ...Intl.supportedValuesOf('timeZone')])].sort(),
    [saved],
  );
  const device = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const choose = (timeZone: string) => void save({ timeZone }, `Your time zone is now ${timeZone}.`, setError);
  return (
    <div class="card-form" aria-busy={settings.loading}>
      {saved ? (
        <label class="field">
          <span>Time zone</span>
          <select value={saved} aria-describedby="time-zone-note" onChange={(e) => choose(e.currentTarget.value)}>
            {zones.map((zone) => (
              <option key={zone}>{zone}</option>
            ))}
          </select>
        </label>
      ) : (
        settings.loading && <p class="muted">Loading your time zone…</p>
      )}
      <ErrorNote message={settings.error ?? error} />
      {saved === 'UTC' && device && device !== 'UTC' && (
        <div class="form-actions">
          <button type="button" class="button-quiet" onClick={() => choose(device)}>
            Use {device}
          </button>
        </div>
      )}
      <p id="time-zone-note" class="muted small">
        Due-date reminders come at the time you choose under Notifications, in this time zone.
      </p>
    </div>
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
