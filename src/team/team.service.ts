/**
 * Teams (workspaces) and the people in them: who a caller is, the team's members, and the
 * operator's changes (`tasklane admin` and the first-start bootstrap). The rules live here once.
 */
import { randomBytes } from 'node:crypto';
import type { Caller } from '../caller.js';
import type { Identity, Member } from '../contract/team.js';
import type { Role } from '../contract/enums.js';
import { conflict, invalidInput, notFound } from '../http/errors.js';
import { isUuid } from '../ids.js';
import { issueKey } from '../keys/keys.service.js';
import { createDefaultStatuses } from '../statuses/statuses.service.js';
import type { Store } from '../storage/database.js';
import { lockSetup } from '../storage/dialect.js';
import type { Db } from '../storage/schema.js';
import { hashPassword } from './passwords.js';
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

/** A team by id, or undefined (any string is accepted: a malformed id matches nothing). */
export async function findTeam(store: Store, teamId: string): Promise<teams.TeamRecord | undefined> {
  return isUuid(teamId) ? teams.findTeam(store.db, teamId) : undefined;
}

/** A user by id, or undefined (any string is accepted: a malformed id matches nothing). */
export async function findUser(store: Store, userId: string): Promise<users.UserRecord | undefined> {
  return isUuid(userId) ? users.findUser(store.db, userId) : undefined;
}

/** A new team with the default workflow: To do (default), In progress, Done (completed). */
export async function createTeam(db: Db, name: string): Promise<teams.TeamRecord> {
  const team = await teams.insertTeam(db, name);
  await createDefaultStatuses(db, team.id);
  return team;
}

const MIN_PASSWORD_LENGTH = 8;

/** A new user; without a password they can use API keys but cannot sign in to the web app. */
export async function createUser(
  store: Store,
  input: { email: string; name: string; password?: string },
): Promise<users.UserRecord> {
  const email = input.email.trim();
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw invalidInput(`"${email}" is not an email address`);
  if (input.password !== undefined && input.password.length < MIN_PASSWORD_LENGTH) {
    throw invalidInput(`password must be at least ${MIN_PASSWORD_LENGTH} characters long`);
  }
  const passwordHash = input.password === undefined ? null : await hashPassword(input.password);
  return store.transaction(async (trx) => {
    if (await users.findUserByEmail(trx, email)) throw conflict(`a user with email ${email} already exists`);
    return users.insertUser(trx, { email, name: input.name, passwordHash });
  });
}

/** Adds the user to the team with the role, or changes the role of a member. */
export function addMember(store: Store, teamId: string, userId: string, role: Role): Promise<void> {
  return teams.upsertMember(store.db, teamId, userId, role);
}

/** Removes a member and everything that gave them access in the team (teams.repository.ts). */
export async function removeMember(store: Store, teamId: string, userId: string): Promise<void> {
  const removed = await store.transaction((trx) => teams.deleteMember(trx, teamId, userId));
  if (!removed) throw notFound(`user ${userId} is not a member of org ${teamId}`);
}

export interface Bootstrap {
  teamName: string;
  email: string;
  password: string;
  key: string;
}

/**
 * On an empty database: a starter workspace, its owner and a key for them. Returns the secrets
 * to print once, or null when the database already has a team (they are never shown again).
 */
export async function bootstrapIfEmpty(store: Store): Promise<Bootstrap | null> {
  const password = randomBytes(12).toString('base64url');
  const passwordHash = await hashPassword(password);
  return store.transaction(async (trx) => {
    await lockSetup(trx, store.dialect);
    if ((await teams.countTeams(trx)) > 0) return null;
    const team = await createTeam(trx, 'My team');
    const email = 'owner@tasklane.local';
    const user = await users.insertUser(trx, { email, name: 'Owner', passwordHash });
    await teams.upsertMember(trx, team.id, user.id, 'owner');
    const { key } = await issueKey(trx, { teamId: team.id, userId: user.id, name: 'bootstrap' });
    return { teamName: team.name, email, password, key };
  });
}
