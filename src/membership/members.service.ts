/**
 * Who manages the team's members, and the two changes of a membership that can take an owner
 * away: a role change and a removal. The API (PATCH and DELETE /v1/members/{userId}, by owners
 * and admins) and the operator (`admin member add|remove`) go through the same code, so both
 * keep the rules:
 *
 * - the team keeps at least one owner: its last owner can be neither demoted nor removed, also
 *   when two changes race (the owners' memberships are locked first: teams.repository.ts,
 *   `lockOwners`);
 * - an admin can neither change nor remove an owner, nor make anyone an owner;
 * - a removal takes the member's list memberships and assignments in the team with it
 *   (teams.repository.ts, `deleteMember`), disables their webhooks there, deletes their private
 *   views and hands their shared ones to the team, and revokes the invitations they made; their keys and sessions for the team stop working on the next
 *   request (authentication reads the membership), and every process's event streams held with
 *   them end at once (changes/publisher.ts, `endedAccess`);
 * - a demotion revokes, with it, the invitations the member made that the new role could not
 *   make (`mayInviteAs`): a link gives no more than its sender may give now. Accepting one checks
 *   the sender again, under the lock both take on the sender's membership
 *   (invitations.service.ts, `claimAndJoin`).
 *
 * Each change tells the team in its transaction (team/team-events.ts): `member.joined`,
 * `member.updated` or `member.removed` to every member, and `invitation.revoked` for each link it
 * revoked to the owners and admins.
 */
import type { Caller } from '../caller.js';
import { endedAccess } from '../changes/publisher.js';
import type { Member } from '../contract/team.js';
import { ROLES, type Role } from '../contract/enums.js';
import { conflict, forbidden, notFound } from '../http/errors.js';
import { isUuid } from '../ids.js';
import { revokeInvitationsBy } from '../invitations/invitations.repository.js';
import { joinSharedLists } from '../lists/shared-lists.js';
import { afterCommit, type Store } from '../storage/database.js';
import type { Db } from '../storage/schema.js';
import { handOverViewsOfLeaver } from '../views/views.repository.js';
import { disableWebhooksOfLeaver } from '../webhooks/webhooks.repository.js';
import { mayInviteAs, requireManager } from '../team/roles.js';
import { recordInvitationEvents, recordMemberEvent } from '../team/team-events.js';
import * as teams from '../team/teams.repository.js';

/** Who makes a change: a member calling the API, or the operator (`tasklane admin`), who may do anything. */
type Actor = { caller: Caller } | { operator: true };

interface Target {
  member: teams.MemberRecord;
  /** The team's owners, their memberships locked until the transaction ends. */
  owners: Set<string>;
  /** The acting caller's role, read under that lock (undefined for the operator). */
  actorRole?: Role;
}

/**
 * The member to change, read after the owners are locked. A caller's role is the one read again in
 * this transaction, after the owners' lock (the route's `locksOwners`, auth/caller-check.ts), and
 * must still allow it.
 */
async function lockTarget(trx: Db, teamId: string, userId: string, actor: Actor, missing: string): Promise<Target> {
  const owners = await teams.lockOwners(trx, teamId);
  let actorRole: Role | undefined;
  if ('caller' in actor) {
    requireManager(actor.caller, 'members');
    actorRole = actor.caller.role!;
  }
  if (!isUuid(userId)) throw notFound(missing);
  // Waits for the member's own changes in flight: each holds its membership (auth/caller-check.ts).
  await teams.lockMember(trx, teamId, userId);
  const member = await teams.findMember(trx, teamId, userId);
  if (!member) throw notFound(missing);
  return { member, owners, actorRole };
}

/** The rules between the one acting and the member whose role becomes `role` (undefined: removed). */
function checkAllowed({ member, owners, actorRole }: Target, actor: Actor, role: Role | undefined): void {
  if ('caller' in actor && actorRole !== 'owner') {
    if (member.role === 'owner') throw forbidden('Only an owner can change or remove an owner.');
    if (role === 'owner') throw forbidden('Only an owner can make someone an owner.');
  }
  const staysOwner = role === 'owner';
  if (member.role === 'owner' && !staysOwner && ![...owners].some((id) => id !== member.id)) {
    const who = 'caller' in actor && actor.caller.userId === member.id ? 'You are' : `${member.name} is`;
    throw conflict(`${who} the team's last owner: make another member an owner first.`);
  }
}

