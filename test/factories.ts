/**
 * Factories: each test builds its own team and people directly through the storage layer
 * (as `tasklane admin` does), so test files need no shared fixtures and run in parallel.
 */
import { randomUUID } from 'node:crypto';
import { insertKey } from '../src/keys/keys.repository.js';
import type { Store } from '../src/storage/database.js';
import type { Role } from '../src/storage/schema.js';
import { upsertMember } from '../src/team/teams.repository.js';
import { createTeam } from '../src/membership/accounts.service.js';
import { insertUser } from '../src/team/users.repository.js';
import type { Client, TestServer } from './harness.js';

export interface Actor {
  userId: string;
  teamId: string;
  name: string;
  email: string;
  role: Role;
  key: string;
  keyId: string;
  api: Client;
}

export interface Team {
  id: string;
  name: string;
  owner: Actor;
  /** Adds a user to this team with their own key. */
  member(options?: { role?: Role; name?: string; email?: string }): Promise<Actor>;
}

async function addActor(
  server: Pick<TestServer, 'store' | 'client'>,
  teamId: string,
  role: Role,
  name: string,
  email = `${name.toLowerCase().replace(/\W+/g, '.')}.${randomUUID().slice(0, 8)}@example.test`,
): Promise<Actor> {
  const store: Store = server.store;
  const user = await insertUser(store.db, { email, name, passwordHash: null });
  await upsertMember(store.db, teamId, user.id, role);
  const { record: row, key } = await insertKey(store.db, { teamId, userId: user.id, name: 'test' });
  return { userId: user.id, teamId, name, email: user.email, role, key, keyId: row.id, api: server.client(key) };
}

let counter = 0;

/** A new team with the default statuses and an owner who has a key. */
export async function createTestTeam(
  server: Pick<TestServer, 'store' | 'client'>,
  name = `Team ${++counter}`,
): Promise<Team> {
  const team = await server.store.transaction((trx) => createTeam(trx, name));
  const owner = await addActor(server, team.id, 'owner', 'Olivia Owner');
  let members = 0;
  return {
    id: team.id,
    name: team.name,
    owner,
    member: (options = {}) =>
      addActor(server, team.id, options.role ?? 'member', options.name ?? `Member ${++members}`, options.email),
  };
}
