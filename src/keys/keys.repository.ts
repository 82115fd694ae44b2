import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { ApiKeyRow, Db, Role } from '../storage/schema.js';

/** Keys look like `tl_<prefix>_<secret>`; only their sha256 is stored. */
export function generateKeySecret(): { key: string; prefix: string } {
  const prefix = randomBytes(6).toString('base64url');
  return { key: `tl_${prefix}_${randomBytes(24).toString('base64url')}`, prefix: `tl_${prefix}` };
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export async function insertKey(
  db: Db,
  input: { teamId: string; userId: string; name: string },
): Promise<{ row: ApiKeyRow; key: string }> {
  const { key, prefix } = generateKeySecret();
  const row: ApiKeyRow = {
    id: randomUUID(),
    team_id: input.teamId,
    user_id: input.userId,
    name: input.name,
    prefix,
    secret_hash: hashKey(key),
    created_at: new Date().toISOString(),
    last_used_at: null,
    revoked_at: null,
  };
  await db.insertInto('api_keys').values(row).execute();
  return { row, key };
}

export interface KeyOwner {
  keyId: string;
  userId: string;
  teamId: string;
  lastUsedAt: string | null;
  /** Null when the user is no longer a member of the key's team. */
  role: Role | null;
}

/** The live (unrevoked) key with this hash and its owner's current membership, in one query. */
export async function findLiveKeyOwner(db: Db, secretHash: string): Promise<KeyOwner | undefined> {
  const row = await db
    .selectFrom('api_keys as k')
    .leftJoin('team_members as m', (join) =>
      join.onRef('m.team_id', '=', 'k.team_id').onRef('m.user_id', '=', 'k.user_id'),
    )
    .select(['k.id', 'k.user_id', 'k.team_id', 'k.last_used_at', 'm.role'])
    .where('k.secret_hash', '=', secretHash)
    .where('k.revoked_at', 'is', null)
    .executeTakeFirst();
  if (!row) return undefined;
  return { keyId: row.id, userId: row.user_id, teamId: row.team_id, lastUsedAt: row.last_used_at, role: row.role };
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

/** Of the given key ids, those not revoked whose user is still a member of the key's team. */
export async function liveKeyIds(db: Db, keyIds: readonly string[]): Promise<Set<string>> {
  if (keyIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('api_keys as k')
    .innerJoin('team_members as m', (join) =>
      join.onRef('m.team_id', '=', 'k.team_id').onRef('m.user_id', '=', 'k.user_id'),
    )
    .select('k.id')
    .where('k.id', 'in', keyIds)
    .where('k.revoked_at', 'is', null)
    .execute();
  return new Set(rows.map((r) => r.id));
}

export interface KeySummary {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
}

/** The user's live keys in a team, newest first. */
export async function keysOf(db: Db, teamId: string, userId: string): Promise<KeySummary[]> {
  const rows = await db
    .selectFrom('api_keys')
    .select(['id', 'name', 'prefix', 'created_at', 'last_used_at'])
    .where('team_id', '=', teamId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    prefix: r.prefix,
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at,
  }));
}
