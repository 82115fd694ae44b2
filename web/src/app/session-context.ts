/** The signed-in session, for every view inside the workspace. */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { SessionInfo } from '@contract';

export interface SessionApi {
  session: SessionInfo;
  /** After a change the server answers with new session info (profile, team). */
  replaceSession: (info: SessionInfo) => void;
  switchTeam: (teamId: string) => Promise<void>;
  signOut: () => Promise<void>;
}

export const SessionContext = createContext<SessionApi | null>(null);

export function useSession(): SessionApi {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside a signed-in workspace');
  return value;
}
