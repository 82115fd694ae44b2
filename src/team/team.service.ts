/**
 * Teams and the people in them: who a caller is, the team's members, and the operator's reads
 * and changes of users (`tasklane admin`). The rules live here once; the changes that reach into
 * other folders (a new team, a password, the first start) are membership/accounts.service.ts's.
 */
import type { Caller } from '../caller.js';
import { MAX_TEAM_NAME_LENGTH, type Identity, type Member, type TeamRef } from '../contract/team.js';
import { conflict, invalidInput, notFound } from '../http/errors.js';
import { isUuid } from '../ids.js';
import type { Store } from '../storage/database.js';
import { isUniqueViolation } from '../storage/errors.js';
import { hashPassword } from './passwords.js';
import { asManager, requireManager } from './roles.js';
import { recordTeamUpdated } from './team-events.js';
import * as teams from './teams.repository.js';
import * as users from './users.repository.js';

/** GET /v1/me: the caller's user, team and role. A former member's key still says who it is not. */
export async function identity(store: Store, caller: Caller): Promise<Identity> {
  if (caller.role === null) throw notFound('Membership not found.');
  const [user, team] = await Promise.all([
    users.findUser(store.db, caller.userId),
    teams.findTeam(store.db, caller.teamId),
  ]);
  if (!user || !team) throw notFound('Membership not found.');
  return {
    user: { id: user.id, name: user.name, email: user.email },
    team: { id: team.id, name: team.name },
    role: caller.role,
  };
}

/** GET /v1/users: every member of the caller's team, by name. */
export function members(store: Store, caller: Caller): Promise<Member[]> {
  return teams.listMembers(store.db, caller.teamId);
}

/** 400 unless `name` is a team name (the API's schema says the same, contract/team.ts `TeamName`). */
function checkTeamName(name: string): void {
  if (!/\S/.test(name) || [...name].length > MAX_TEAM_NAME_LENGTH) {
    throw invalidInput(
      `name must be a string of 1 to ${MAX_TEAM_NAME_LENGTH} characters with at least one non-whitespace character.`,
    );
  }
}

/**
 * Renames the team and tells every member (`team.updated`), in one transaction; the same name
 * again changes nothing and sends nothing. The operator's (`admin org rename`): any team by id.
 */
export async function renameTeam(store: Store, teamId: string, name: string): Promise<TeamRef> {
  checkTeamName(name);
  return store.transaction(async (trx) => {
    const team = isUuid(teamId) ? await teams.findTeam(trx, teamId) : undefined;
    if (!team) throw notFound(`team ${teamId} not found`);
    if (team.name === name) return team;
    await teams.renameTeam(trx, team.id, name);
    await recordTeamUpdated(trx, team.id);
    return { id: team.id, name };
  });
}

/** PATCH /v1/team: the caller's team, by its owners and admins. */
export function renameTeamAs(store: Store, caller: Caller, name: string): Promise<TeamRef> {
  requireManager(caller, 'the team');
  return renameTeam(asManager(store, caller, 'the team'), caller.teamId, name);
}

/** A team by id, or undefined (any string is accepted: a malformed id matches nothing). */
export async function findTeam(store: Store, teamId: string): Promise<teams.TeamRecord | undefined> {
  return isUuid(teamId) ? teams.findTeam(store.db, teamId) : undefined;
}

/** A user by id, or undefined (any string is accepted: a malformed id matches nothing). */
export async function findUser(store: Store, userId: string): Promise<users.UserRecord | undefined> {
  return isUuid(userId) ? users.findUser(store.db, userId) : undefined;
}

/** Every team, by name. */
export function listTeams(store: Store): Promise<teams.TeamRecord[]> {
  return teams.listTeams(store.db);
}

/** Every user, or the team's members, by email. */
export function listUsers(store: Store, teamId?: string): Promise<{ id: string; email: string; name: string }[]> {
  return users.listUsers(store.db, teamId);
}

/** The team's members with their roles, by name (as GET /v1/users shows them). */
export function membersOfTeam(store: Store, teamId: string): Promise<Member[]> {
  return teams.listMembers(store.db, teamId);
}

const MIN_PASSWORD_LENGTH = 8;
/** Sign-in accepts at most this many characters (contract/sessions.ts): a longer password could never be used. */
const MAX_PASSWORD_LENGTH = 200;
/** The longest email sign-in accepts (contract/sessions.ts). */
const MAX_EMAIL_LENGTH = 320;

/** The email to store (trimmed), or 400. */
function checkEmail(raw: string): string {
  const email = raw.trim();
  if (email.length > MAX_EMAIL_LENGTH || !/^[^\s@]+@[^\s@]+$/.test(email)) {
    throw invalidInput(`"${email}" is not an email address`);
  }
  return email;
}

/** 400 unless the password has an acceptable length. */
export function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
    throw invalidInput(`password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters long`);
  }
}

const emailTaken = (email: string) => conflict(`a user with email ${email} already exists`);

/**
 * Runs `write`, which checks that no other user has the email and then stores it. On
 * PostgreSQL two writers can both pass the check; the unique index then refuses the second,
 * which gets the same answer as if the check had caught it.
 */
async function claimingEmail<T>(email: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw emailTaken(email);
    throw error;
  }
}

/** A new user; without a password they can use API keys but cannot sign in to the web app. */
export async function createUser(
  store: Store,
  input: { email: string; name: string; password?: string },
): Promise<users.UserRecord> {
  const email = checkEmail(input.email);
  if (input.password !== undefined) checkPassword(input.password);
  const passwordHash = input.password === undefined ? null : await hashPassword(input.password);
  return claimingEmail(email, () =>
    store.transaction(async (trx) => {
      if (await users.findUserByEmail(trx, email)) throw emailTaken(email);
      return users.insertUser(trx, { email, name: input.name, passwordHash });
    }),
  );
}

/** Changes a user's email (the web app tells its users that an administrator can). */
export async function setEmail(store: Store, userId: string, rawEmail: string): Promise<users.UserRecord> {
  const email = checkEmail(rawEmail);
  return claimingEmail(email, () =>
    store.transaction(async (trx) => {
      const user = isUuid(userId) ? await users.findUser(trx, userId) : undefined;
      if (!user) throw notFound(`user ${userId} not found`);
      const holder = await users.findUserByEmail(trx, email);
      if (holder && holder.id !== user.id) throw emailTaken(email);
      await users.setEmail(trx, user.id, email);
      return { ...user, email: email.toLowerCase() };
    }),
  );
}
