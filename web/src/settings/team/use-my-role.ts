/**
 * The caller's role in the team, for Settings → Members and Workflow statuses. The members list
 * is read again after every change there, on every `member.*` event and when the page is shown
 * again, so it knows the role better than the session (read at sign-in). A `403` may still come
 * first (the event is on its way), so `afterRefusal` reads both again and the controls go at once.
 */
import type { Role } from '@contract/enums';
import { ApiError } from '../../api/client';
import { fetchSession } from '../../api/session';
import { useSession } from '../../app/session-context';
import { useTeamData } from '../../app/team-data';
import { managesTeam } from './member-rules';

export interface MyRole {
  myRole: Role;
  /** An owner or an admin: may manage members, invitations and statuses. */
  manager: boolean;
  /** After a failed change: on a 403, reads the members and the session again. */
  afterRefusal: (failure: unknown) => void;
}

export function useMyRole(): MyRole {
  const { session, replaceSession } = useSession();
  const { members, reloadMembers } = useTeamData();
  const myRole = members.find((member) => member.id === session.user.id)?.role ?? session.role;
  return {
    myRole,
    manager: managesTeam(myRole),
    afterRefusal: (failure) => {
      if (!(failure instanceof ApiError && failure.status === 403)) return;
      reloadMembers();
      fetchSession().then(replaceSession, () => {});
    },
  };
}
