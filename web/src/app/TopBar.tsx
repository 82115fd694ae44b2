/**
 * Brand, the team (its name, or a switcher), the search box, connection state, who is signed
 * in, settings and sign-out. Typing in the search box opens the command palette with the text.
 */
import { useState } from 'preact/hooks';
import { messageOf } from '../api/client';
import { Bell } from '../inbox/Bell';
import { Link } from '../ui/Link';
import { useNotify } from '../ui/notices';
import { useConnectionState } from './live';
import { useLiveSession } from './live-session';
import { useSession } from './session-context';

interface Props {
  drawerOpen: boolean;
  onToggleDrawer: () => void;
  onShowShortcuts: () => void;
  onSearch: (text: string) => void;
}

const CONNECTION_TEXT = { live: 'Live', connecting: 'Connecting…', offline: 'Offline' } as const;

export function TopBar({ drawerOpen, onToggleDrawer, onShowShortcuts, onSearch }: Props) {
  const { session, switchTeam, signOut } = useSession();
  const connection = useConnectionState();
  // A rename shows here at once, in every open app of the team.
  useLiveSession();
  const notify = useNotify();
  const [switching, setSwitching] = useState(false);

  const onTeamChange = async (teamId: string) => {
    setSwitching(true);
    try {
      await switchTeam(teamId);
    } catch (error) {
      notify(`Could not switch team: ${messageOf(error)}`, 'error');
      setSwitching(false);
    }
  };

  return (
    <header class="topbar">
      <button
        type="button"
        class="button-quiet drawer-toggle"
        aria-label="Lists and navigation"
        aria-expanded={drawerOpen}
        aria-controls="sidebar"
        onClick={onToggleDrawer}
      >
        <span aria-hidden="true">☰</span>
      </button>
      <Link href="/" class="brand">
        <span class="brand-mark" aria-hidden="true">
          ✓
        </span>
        <span class="brand-name">tasklane</span>
      </Link>
      {session.teams.length > 1 ? (
        <span class="team-switch">
          <select
            aria-label="Team"
            value={session.team.id}
            disabled={switching}
            onChange={(event) => onTeamChange(event.currentTarget.value)}
          >
            {session.teams.map((team) => (
              <option key={team.id} value={team.id}>
                {team.name}
              </option>
            ))}
          </select>
        </span>
      ) : (
        <span class="team-name">{session.team.name}</span>
      )}
      <span class="spacer" />
      <input
        type="search"
        class="topbar-search"
        placeholder="Search…"
        aria-label="Search tasks, lists and settings (Ctrl+K)"
        aria-keyshortcuts="Control+K Meta+K"
        onInput={(event) => {
          onSearch(event.currentTarget.value);
          event.currentTarget.value = '';
        }}
        onKeyDown={(event) => event.key === 'Enter' && onSearch('')}
      />
      <span class={`connection connection-${connection}`} title="Updates from your team arrive live">
        <span class="connection-dot" aria-hidden="true" />
        {CONNECTION_TEXT[connection]}
      </span>
      {/* "Signed in as": a name such as the first start's "Owner" is not taken for a role. */}
      <span class="user-name">
        Signed in as <strong>{session.user.name}</strong>
      </span>
      <button
        type="button"
        class="button-quiet shortcuts-button"
        aria-label="Keyboard shortcuts"
        aria-keyshortcuts="?"
        title="Keyboard shortcuts (?)"
        onClick={onShowShortcuts}
      >
        <span aria-hidden="true">?</span>
      </button>
      <Bell />
      <Link href="/settings" class="button-quiet">
        Settings
      </Link>
      <button type="button" class="button-quiet" onClick={() => void signOut()}>
        Sign out
      </button>
    </header>
  );
}
