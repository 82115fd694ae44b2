/** api_keys: creation, lookup by hash, use, revocation, expiry and listings. Keys are stored only as sha256. */
import { randomUUID } from 'node:crypto';
import { hashSecret } from '../secret-hash.js';
import { prepared } from '../storage/prepared.js';
import type { ApiKeyRow, Db, Role } from '../storage/schema.js';
import { generateApiKey } from './key-format.js';

/** A key as the rest of the code sees it: never its hash. */
export interface KeyRecord {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  /** ISO timestamp, or null for a key that never expires. */
  expiresAt: string | null;
}

function toKeyRecord(
  row: Pick<ApiKeyRow, 'id' | 'name' | 'prefix' | 'created_at' | 'last_used_at' | 'expires_at'>,
): KeyRecord {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    expiresAt: row.expires_at,
  };
}

export async function insertKey(
  db: Db,
  input: { teamId: string; userId: string; name: string; expiresAt?: string | null },
): Promise<{ record: KeyRecord; key: string }> {
  const { key, displayPrefix } = generateApiKey();
  const row: ApiKeyRow = {
    id: randomUUID(),
    team_id: input.teamId,
    user_id: input.userId,
    name: input.name,
    prefix: displayPrefix,
    secret_hash: hashSecret(key),
    created_at: new Date().toISOString(),
    last_used_at: null,
    revoked_at: null,
    expires_at: input.expiresAt ?? null,
  };
  await db.insertInto('api_keys').values(row).execute();
  return { record: toKeyRecord(row), key };
}

export interface KeyOwner {
  keyId: string;
  /** As stored, for the constant-time comparison with the presented key's hash. */
  secretHash: string;
  userId: string;
  teamId: string;
  lastUsedAt: string | null;
  /** ISO timestamp, or null for a key that never expires. */
  expiresAt: string | null;
  /** Null when the user is no longer a member of the key's team. */
  role: Role | null;
}

const keyOwnerByHash = prepared((db, p: { secretHash: string }) =>
  db
    .selectFrom('api_keys as k')
    .leftJoin('team_members as m', (join) =>
      join.onRef('m.team_id', '=', 'k.team_id').onRef('m.user_id', '=', 'k.user_id'),
    )
    .select(['k.id', 'k.secret_hash', 'k.user_id', 'k.team_id', 'k.last_used_at', 'k.expires_at', 'm.role'])
    .where('k.secret_hash', '=', p.secretHash)
    .where('k.revoked_at', 'is', null),
);

/**
 * The unrevoked key with this hash (through its unique index) and its owner's current
 * membership, in one query. Expired keys are returned too, so the caller can say so.
 */
export async function findLiveKeyOwner(db: Db, secretHash: string): Promise<KeyOwner | undefined> {
  const [row] = await keyOwnerByHash(db, { secretHash });
  if (!row) return undefined;
  return {
    keyId: row.id,
    secretHash: row.secret_hash,
    userId: row.user_id,
    teamId: row.team_id,
    lastUsedAt: row.last_used_at,
    expiresAt: row.expires_at,
    role: row.role,
  };
}

export async function touchKey(db: Db, keyId: string, at: string): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', keyId).execute();
}

export async function revokeKey(db: Db, keyId: string): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: new Date().toISOString() })
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function findKey(db: Db, keyId: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirst();
}

/** Of the given key ids, those neither revoked nor expired whose user is still a member of the key's team. */
export async function liveKeyIds(db: Db, keyIds: readonly string[], now = new Date()): Promise<Set<string>> {
  if (keyIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('api_keys as k')
    .innerJoin('team_members as m', (join) =>
      join.onRef('m.team_id', '=', 'k.team_id').onRef('m.user_id', '=', 'k.user_id'),
    )
    .select('k.id')
    .where('k.id', 'in', keyIds)
    .where('k.revoked_at', 'is', null)
    // Both sides are ISO timestamps in UTC, so text order is time order on both stores.
    .where((eb) => eb.or([eb('k.expires_at', 'is', null), eb('k.expires_at', '>', now.toISOString())]))
    .execute();
  return new Set(rows.map((r) => r.id));
}

/** True once a key's expiry has passed. */
export const hasExpired = (expiresAt: string | null, now: number): boolean =>
  expiresAt !== null && Date.parse(expiresAt) <= now;

/** The user's unrevoked keys in a team (expired ones too, so they can be seen and revoked), newest first. */
export async function keysOf(db: Db, teamId: string, userId: string): Promise<KeyRecord[]> {
  const rows = await db
    .selectFrom('api_keys')
    .select(['id', 'name', 'prefix', 'created_at', 'last_used_at', 'expires_at'])
    .where('team_id', '=', teamId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute();
  return rows.map(toKeyRecord);
}
