/**
 * Keeps the session (the header's team name, the caller's own role) as the team changes it live:
 * a rename (`team.updated`) or a change of the caller's own role (`member.updated` naming them)
 * reads the session again.
 */
import { fetchSession } from '../api/session';
import { useLiveEvent } from './live';
import { useSession } from './session-context';

export function useLiveSession(): void {
  const { session, replaceSession } = useSession();
  useLiveEvent((event) => {
    const mine = event.type === 'member.updated' && event.userId === session.user.id;
    if (event.type !== 'team.updated' && !mine) return;
    // A failure keeps the session shown; the next event or sign-in brings it up to date.
    fetchSession().then(replaceSession, () => {});
  });
}
