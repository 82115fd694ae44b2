/**
 * Invitations: a team's owners and admins (and the operator, `tasklane admin invitation …`)
 * invite someone with a link, `<base>/join#<token>`, shown once; its token is stored only as a
 * hash. The link's page reads the invitation and accepts it without a session:
 *
 * - a newcomer gives a name, an email (the invitation's, if it names one) and a password: a new
 *   user, who joins the team with the invitation's role and is signed in;
 * - someone with an account (a user may belong to several teams) gives its email and password,
 *   with or without a name: they join the team and are signed in to it.
 *
 * An invitation is used at most once, also under concurrent accepts (`claimInvitation`); a
 * used, revoked, expired or unknown token is refused, saying which. It gives no more than its
 * sender may give now: a demotion revokes the sender's links beyond the new role
 * (team/roles.ts, `mayInviteAs`; membership/members.service.ts), and an accept checks the sender's role again in its transaction,
 * after any demotion in flight (`claimAndJoin`), which also refuses the links demotions left
 * pending before that rule. Tokens and passwords spend the sign-in budgets (http/rate-limit.ts):
 * a token is counted against the address before it is looked up, a password against the address
 * and the account as at sign-in.
 */
import type { Caller } from '../caller.js';
import type { Role } from '../contract/enums.js';
import {
  DEFAULT_INVITATION_DAYS,
  MAX_EMAIL_LENGTH,
  type AcceptInvitationBody,
  type CreatedInvitation,
  type CreateInvitationBody,
  type Invitation,
  type InvitationPreview,
} from '../contract/invitations.js';
import type { SessionInfo } from '../contract/sessions.js';
import { conflict, forbidden, gone, invalidInput, notFound } from '../http/errors.js';
import type { PasswordAttempt } from '../http/rate-limit.js';
import { isUuid } from '../ids.js';
import { checkCredentials, openSession, type ReservePasswordAttempt } from '../sessions/sessions.service.js';
import { withPrologue, type Store } from '../storage/database.js';
import { isUniqueViolation } from '../storage/errors.js';
import type { Db } from '../storage/schema.js';
import { asManager, mayInviteAs, requireManager } from '../team/roles.js';
import { hashPassword } from '../team/passwords.js';
import { recordInvitationEvents, recordMemberEvent } from '../team/team-events.js';
import { findMembership, insertMember, keptRole, oldestOwner } from '../team/teams.repository.js';
import { findUserByEmail, insertUser, teamsOfUser, type UserRecord } from '../team/users.repository.js';
import { joinSharedLists } from '../lists/shared-lists.js';
import * as invitations from './invitations.repository.js';
import type { InvitationRecord } from './invitations.repository.js';

const DAY_MS = 86_400_000;
const MIN_PASSWORD_LENGTH = 8;
const MAX_PASSWORD_LENGTH = 200;

/** The link to an invitation: its token in the fragment, which browsers never send to a server nor in Referer. */
export const invitationLink = (base: string, token: string): string => `${base}/join#${token}`;

const present = (record: InvitationRecord): Invitation => ({
  id: record.id,
  role: record.role,
  email: record.email,
  invitedBy: record.invitedBy,
  createdAt: record.createdAt,
  expiresAt: record.expiresAt,
});

/** The email, trimmed and lower-cased, or 400. */
function emailOf(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (email.length > MAX_EMAIL_LENGTH || !/^[^\s@]+@[^\s@]+$/.test(email)) {
    throw invalidInput('email must be an email address.');
  }
  return email;
}

export interface NewInvitation {
  teamId: string;
  invitedBy: string;
  role: Role;
  email?: string | null;
  expiresInDays?: number;
}

