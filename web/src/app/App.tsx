/**
 * The session gate: checks for a session, shows sign-in (and the team choice for people in
 * several teams), then the workspace of the chosen team, unless the first start's team waits for
 * its owner's set-up (`setupRequired`), which comes first. A 401 from any request brings the
 * sign-in page back. An invitation link (`/join`) is answered before the gate, signed in or not,
 * and so is a mail's unsubscribe link (`/unsubscribe`), whose token is its only credential. An MCP
 * client's authorization request (`/oauth/authorize`) is answered after it: sign in first, then consent.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { setCsrfToken, whenSessionEnds } from '../api/client';
import * as sessions from '../api/session';
import type { SessionInfo } from '@contract';
import { SetupPage } from '../auth/SetupPage';
import { SignIn } from '../auth/SignIn';
import { lazy, useLazy } from '../lib/lazy';
import { navigate, useLocation } from '../lib/router';
import { mayHaveSession, rememberSession } from '../lib/session-hint';
import { TeamPicker } from '../auth/TeamPicker';
import { clearAllDrafts } from '../timeline/drafts';
import { NoticeProvider } from '../ui/notices';
import { SessionContext, type SessionApi } from './session-context';
import { Workspace } from './Workspace';

type Phase =
  | { kind: 'checking' }
  | { kind: 'signed-out'; notice?: string }
  | { kind: 'choosing-team'; session: SessionInfo }
  | { kind: 'ready'; session: SessionInfo };

/** The invitation page is for newcomers: a chunk of its own, off everyone else's first load. */
const loadJoinPage = lazy(() => import('../auth/JoinPage').then((module) => module.JoinPage));
/** The OAuth consent page (issue 33), for people connecting an MCP client: a chunk of its own. */
const loadAuthorizePage = lazy(() => import('../auth/AuthorizePage').then((module) => module.AuthorizePage));
const loadUnsubscribePage = lazy(() => import('../auth/UnsubscribePage').then((module) => module.UnsubscribePage));

export function App() {
  const [phase, setPhase] = useState<Phase>({ kind: 'checking' });
  const { path } = useLocation();

  const enter = (session: SessionInfo, kind: 'ready' | 'choosing-team' = 'ready') => {
    rememberSession(true);
    setCsrfToken(session.csrfToken);
    setPhase({ kind, session });
  };

  useEffect(() => {
    whenSessionEnds(() => {
      rememberSession(false);
      setPhase((current) =>
        current.kind === 'ready'
          ? { kind: 'signed-out', notice: 'Your session has ended. Please sign in again.' }
          : current,
      );
    });
    // Signed out here: the sign-in page at once, without a request the server would refuse.
    if (!mayHaveSession()) return setPhase({ kind: 'signed-out' });
    sessions.fetchSession().then(
      (session) => enter(session),
      // A 401 has cleared the hint already (whenSessionEnds); another failure leaves it for next time.
      () => setPhase({ kind: 'signed-out' }),
    );
  }, []);

  const signOut = async () => {
    try {
      await sessions.signOut();
    } finally {
      setCsrfToken(null);
      rememberSession(false);
      clearAllDrafts();
      // The next person to sign in here starts afresh (an expired session keeps its page instead).
      navigate('/', { replace: true });
      setPhase({ kind: 'signed-out', notice: 'You have signed out.' });
    }
  };

  const session = phase.kind === 'ready' ? phase.session : null;
  const api = useMemo<SessionApi | null>(
    () =>
      session && {
        session,
        replaceSession: (info) => enter(info),
        switchTeam: async (teamId) => enter(await sessions.switchTeam(teamId)),
        signOut,
      },
    [session],
  );

  if (path === '/unsubscribe') return <Unsubscribe />;
  if (path === '/join' && phase.kind !== 'checking') {
    return (
      <Join
        signedInAs={phase.kind === 'signed-out' ? null : phase.session}
        onJoined={(info) => {
          // Straight into the team just joined (its session is already on it), at My tasks.
          navigate('/', { replace: true });
          enter(info);
        }}
      />
    );
  }

  switch (phase.kind) {
    case 'checking':
      return <p class="loading-page">Loading…</p>;
    case 'signed-out':
      return (
        <SignIn
          notice={phase.notice}
          onSignedIn={(info) => enter(info, info.teams.length > 1 ? 'choosing-team' : 'ready')}
        />
      );
    case 'choosing-team':
      return (
        <TeamPicker
          session={phase.session}
          onPick={async (teamId) => enter(await sessions.switchTeam(teamId))}
          onSignOut={signOut}
        />
      );
    case 'ready':
      if (phase.session.setupRequired) {
        return <SetupPage session={phase.session} onDone={(info) => enter(info)} onSignOut={() => void signOut()} />;
      }
      // An MCP client's authorization request (the server checked it first): consent, once signed in.
      if (path === '/oauth/authorize') return <Authorize teamName={phase.session.team.name} />;
      return (
        <SessionContext.Provider value={api}>
          <NoticeProvider>
            {/* Keyed by team: switching teams starts every view, and the event stream, afresh. */}
            <Workspace key={phase.session.team.id} />
          </NoticeProvider>
        </SessionContext.Provider>
      );
  }
}

function Join(props: { signedInAs: SessionInfo | null; onJoined: (session: SessionInfo) => void }) {
  const JoinPage = useLazy(loadJoinPage);
  if (JoinPage === 'failed') {
    return <p class="loading-page">The invitation page could not be loaded. Check your connection and reload.</p>;
  }
  return JoinPage ? <JoinPage {...props} /> : <p class="loading-page">Loading…</p>;
}

function Authorize(props: { teamName: string }) {
  const AuthorizePage = useLazy(loadAuthorizePage);
  if (AuthorizePage === 'failed') {
    return <p class="loading-page">This page could not be loaded. Check your connection and reload.</p>;
  }
  return AuthorizePage ? <AuthorizePage {...props} /> : <p class="loading-page">Loading…</p>;
}

function Unsubscribe() {
  const UnsubscribePage = useLazy(loadUnsubscribePage);
  if (UnsubscribePage === 'failed') {
    return <p class="loading-page">This page could not be loaded. Check your connection and reload.</p>;
  }
  return UnsubscribePage ? <UnsubscribePage /> : <p class="loading-page">Loading…</p>;
}
