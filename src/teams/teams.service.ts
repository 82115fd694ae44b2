/** Creating workspaces and the people in them: used by `tasklane admin` and the first-start bootstrap. */
import { randomBytes } from 'node:crypto';
import { insertKey } from '../keys/keys.repository.js';
import { DEFAULT_STATUSES, insertStatus } from '../statuses/statuses.repository.js';
import type { Store } from '../storage/database.js';
import { lockSetup } from '../storage/dialect.js';
import type { Db, TeamRow } from '../storage/schema.js';
import { hashPassword } from '../users/passwords.js';
import { insertUser } from '../users/users.repository.js';
import { countTeams, insertTeam, upsertMember } from './teams.repository.js';

/** A new team with the default workflow: To do (default), In progress, Done (completed). */
export async function createTeam(db: Db, name: string): Promise<TeamRow> {
  const team = await insertTeam(db, name);
  for (const [order, status] of DEFAULT_STATUSES.entries()) {
    await insertStatus(db, team.id, { ...status, order });
  }
  return team;
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
    if ((await countTeams(trx)) > 0) return null;
    const team = await createTeam(trx, 'My team');
    const email = 'owner@tasklane.local';
    const user = await insertUser(trx, { email, name: 'Owner', passwordHash });
    await upsertMember(trx, team.id, user.id, 'owner');
    const { key } = await insertKey(trx, { teamId: team.id, userId: user.id, name: 'bootstrap' });
    return { teamName: team.name, email, password, key };
  });
}