/** Makes the invitation; `base` is where the link points (PUBLIC_URL, or the request's origin). */
export async function issueInvitation(store: Store, input: NewInvitation, base: string): Promise<CreatedInvitation> {
  const email = input.email == null ? null : emailOf(input.email);
  const days = input.expiresInDays ?? DEFAULT_INVITATION_DAYS;
  const expiresAt = new Date(Date.now() + days * DAY_MS).toISOString();
  return store.transaction(async (trx) => {
    if (email) {
      const user = await findUserByEmail(trx, email);
      if (user && (await findMembership(trx, input.teamId, user.id))) {
        throw conflict(`${email} is already a member of this team.`);
      }
    }
    const { id, token } = await invitations.insertInvitation(trx, {
      teamId: input.teamId,
      role: input.role,
      email,
      invitedBy: input.invitedBy,
      expiresAt,
    });
    const record = (await invitations.findInvitation(trx, id))!;
    await recordInvitationEvents(trx, input.teamId, 'invitation.created', [id]);
    return { ...present(record), link: invitationLink(base, token) };
  });
}

/** The operator's invitation (`admin invitation create`): from `invitedBy`, a member, or else the team's longest-standing owner. */
export async function issueOperatorInvitation(
  store: Store,
  input: Omit<NewInvitation, 'invitedBy'> & { invitedBy?: string },
  base: string,
): Promise<CreatedInvitation> {
  const invitedBy = input.invitedBy ?? (await oldestOwner(store.db, input.teamId));
  if (!invitedBy) throw invalidInput(`team ${input.teamId} has no owner: name who invites with --invited-by`);
  const role = isUuid(invitedBy) ? await findMembership(store.db, input.teamId, invitedBy) : undefined;
  if (!role) throw notFound(`user ${invitedBy} (--invited-by) is not a member of team ${input.teamId}`);
  // The link would be refused when accepted (`claimAndJoin`): say so now.
  if (!mayInviteAs(role, input.role)) {
    const who = role === 'admin' ? 'an admin' : 'a member';
    throw invalidInput(
      `user ${invitedBy} (--invited-by) is ${who} of team ${input.teamId}, who cannot invite someone as ${input.role}`,
    );
  }
  return issueInvitation(store, { ...input, invitedBy }, base);
}

/** POST /v1/invitations: owners and admins; only an owner may invite an owner. */
export async function createInvitation(
  store: Store,
  caller: Caller,
  body: CreateInvitationBody,
  base: string,
): Promise<CreatedInvitation> {
  // Checked on the role as read when the request arrived, then again as read in the change's
  // transaction (auth/caller-check.ts): a demotion in between is refused the same way.
  const mayInvite = () => {
    requireManager(caller, 'invitations');
    if (!mayInviteAs(caller.role, body.role)) throw forbidden('Only an owner can invite an owner.');
  };
  mayInvite();
  return issueInvitation(
    withPrologue(store, mayInvite),
    { ...body, teamId: caller.teamId, invitedBy: caller.userId },
    base,
  );
}

/** The team's pending invitations (those that can be accepted: `refusal`), newest first. */
export async function pendingInvitations(store: Store, teamId: string): Promise<Invitation[]> {
  const now = new Date().toISOString();
  const all = await invitations.pendingInvitations(store.db, teamId, now);
  return all.filter((record) => !refusal(record, now)).map(present);
}

/** GET /v1/invitations. */
export function invitationsOf(store: Store, caller: Caller): Promise<Invitation[]> {
  requireManager(caller, 'invitations');
  return pendingInvitations(store, caller.teamId);
}

/** An invitation by id (within the team, unless the operator asks), or 404. */
export async function findInvitation(db: Db, id: string, teamId?: string): Promise<InvitationRecord> {
  const record = isUuid(id) ? await invitations.findInvitation(db, id, teamId) : undefined;
  if (!record) throw notFound(`Invitation ${id} not found.`);
  return record;
}