const memberNotFound = (userId: string) => `User ${userId} is not a member of this team.`;

/** PATCH /v1/members/{userId}: the member's new role; answers the member as GET /v1/users shows them. */
export async function changeRole(store: Store, caller: Caller, userId: string, role: Role): Promise<Member> {
  requireManager(caller, 'members');
  const actor = { caller };
  return store.transaction(async (trx) => {
    const target = await lockTarget(trx, caller.teamId, userId, actor, memberNotFound(userId));
    checkAllowed(target, actor, role);
    if (target.member.role !== role) {
      await teams.setRole(trx, caller.teamId, userId, role);
      const revoked = await revokeWhatRoleCannotGive(trx, caller.teamId, userId, role);
      await recordMemberEvent(trx, caller.teamId, 'member.updated', userId);
      await recordInvitationEvents(trx, caller.teamId, 'invitation.revoked', revoked);
    }
    return { ...target.member, role };
  });
}

/** DELETE /v1/members/{userId}: removes the member, as `admin member remove` does. */
export async function removeMemberAs(store: Store, caller: Caller, userId: string): Promise<void> {
  requireManager(caller, 'members');
  await removeMember(store, caller.teamId, userId, { caller }, memberNotFound(userId));
}

/**
 * The operator's `admin member add`: adds the user with the role, or changes a member's role
 * (never the last owner's away from owner).
 */
export async function setMembership(store: Store, teamId: string, userId: string, role: Role): Promise<void> {
  const operator: Actor = { operator: true };
  await store.transaction(async (trx) => {
    const owners = await teams.lockOwners(trx, teamId);
    // As an API role change does (`lockTarget`): the member's changes and accepts of the links
    // they made, in flight, commit first.
    await teams.lockMember(trx, teamId, userId);
    const member = await teams.findMember(trx, teamId, userId);
    if (member) checkAllowed({ member, owners }, operator, role);
    if (member?.role === role) return;
    await teams.upsertMember(trx, teamId, userId, role);
    const revoked = member ? await revokeWhatRoleCannotGive(trx, teamId, userId, role) : [];
    // A newcomer joins the lists shared with the team, as one who accepts an invitation does.
    if (!member) await joinSharedLists(trx, teamId, userId);
    await recordMemberEvent(trx, teamId, member ? 'member.updated' : 'member.joined', userId);
    await recordInvitationEvents(trx, teamId, 'invitation.revoked', revoked);
  });
}

/** In a role change's transaction: revokes the member's pending invitations that `role` could not make; their ids. */
async function revokeWhatRoleCannotGive(trx: Db, teamId: string, userId: string, role: Role): Promise<string[]> {
  const beyond = ROLES.filter((invited) => !mayInviteAs(role, invited));
  return revokeInvitationsBy(trx, teamId, userId, new Date().toISOString(), beyond);
}

/** Removes a member and what gave them access (above); `missing` is the 404's message. */
export async function removeMember(
  store: Store,
  teamId: string,
  userId: string,
  actor: Actor = { operator: true },
  missing = `user ${userId} is not a member of team ${teamId}`,
): Promise<void> {
  await store.transaction(async (trx) => {
    const target = await lockTarget(trx, teamId, userId, actor, missing);
    checkAllowed(target, actor, undefined);
    await teams.deleteMember(trx, teamId, userId, 'caller' in actor ? actor.caller.userId : null);
    const now = new Date().toISOString();
    await disableWebhooksOfLeaver(trx, teamId, userId, now);
    await handOverViewsOfLeaver(trx, teamId, userId);
    const revoked = await revokeInvitationsBy(trx, teamId, userId, now);
    await recordMemberEvent(trx, teamId, 'member.removed', userId);
    await recordInvitationEvents(trx, teamId, 'invitation.revoked', revoked);
    afterCommit(trx, () => endedAccess.publish({ teamId }));
  });
}
