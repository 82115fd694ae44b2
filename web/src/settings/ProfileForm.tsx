/** The display name teammates see. */
import { useState } from 'preact/hooks';
import { messageOf } from '../api/client';
import { updateProfile } from '../api/session';
import { useSession } from '../app/session-context';
import { useTeamData } from '../app/team-data';
import { ErrorNote } from '../ui/ErrorNote';
import { useNotify } from '../ui/notices';

export function ProfileForm() {
  const { session, replaceSession } = useSession();
  const { reloadMembers } = useTeamData();
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
    <form class="card" aria-labelledby="profile-heading" onSubmit={submit}>
      <h2 id="profile-heading">Profile</h2>
      <label class="field">
        <span>Name</span>
        <input value={name} maxLength={200} required onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <label class="field">
        <span>Email</span>
        <input value={session.user.email} readOnly aria-describedby="email-note" />
      </label>
      <p id="email-note" class="muted small">
        Your email is your sign-in; an administrator can change it.
      </p>
      <ErrorNote message={error} />
      <div class="form-actions">
        <button type="submit" class="button-primary" disabled={!name.trim() || name.trim() === session.user.name}>
          Save name
        </button>
      </div>
    </form>
  );
}