/** Revokes it (again: nothing more happens); a used invitation cannot be, its member can be removed. */
export async function revokeInvitation(store: Store, id: string, teamId?: string): Promise<void> {
  await store.transaction(async (trx) => {
    const record = await findInvitation(trx, id, teamId);
    if (record.usedAt) throw conflict(`Invitation ${record.id} has already been used; remove the member instead.`);
    const revoked = await invitations.revokeInvitation(trx, record.teamId, record.id, new Date().toISOString());
    // Used at this very moment (the only other way the UPDATE finds nothing to do).
    if (!revoked && !record.revokedAt && (await findInvitation(trx, record.id)).usedAt) {
      throw conflict(`Invitation ${record.id} has already been used; remove the member instead.`);
    }
    if (revoked) await recordInvitationEvents(trx, record.teamId, 'invitation.revoked', [record.id]);
  });
}

/** DELETE /v1/invitations/{id}. */
export async function revokeInvitationAs(store: Store, caller: Caller, id: string): Promise<void> {
  requireManager(caller, 'invitations');
  await revokeInvitation(asManager(store, caller, 'invitations'), id, caller.teamId);
}

// ---------------------------------------------------------------------------------------------
// The link's page: no session, the token is the credential
// ---------------------------------------------------------------------------------------------

/** Counts an attempt with a token before it is looked up (http/rate-limit.ts, `reserveTokenAttempt`). */
export type ReserveTokenAttempt = () => Promise<PasswordAttempt>;

/** The refusal of an invitation whose sender, now a team `inviterRole` or no member, may no longer give its role. */
function beyondSender(record: InvitationRecord, inviterRole: Role | null | undefined) {
  if (mayInviteAs(inviterRole, record.role)) return undefined;
  return gone(`This invitation is no longer valid: its sender can no longer invite someone as ${record.role}.`);
}

/** Why an invitation can no longer be accepted at `now`, or undefined when it can. */
function refusal(record: InvitationRecord, now: string) {
  if (record.usedAt) return gone('This invitation has already been used.');
  if (record.revokedAt) return gone('This invitation was revoked.');
  if (record.expiresAt <= now) return gone('This invitation has expired.');
  return beyondSender(record, record.inviterRole);
}

/** The invitation the token opens, if it can still be accepted: 404 for an unknown token, 410 saying why for one that cannot. */
async function usableInvitation(store: Store, token: string, reserve: ReserveTokenAttempt): Promise<InvitationRecord> {
  const attempt = await reserve();
  const record = await invitations.findByToken(store.db, token);
  if (!record) throw notFound('This invitation link is not valid.');
  // A real link, even a spent one, is no guess.
  await attempt.succeeded();
  const refused = refusal(record, new Date().toISOString());
  if (refused) throw refused;
  return record;
}

/** POST /auth/invitation: what the link's page shows. */
export async function previewInvitation(
  store: Store,
  token: string,
  reserve: ReserveTokenAttempt,
): Promise<InvitationPreview> {
  const record = await usableInvitation(store, token, reserve);
  return {
    teamName: record.teamName,
    role: record.role,
    email: record.email,
    invitedBy: record.invitedBy,
    expiresAt: record.expiresAt,
  };
}

/** The email to join with: the invitation's when it names one (another is a 400), else the one given. */
function joiningEmail(record: InvitationRecord, given: string | undefined): string {
  if (record.email) {
    if (given !== undefined && emailOf(given) !== record.email) {
      throw invalidInput(`This invitation is for ${record.email}; join with that email.`);
    }
    return record.email;
  }
  if (given === undefined) throw invalidInput('email is required.');
  return emailOf(given);
}

/**
 * In one transaction: checks that the sender may still give the invitation's role, keeping their
 * membership until commit (a demotion or removal in flight commits first and is seen; one that
 * comes later waits for this accept), claims the invitation (the loser of a race learns why it
 * cannot), lets `join` make the user a member, and opens their session in the team. The sender
 * is locked before the invitation, in the order a demotion takes them (its member, then their
 * invitations to revoke), so the two never wait for each other.
 */
