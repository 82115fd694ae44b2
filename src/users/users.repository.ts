import { randomUUID } from 'node:crypto';
import type { Db, UserRow } from '../storage/schema.js';

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
