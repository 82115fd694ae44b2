/**
 * What the server allows to whom among a team's members, so the page offers only what will
 * work (the server still decides, and its refusals are shown): owners and admins manage the
 * team; only an owner changes or removes an owner, or makes someone one; the last owner stays an
 * owner and stays in the team.
 */
import { ROLES, type Role } from '@contract/enums';

export const managesTeam = (role: Role | undefined): boolean => role === 'owner' || role === 'admin';

const ROLE_NAMES: Record<Role, string> = { owner: 'Owner', admin: 'Admin', member: 'Member' };
export const roleName = (role: Role): string => ROLE_NAMES[role];
/** "an owner", "an admin", "a member". */
export const roleWithArticle = (role: Role): string => `${role === 'member' ? 'a' : 'an'} ${role}`;

/** What each role may do, in a few words (the invite form's role picker). */
export const ROLE_HINTS: Record<Role, string> = {
  owner: 'everything, owners included',
  admin: 'members, invitations and workflow statuses',
  member: 'lists and tasks',
};

interface MemberLike {
  id: string;
  role: Role;
}

export interface MemberPermissions {
  /** The roles the acting person may pick for this member (its current one among them); [] when fixed. */
  roles: Role[];
  canRemove: boolean;
  /** Why the member cannot be changed, when the actor manages the team but not this member. */
  fixedBecause: string | null;
}

/**
 * What `actor` (their role, their id) may do to `member`, given every member (for the owners
 * left). Removing oneself is left to someone else.
 */
export function permissionsFor(
  actor: { id: string; role: Role | undefined },
  member: MemberLike,
  members: readonly MemberLike[],
): MemberPermissions {
  const none = (fixedBecause: string | null): MemberPermissions => ({ roles: [], canRemove: false, fixedBecause });
  if (!managesTeam(actor.role)) return none(null);
  if (member.role === 'owner' && actor.role !== 'owner') return none('Only an owner can change an owner.');
  const lastOwner = member.role === 'owner' && members.filter((m) => m.role === 'owner').length <= 1;
  if (lastOwner) return none('The last owner: make another member an owner first.');
  return {
    roles: rolesGivenBy(actor.role),
    canRemove: member.id !== actor.id,
    fixedBecause: null,
  };
}

/** The roles `actorRole` may give: to people invited, or to members whose role it may change. */
export const rolesGivenBy = (actorRole: Role | undefined): Role[] =>
  !managesTeam(actorRole) ? [] : ROLES.filter((role) => role !== 'owner' || actorRole === 'owner');