async function claimAndJoin(
  store: Store,
  record: InvitationRecord,
  join: (trx: Db) => Promise<UserRecord>,
): Promise<{ token: string; info: SessionInfo }> {
  return store.transaction(async (trx) => {
    const refused = beyondSender(record, await keptRole(trx, record.teamId, record.invitedBy.id));
    if (refused) throw refused;
    const now = new Date().toISOString();
    if (!(await invitations.claimInvitation(trx, record.id, now))) {
      const current = await invitations.findInvitation(trx, record.id);
      throw (current && refusal(current, now)) ?? gone('This invitation has already been used.');
    }
    const user = await join(trx);
    await invitations.setUsedBy(trx, record.id, user.id);
    // Last of the writes before the session: it takes the team row (lists/shared-lists.ts).
    await joinSharedLists(trx, record.teamId, user.id);
    const teams = await teamsOfUser(trx, user.id);
    const session = await openSession(
      trx,
      user,
      teams,
      teams.find((t) => t.id === record.teamId)!,
    );
    // The team learns of it live: a new member, and a link that leaves the pending list.
    await recordMemberEvent(trx, record.teamId, 'member.joined', user.id);
    await recordInvitationEvents(trx, record.teamId, 'invitation.accepted', [record.id]);
    return session;
  });
}

/**
 * POST /auth/accept-invitation: with `name`, a newcomer's new account; without, an existing
 * account's email and password. Either way the answer is the sign-in's, with its session.
 *
 * An answer never tells whether an email has an account unless the request makes one or holds
 * its password (SECURITY.md): with `name`, an email that has an account is taken as that
 * account's sign-in, exactly as without (its right password joins with it, a wrong one is the
 * sign-in's 401, from the sign-in's budgets), never a "this email is taken".
 */
export async function acceptInvitation(
  store: Store,
  body: AcceptInvitationBody,
  budgets: { reserveToken: ReserveTokenAttempt; reservePassword: ReservePasswordAttempt },
): Promise<{ token: string; info: SessionInfo }> {
  const record = await usableInvitation(store, body.token, budgets.reserveToken);
  const email = joiningEmail(record, body.email);
  if (body.name !== undefined) {
    if (body.password.length < MIN_PASSWORD_LENGTH || body.password.length > MAX_PASSWORD_LENGTH) {
      throw invalidInput(`password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters long.`);
    }
    const joined = await joinAsNewcomer(store, record, { email, name: body.name, password: body.password });
    if (joined) return joined;
  }
  return joinWithAccount(store, record, email, body.password, budgets.reservePassword);
}

/** A new user with the invitation's role; undefined when the email has an account (found, or made a moment ago). */
async function joinAsNewcomer(
  store: Store,
  record: InvitationRecord,
  input: { email: string; name: string; password: string },
): Promise<{ token: string; info: SessionInfo } | undefined> {
  if (await findUserByEmail(store.db, input.email)) return undefined;
  const passwordHash = await hashPassword(input.password);
  try {
    return await claimAndJoin(store, record, async (trx) => {
      const user = await insertUser(trx, { email: input.email, name: input.name, passwordHash });
      await insertMember(trx, record.teamId, user.id, record.role);
      return user;
    });
  } catch (error) {
    // The same email signed up a moment ago (PostgreSQL's unique index is the last word).
    if (isUniqueViolation(error)) return undefined;
    throw error;
  }
}

/** The account with this email joins, if the password is its own (401 as at sign-in otherwise). */
async function joinWithAccount(
  store: Store,
  record: InvitationRecord,
  email: string,
  password: string,
  reservePassword: ReservePasswordAttempt,
): Promise<{ token: string; info: SessionInfo }> {
  const user = await checkCredentials(store, email, password, reservePassword);
  const alreadyMember = `You are already a member of ${record.teamName}: sign in to it instead.`;
  if (await findMembership(store.db, record.teamId, user.id)) throw conflict(alreadyMember);
  try {
    return await claimAndJoin(store, record, async (trx) => {
      await insertMember(trx, record.teamId, user.id, record.role);
      return user;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(alreadyMember);
    throw error;
  }
}
