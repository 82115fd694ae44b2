/**
 * The team's own events (contract/enums.ts, TEAM_EVENT_TYPES), written through the outbox in the
 * change's transaction as its last statements, as statuses.service.ts writes `taskStatus.*`: the
 * audience is read once (one query for every member, or for the owners and admins) and the
 * outbox stores it with the event, the mechanism every team-wide event shares.
 */
import { recordEvent, usersAudience } from '../changes/outbox.js';
import type { TeamEventType } from '../contract/enums.js';
import type { Db } from '../storage/schema.js';
import { managerIdsOf, memberIdsOf } from './teams.repository.js';

type MemberEvent = 'member.joined' | 'member.updated' | 'member.removed';
type InvitationEvent = Extract<TeamEventType, `invitation.${string}`>;

/** `team.updated` `{"teamId"}` to every member of the team. */
export async function recordTeamUpdated(trx: Db, teamId: string): Promise<void> {
  await recordEvent(trx, {
    teamId,
    type: 'team.updated',
    data: { teamId },
    audience: usersAudience(await memberIdsOf(trx, teamId)),
  });
}

/** `member.*` `{"userId"}` to every member of the team (as it is now: a removed member is none). */
export async function recordMemberEvent(trx: Db, teamId: string, type: MemberEvent, userId: string): Promise<void> {
  await recordEvent(trx, { teamId, type, data: { userId }, audience: usersAudience(await memberIdsOf(trx, teamId)) });
}

/** `invitation.*` `{"invitationId"}`, one per invitation, to the team's owners and admins only. */
export async function recordInvitationEvents(
  trx: Db,
  teamId: string,
  type: InvitationEvent,
  invitationIds: readonly string[],
): Promise<void> {
  if (invitationIds.length === 0) return;
  const audience = usersAudience(await managerIdsOf(trx, teamId));
  for (const invitationId of invitationIds) {
    await recordEvent(trx, { teamId, type, data: { invitationId }, audience });
  }
}
