/** For someone in several teams: which team to work in (switchable later from the top bar). */
import { useState } from 'preact/hooks';
import { messageOf } from '../api/client';
import type { SessionInfo } from '@contract';
import { ErrorNote } from '../ui/ErrorNote';

interface Props {
  session: SessionInfo;
  onPick: (teamId: string) => Promise<void>;
  onSignOut: () => void;
}

export function TeamPicker({ session, onPick, onSignOut }: Props) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const pick = async (teamId: string) => {
    setBusy(true);
    setError(null);
    try {
      await onPick(teamId);
    } catch (failure) {
      setError(messageOf(failure));
      setBusy(false);
    }
  };
  return (
    <main class="auth-page" id="main">
      <div class="auth-card">
        <h1>Choose a team</h1>
        <p class="muted">Signed in as {session.user.email}. You are in more than one team.</p>
        <ul class="team-choices">
          {session.teams.map((team) => (
            <li key={team.id}>
              <button type="button" class="team-choice" disabled={busy} onClick={() => pick(team.id)}>
                <strong>{team.name}</strong>
                <span class="muted">{team.role}</span>
              </button>
            </li>
          ))}
        </ul>
        <ErrorNote message={error} />
        <button type="button" class="button-quiet" onClick={onSignOut}>
          Sign out
        </button>
      </div>
    </main>
  );
}
