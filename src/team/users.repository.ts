import { randomUUID } from 'node:crypto';
import type { Db, UserRow } from '../storage/schema.js';
import type { Role } from '../contract/enums.js';

/** A user as the rest of the code sees it. */
export interface UserRecord {
  id: string;
  email: string;
  name: string;
  /** null: the user cannot sign in to the web app (API keys only). */
  passwordHash: string | null;
}

const toUserRecord = (row: UserRow): UserRecord => ({
  id: row.id,
  email: row.email,
  name: row.name,
  passwordHash: row.password_hash,
});

export async function insertUser(
  db: Db,
  input: { email: string; name: string; passwordHash: string | null },
): Promise<UserRecord> {
  const row: UserRow = {
    id: randomUUID(),
    email: input.email.toLowerCase(),
    name: input.name,
    password_hash: input.passwordHash,
    created_at: new Date().toISOString(),
  };
  await db.insertInto('users').values(row).execute();
  return toUserRecord(row);
}

export async function findUser(db: Db, userId: string): Promise<UserRecord | undefined> {
  const row = await db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
  return row && toUserRecord(row);
}

export async function findUserByEmail(db: Db, email: string): Promise<UserRecord | undefined> {
  const row = await db.selectFrom('users').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirst();
  return row && toUserRecord(row);
}

/** Users by email, all of them or (with `teamId`) the team's members; never a password hash. */
export async function listUsers(db: Db, teamId?: string): Promise<{ id: string; email: string; name: string }[]> {
  let query = db.selectFrom('users as u').select(['u.id', 'u.email', 'u.name']);
  if (teamId !== undefined) {
    query = query.where('u.id', 'in', db.selectFrom('team_members').select('user_id').where('team_id', '=', teamId));
  }
  const rows = await query.execute();
  // Code point order, the same on every store (emails are stored in lower case and unique).
  return rows.sort((a, b) => (a.email < b.email ? -1 : a.email > b.email ? 1 : 0));
}

/** Sets the email (stored in lower case, like insertUser); the unique index refuses one in use. */
export async function setEmail(db: Db, userId: string, email: string): Promise<void> {
  await db.updateTable('users').set({ email: email.toLowerCase() }).where('id', '=', userId).execute();
}

export async function renameUser(db: Db, userId: string, name: string): Promise<void> {
  await db.updateTable('users').set({ name }).where('id', '=', userId).execute();
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

/** Sets the user's password hash (whatever it was): for tests and the operator. */
export async function setPasswordHash(db: Db, userId: string, passwordHash: string): Promise<void> {
  await db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
}
