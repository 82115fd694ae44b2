/**
 * The soak's data: one team of users, each with an API key and a password, all members of one
 * shared list on which every task is created. Then every task event reaches every user, so the
 * ids a stream must receive are exactly the team's event ids after its starting point,
 * contiguous: a counter per stream tells missed and duplicated events apart.
 *
 * People are inserted with the repositories, as `tasklane admin` and test/factories.ts do; the
 * list and its members go through the API, as a user would.
 */
import { randomBytes } from 'node:crypto';
import { insertKey } from '../../src/keys/keys.repository.js';
import { openStore } from '../../src/storage/database.js';
import { upsertMember } from '../../src/team/teams.repository.js';
import { createTeam } from '../../src/membership/accounts.service.js';
import { hashPassword } from '../../src/team/passwords.js';
import { insertUser } from '../../src/team/users.repository.js';
import { send } from './client.js';
import type { Fleet } from './fleet.js';
import type { Ledger } from './ledger.js';

export interface SoakUser {
  id: string;
  email: string;
  password: string;
  key: string;
}

export interface SoakTeam {
  id: string;
  users: SoakUser[];
  listId: number;
  /** A task only bad requests touch: it must be unchanged at the end. */
  target: { id: number; title: string };
  /** The team's last event id before any stream opened: every stream starts there. */
  baseline: number;
}

/** Creates the team and its people on the database, then the shared list through the API. */
export async function createSoakTeam(
  databaseUrl: string,
  fleet: Fleet,
  ledger: Ledger,
  size: number,
): Promise<SoakTeam> {
  const store = openStore(databaseUrl, { poolSize: 2 });
  let teamId: string;
  const users: SoakUser[] = [];
  try {
    const team = await store.transaction((trx) => createTeam(trx, 'Soak'));
    teamId = team.id;
    for (let i = 0; i < size; i++) {
      const email = `soak.${i}.${randomBytes(3).toString('hex')}@example.test`;
      const password = randomBytes(12).toString('base64url');
      const user = await insertUser(store.db, { email, name: `Soak ${i}`, passwordHash: await hashPassword(password) });
      await upsertMember(store.db, team.id, user.id, i === 0 ? 'owner' : 'member');
      const { key } = await insertKey(store.db, { teamId: team.id, userId: user.id, name: 'soak' });
      users.push({ id: user.id, email: user.email, password, key });
    }
  } finally {
    await store.close();
  }

  const setup = async (method: string, path: string, body: unknown, expected: number): Promise<any> => {
    const result = await send(fleet, ledger, { op: 'create', method, path, body, expected, key: users[0]!.key });
    if (result.answer?.status !== expected) {
      throw new Error(
        `setup: ${method} ${path} answered ${result.answer?.status ?? result.error}: ${result.answer?.text}`,
      );
    }
    return JSON.parse(result.answer.text);
  };
  const list = await setup('POST', '/v1/lists', { name: 'Soak', color: 'Teal' }, 201);
  for (const user of users.slice(1)) await setup('POST', `/v1/lists/${list.id}/members`, { userId: user.id }, 201);
  const title = 'soak: only bad requests touch this task';
  const target = await setup('POST', '/v1/tasks', { title, taskListIds: [list.id] }, 201);
  // Setup requests are not part of the load: keep them out of the counts.
  ledger.entries.length = 0;
  return {
    id: teamId,
    users,
    listId: list.id,
    target: { id: target.id, title },
    baseline: await latestEventId(databaseUrl, teamId),
  };
}

/** The team's last event id, straight from the database (its event counter). */
export async function latestEventId(databaseUrl: string, teamId: string): Promise<number> {
  const store = openStore(databaseUrl, { poolSize: 1 });
  try {
    const row = await store.db
      .selectFrom('teams')
      .select('event_counter')
      .where('id', '=', teamId)
      .executeTakeFirstOrThrow();
    return Number(row.event_counter);
  } finally {
    await store.close();
  }
}
