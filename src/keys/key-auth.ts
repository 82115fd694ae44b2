/**
 * An `x-api-key` value → the key's owner, or the reason it is refused.
 *
 * 1. Shape and checksum (key-format.ts): a mistyped or made-up key is refused here, before any
 *    database work.
 * 2. One indexed lookup by the sha256 of the key, then a constant-time comparison of the stored
 *    hash with the presented one. Timing cannot reveal a stored secret: the lookup is keyed by a
 *    hash the caller cannot steer towards a stored one, and the final comparison reads every byte.
 * 3. Expiry, then `last_used_at`, written at most once per TOUCH_INTERVAL_MS so that reads stay
 *    free of writes.
 *
 * Nothing is cached, so a revoked or expired key is refused on the next request in every process.
 */
import { timingSafeEqual } from 'node:crypto';
import { hashSecret } from '../secret-hash.js';
import type { Db } from '../storage/schema.js';
import { keyShape } from './key-format.js';
import { findLiveKeyOwner, hasExpired, touchKey, type KeyOwner } from './keys.repository.js';

/** last_used_at is written at most this often per key. */
export const TOUCH_INTERVAL_MS = 60_000;

export const MALFORMED_KEY_MESSAGE =
  'Invalid API key: it is not a complete tasklane key. Check that it was copied whole and unchanged.';
export const UNKNOWN_KEY_MESSAGE = 'Invalid API key: it is unknown or has been revoked.';
export const expiredKeyMessage = (expiresAt: string) => `This API key expired on ${expiresAt}.`;

export type KeyCheck = { owner: KeyOwner; refusal?: undefined } | { owner?: undefined; refusal: string };

/** Resolves a presented key; never throws for a bad key (the caller decides how to refuse). */
export async function checkApiKey(db: Db, key: string, now = Date.now()): Promise<KeyCheck> {
  if (keyShape(key) === 'malformed') return { refusal: MALFORMED_KEY_MESSAGE };

  const presentedHash = hashSecret(key);
  const presented = Buffer.from(presentedHash, 'hex');
  const owner = await findLiveKeyOwner(db, presentedHash);
  const stored = owner ? Buffer.from(owner.secretHash, 'hex') : undefined;
  if (!owner || !stored || stored.length !== presented.length || !timingSafeEqual(stored, presented)) {
    return { refusal: UNKNOWN_KEY_MESSAGE };
  }
  if (hasExpired(owner.expiresAt, now)) return { refusal: expiredKeyMessage(owner.expiresAt!) };

  if (!owner.lastUsedAt || now - Date.parse(owner.lastUsedAt) >= TOUCH_INTERVAL_MS) {
    await touchKey(db, owner.keyId, new Date(now).toISOString());
  }
  return { owner };
}
