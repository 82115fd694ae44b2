/**
 * Settings → Team, for owners and admins: the team's name (PATCH /v1/team). Everyone's header
 * shows a new name at once (`team.updated`, app/live-session.ts); this form follows it too.
 */
import { useEffect, useState } from 'preact/hooks';
import { messageOf } from '../../api/client';
import { fetchSession } from '../../api/session';
import { renameTeam } from '../../api/team';
import { useSession } from '../../app/session-context';
import { ErrorNote } from '../../ui/ErrorNote';
import { useNotify } from '../../ui/notices';

/** As a list's name: 1 to 200 characters. */
const MAX_TEAM_NAME = 200;

export function TeamSection() {
  const { session, replaceSession } = useSession();
  // The session's role follows changes live (app/live-session.ts).
  const manager = session.role === 'owner' || session.role === 'admin';
  const notify = useNotify();
  const [name, setName] = useState(session.team.name);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // A rename made elsewhere shows here too (the field keeps what is being typed otherwise).
  useEffect(() => setName(session.team.name), [session.team.name]);
  if (!manager) return null;

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    setBusy(true);
    try {
      const team = await renameTeam(name.trim());
      notify(`The team is now called ${team.name}.`);
      replaceSession(await fetchSession());
    } catch (failure) {
      setError(messageOf(failure));
      // A 403: the caller's role changed meanwhile; the session, read again, hides the section.
      fetchSession().then(replaceSession, () => {});
    }
    setBusy(false);
  };

  const trimmed = name.trim();
  return (
    <form class="card" id="team" aria-labelledby="team-heading" onSubmit={submit}>
      <h2 id="team-heading">Team</h2>
      <label class="field">
        <span>Team name</span>
        <input value={name} maxLength={MAX_TEAM_NAME} required onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <p class="muted small">Everyone in the team sees the new name at once.</p>
      <ErrorNote message={error} />
      <div class="form-actions">
        <button type="submit" class="button-primary" disabled={busy || !trimmed || trimmed === session.team.name}>
          Rename team
        </button>
      </div>
    </form>
  );
}
