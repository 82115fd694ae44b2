/**
 * Settings → Members (a chunk of its own, loaded when Settings opens): who is in the team, with
 * their roles. Owners and admins change roles, remove people (after a confirmation), invite with
 * a link and revoke pending invitations, and add themselves to a list a removal left without
 * members (ListsWithoutMembers.tsx); everyone else sees the list. The page offers only what
 * the server allows (member-rules.ts), and shows the server's refusal when someone else changed
 * things meanwhile (use-my-role.ts: after a 403 the caller's own role is read again, and the
 * controls go at once).
 */
import { useEffect, useState } from 'preact/hooks';
import type { Member } from '@contract';
import type { Role } from '@contract/enums';
import { messageOf } from '../../api/client';
import { changeRole, removeMember } from '../../api/team';
import { useSession } from '../../app/session-context';
import { useTeamData } from '../../app/team-data';
import { ConfirmButton } from '../../ui/ConfirmButton';
import { ErrorNote } from '../../ui/ErrorNote';
import { useNotify } from '../../ui/notices';
import { Invitations } from './Invitations';
import { ListsWithoutMembers } from './ListsWithoutMembers';
import { MemberLists } from './MemberLists';
import { permissionsFor, roleName, roleWithArticle } from './member-rules';
import { useMyRole } from './use-my-role';
import { useWhenVisibleAgain } from './use-when-visible-again';

export function MembersSection() {
  const { session } = useSession();
  const { members, membersError, reloadMembers } = useTeamData();
  const { myRole, manager, afterRefusal } = useMyRole();
  const notify = useNotify();
  // Counts removals: each may leave a list without members, which that panel then reads again.
  const [removals, setRemovals] = useState(0);
  // Counts role changes and removals: each may revoke invitations, which that panel then reads again.
  const [memberChanges, setMemberChanges] = useState(0);
  useEffect(reloadMembers, []);
  // Joins, role changes and removals arrive live (`member.*`, app/team-data.tsx); look again when
  // the page is back too, for a name or email changed meanwhile (no event tells those).
  useWhenVisibleAgain(reloadMembers);

  /** Runs a change, says how it went, and reads the members again. */
  const act = async (what: string, action: () => Promise<unknown>, done: string) => {
    try {
      await action();
      notify(done);
    } catch (failure) {
      notify(`Could not ${what}: ${messageOf(failure)}`, 'error');
      afterRefusal(failure);
    }
    reloadMembers();
    setMemberChanges((n) => n + 1);
  };

  const setRole = (member: Member, role: Role) =>
    act(
      `change the role of ${member.name}`,
      () => changeRole(member.id, role),
      `${member.name} is now ${roleWithArticle(role)}.`,
    );
  const remove = async (member: Member) => {
    await act(`remove ${member.name}`, () => removeMember(member.id), `${member.name} was removed from the team.`);
    setRemovals((n) => n + 1);
  };

  return (
    <section class="card" id="members" aria-labelledby="members-heading">
      <h2 id="members-heading">Members of {session.team.name}</h2>
      {!manager && members.length > 0 && (
        <p class="muted">Only the team’s owners and admins can change roles and invite people.</p>
      )}
      <ErrorNote message={membersError} />
      {members.length === 0 && !membersError && <p class="muted">Loading the members…</p>}
      {members.length > 0 && (
        <div class="table-scroll">
          <table class="table table-stacks">
            <caption class="sr-only">Team members and their roles</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                {manager && (
                  <th scope="col">
                    <span class="sr-only">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {members.map((member) => {
                const allowed = permissionsFor({ id: session.user.id, role: myRole }, member, members);
                return (
                  <tr key={member.id}>
                    <td class="cell-name">
                      {member.name}
                      {member.id === session.user.id && <span class="muted"> (you)</span>}
                    </td>
                    <td data-label="Email">{member.email}</td>
                    <td data-label="Role">
                      {allowed.roles.length > 0 ? (
                        <select
                          aria-label={`Role of ${member.name}`}
                          value={member.role}
                          onChange={(e) => void setRole(member, e.currentTarget.value as Role)}
                        >
                          {allowed.roles.map((role) => (
                            <option key={role} value={role}>
                              {roleName(role)}
                            </option>
                          ))}
                        </select>
                      ) : (
                        <span class="role-badge">{member.role}</span>
                      )}
                      {allowed.fixedBecause && <span class="muted small role-note"> {allowed.fixedBecause}</span>}
                    </td>
                    {manager && (
                      <td class="cell-actions">
                        {member.id !== session.user.id && <MemberLists member={member} />}
                        {allowed.canRemove && (
                          <ConfirmButton
                            label="Remove"
                            confirmLabel="Remove from the team"
                            ariaLabel={`Remove ${member.name}`}
                            onConfirm={() => void remove(member)}
                          />
                        )}
                      </td>
                    )}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {manager && <ListsWithoutMembers removals={removals} onRefused={afterRefusal} />}
      {manager && <Invitations myRole={myRole} memberChanges={memberChanges} onRefused={afterRefusal} />}
    </section>
  );
}
