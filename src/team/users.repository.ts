import { randomUUID } from 'node:crypto';
import type { Db, UserRow } from '../storage/schema.js';
import type { Role } from '../contract/enums.js';

export async function insertUser(
  db: Db,
  input: { email: string; name: string; passwordHash: string | null },
): Promise<UserRow> {
  const row: UserRow = {
    id: randomUUID(),
    email: input.email.toLowerCase(),
    name: input.name,
    password_hash: input.passwordHash,
    created_at: new Date().toISOString(),
  };
  await db.insertInto('users').values(row).execute();
  return row;
}

export async function findUser(db: Db, userId: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
}

export async function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirst();
}

export async function updateUser(
  db: Db,
  userId: string,
  changes: { name?: string; password_hash?: string },
): Promise<void> {
  await db.updateTable('users').set(changes).where('id', '=', userId).execute();
}

/**
 * Replaces the user's password hash, unless it is no longer `oldHash` (another change won the
 * race and must not be undone); says whether it replaced it.
 */
export async function replacePasswordHash(db: Db, userId: string, oldHash: string, newHash: string): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ password_hash: newHash })
    .where('id', '=', userId)
    .where('password_hash', '=', oldHash)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export interface TeamOfUser {
  id: string;
  name: string;
  role: Role;
}

/** The teams the user belongs to, in the order they joined. */
export async function teamsOfUser(db: Db, userId: string): Promise<TeamOfUser[]> {
  return db
    .selectFrom('team_members as m')
    .innerJoin('teams as t', 't.id', 'm.team_id')
    .select(['t.id', 't.name', 'm.role'])
    .where('m.user_id', '=', userId)
    .orderBy('m.created_at')
    .orderBy('t.id')
    .execute();
}
