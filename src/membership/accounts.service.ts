/**
 * The account changes that reach beyond identity: a new team gets its default workflow, a new
 * password ends the user's sessions, and the first start makes a team, its owner and their key,
 * which the owner then sets up at their first sign-in (`setUpTeam`).
 */
import { randomBytes } from 'node:crypto';
import { issueKey } from '../keys/keys.service.js';
import type { Caller } from '../caller.js';
import type { SetupBody } from '../contract/sessions.js';
import { deleteOtherSessions, deleteSessionsOf } from '../sessions/sessions.repository.js';
import { claimingOwnEmail, requireSession } from '../sessions/sessions.service.js';
import { createDefaultStatuses } from '../statuses/statuses.service.js';
import { withPrologue, type Store } from '../storage/database.js';
import { lockSetup } from '../storage/dialect.js';
import type { Db } from '../storage/schema.js';
import { isUuid } from '../ids.js';
import { conflict, forbidden, notFound } from '../http/errors.js';
import { hashPassword } from '../team/passwords.js';
import { checkPassword } from '../team/team.service.js';
import * as teams from '../team/teams.repository.js';
import { recordTeamUpdated } from '../team/team-events.js';
import * as users from '../team/users.repository.js';

/** A new team with the default workflow: To do (default), In progress, Done (completed). */
export async function createTeam(db: Db, name: string, setupPending = false): Promise<teams.TeamRecord> {
  const team = await teams.insertTeam(db, name, setupPending);
  await createDefaultStatuses(db, team.id);
  return team;
}

/**
 * Sets a user's password, which also enables web sign-in, and ends every session they have,
 * as the web's own password change ends the other sessions (API keys stay). Returns how many ended.
 */
export async function setPassword(store: Store, userId: string, password: string): Promise<number> {
  checkPassword(password);
  const user = isUuid(userId) ? await users.findUser(store.db, userId) : undefined;
  if (!user) throw notFound(`user ${userId} not found`);
  const passwordHash = await hashPassword(password);
  return store.transaction(async (trx) => {
    await users.setPasswordHash(trx, user.id, passwordHash);
    return deleteSessionsOf(trx, user.id);
  });
}

export interface Bootstrap {
  teamName: string;
  email: string;
  password: string;
  key: string;
}

/**
 * On an empty database: a starter team, its owner and a key for them. Returns the secrets
 * to print once, or null when the database already has a team (they are never shown again).
 */
export async function bootstrapIfEmpty(store: Store): Promise<Bootstrap | null> {
  const password = randomBytes(12).toString('base64url');
  const passwordHash = await hashPassword(password);
  return store.transaction(async (trx) => {
    await lockSetup(trx, store.dialect);
    if ((await teams.countTeams(trx)) > 0) return null;
    // Its owner names it, and themselves, at their first sign-in (`setUpTeam`).
    const team = await createTeam(trx, 'My team', true);
    const email = 'owner@tasklane.local';
    const user = await users.insertUser(trx, { email, name: 'Owner', passwordHash });
    await teams.upsertMember(trx, team.id, user.id, 'owner');
    const { key } = await issueKey(trx, { teamId: team.id, userId: user.id, name: 'bootstrap' });
    return { teamName: team.name, email, password, key };
  });
}

/**
 * POST /auth/setup: the owner of the first start's team, signed in with the printed password,
 * names the team and gives their own name, email and a new password, in one transaction. Their
 * other sessions end, as after a password change; API keys (the printed one too) keep working.
 * Once only: the team is then set up (409 after), also when two set-ups race (`finishSetup`).
 */
export async function setUpTeam(store: Store, caller: Caller, input: SetupBody): Promise<void> {
  requireSession(caller, 'Setting up the team');
  const ownerOnly = () => {
    if (caller.role !== 'owner') throw forbidden("Only the team's owner can set it up.");
  };
  ownerOnly();
  // Each transaction first reads the caller's membership and role again (auth/caller-check.ts).
  const asOwner = withPrologue(store, ownerOnly);
  const alreadySetUp = () => conflict('This team is already set up.');
  // Before the password is hashed, which takes a while; checked again in the change.
  if (!(await asOwner.transaction((trx) => teams.isSetupPending(trx, caller.teamId)))) throw alreadySetUp();
  const passwordHash = await hashPassword(input.password);
  const email = input.email.trim().toLowerCase();
  await claimingOwnEmail(email, caller.userId, (storeEmail) =>
    asOwner.transaction(async (trx) => {
      if (!(await teams.finishSetup(trx, caller.teamId))) throw alreadySetUp();
      await users.renameUser(trx, caller.userId, input.name);
      await storeEmail(trx);
      await users.setPasswordHash(trx, caller.userId, passwordHash);
      await deleteOtherSessions(trx, caller.userId, caller.credential.id);
      // Every member's header shows the team's name: the last statement, as the outbox wants.
      await teams.renameTeam(trx, caller.teamId, input.teamName);
      await recordTeamUpdated(trx, caller.teamId);
    }),
  );
}
