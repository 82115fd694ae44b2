/**
 * Unsubscribe links (RFC 8058 one-click): each mail carries a token of its own, stored hashed
 * (secret-hash.ts) with its person. Following one turns all of that person's email off.
 */
import { randomBytes } from 'node:crypto';
import { NOTIFICATION_KINDS } from '../contract/enums.js';
import { hashSecret } from '../secret-hash.js';
import type { Db } from '../storage/schema.js';
import { savePreferences } from './preferences.repository.js';

/** How long a mail's unsubscribe link works. */
export const UNSUBSCRIBE_LINK_TTL_MS = 365 * 24 * 60 * 60 * 1000;

/** A new token for a mail to `userId`; only its hash is kept. */
export async function newUnsubscribeToken(db: Db, userId: string, now: Date): Promise<string> {
  const token = randomBytes(24).toString('base64url');
  await db
    .insertInto('mail_unsubscribe_tokens')
    .values({ token_hash: hashSecret(token), user_id: userId, created_at: now.toISOString() })
    .execute();
  return token;
}

/**
 * Turns every kind of notification that went by email to the inbox only, for the token's person.
 * False when the token is unknown or expired. Following a link twice is harmless.
 */
export async function unsubscribe(db: Db, token: string, now: Date): Promise<boolean> {
  const row = await db
    .selectFrom('mail_unsubscribe_tokens')
    .select('user_id')
    .where('token_hash', '=', hashSecret(token))
    .where('created_at', '>', new Date(now.getTime() - UNSUBSCRIBE_LINK_TTL_MS).toISOString())
    .executeTakeFirst();
  if (!row) return false;
  const current = await db
    .selectFrom('notification_preferences')
    .select(['kind', 'delivery'])
    .where('user_id', '=', row.user_id)
    .execute();
  const chosen = new Map(current.map((pref) => [pref.kind, pref.delivery]));
  // Off stays off; everything else, chosen or by default, goes to the inbox only.
  await savePreferences(
    db,
    row.user_id,
    Object.fromEntries(NOTIFICATION_KINDS.filter((kind) => chosen.get(kind) !== 'off').map((kind) => [kind, 'inbox'])),
  );
  return true;
}

/** Forgets tokens older than their links' life. */
export async function pruneUnsubscribeTokens(db: Db, now = new Date()): Promise<void> {
  const before = new Date(now.getTime() - UNSUBSCRIBE_LINK_TTL_MS).toISOString();
  await db.deleteFrom('mail_unsubscribe_tokens').where('created_at', '<', before).execute();
}
