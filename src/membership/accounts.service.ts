/**
 * The account changes that reach beyond identity: a new team gets its default workflow, a new
 * password ends the user's sessions, and the first start makes a team, its owner and their key.
 */
import { randomBytes } from 'node:crypto';
import { issueKey } from '../keys/keys.service.js';
import { deleteSessionsOf } from '../sessions/sessions.repository.js';
import { createDefaultStatuses } from '../statuses/statuses.service.js';
import type { Store } from '../storage/database.js';
import { lockSetup } from '../storage/dialect.js';
import type { Db } from '../storage/schema.js';
import { isUuid } from '../ids.js';
import { notFound } from '../http/errors.js';
import { hashPassword } from '../team/passwords.js';
import { checkPassword } from '../team/team.service.js';
import * as teams from '../team/teams.repository.js';
import * as users from '../team/users.repository.js';

/** A new team with the default workflow: To do (default), In progress, Done (completed). */
export async function createTeam(db: Db, name: string): Promise<teams.TeamRecord> {
  const team = await teams.insertTeam(db, name);
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
    const team = await createTeam(trx, 'My team');
    const email = 'owner@tasklane.local';
    const user = await users.insertUser(trx, { email, name: 'Owner', passwordHash });
    await teams.upsertMember(trx, team.id, user.id, 'owner');
    const { key } = await issueKey(trx, { teamId: team.id, userId: user.id, name: 'bootstrap' });
    return { teamName: team.name, email, password, key };
  });
}
