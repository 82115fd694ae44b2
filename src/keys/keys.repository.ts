/** api_keys: creation, lookup by hash, use, revocation, expiry and listings. Keys are stored only as sha256. */
import { randomUUID } from 'node:crypto';
import { hashSecret } from '../secret-hash.js';
import { prepared } from '../storage/prepared.js';
import type { KeyScope } from '../contract/keys.js';
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
  /** What the key may do (issue 33); null: full power. */
  scopes: KeyScope[] | null;
  /** The only lists the key may see; null: every list. */
  listIds: number[] | null;
}

/** A JSON array column (scopes, list_ids) as stored: null stays null. */
const parseArray = <T>(text: string | null): T[] | null => (text === null ? null : (JSON.parse(text) as T[]));
const arrayText = (values: readonly unknown[] | null | undefined): string | null =>
  values == null ? null : JSON.stringify(values);

type KeyColumns = 'id' | 'name' | 'prefix' | 'created_at' | 'last_used_at' | 'expires_at' | 'scopes' | 'list_ids';

function toKeyRecord(row: Pick<ApiKeyRow, KeyColumns>): KeyRecord {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    expiresAt: row.expires_at,
    scopes: parseArray<KeyScope>(row.scopes),
    listIds: parseArray<number>(row.list_ids),
  };
}

export interface NewKey {
  teamId: string;
  userId: string;
  name: string;
  expiresAt?: string | null;
  /** Null or absent: a key with full power. */
  scopes?: readonly KeyScope[] | null;
  listIds?: readonly number[] | null;
}

export async function insertKey(db: Db, input: NewKey): Promise<{ record: KeyRecord; key: string }> {
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
    scopes: arrayText(input.scopes),
    list_ids: arrayText(input.listIds),
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
  /** The key's name, scopes and lists (issue 33): what its caller's `limits` are made of. */
  name: string;
  scopes: KeyScope[] | null;
  listIds: number[] | null;
}

const keyOwnerByHash = prepared((db, p: { secretHash: string }) =>
  db
    .selectFrom('api_keys as k')
    .leftJoin('team_members as m', (join) =>
      join.onRef('m.team_id', '=', 'k.team_id').onRef('m.user_id', '=', 'k.user_id'),
    )
    .select([
      'k.id',
      'k.secret_hash',
      'k.user_id',
      'k.team_id',
      'k.last_used_at',
      'k.expires_at',
      'm.role',
      'k.name',
      'k.scopes',
      'k.list_ids',
    ])
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
    name: row.name,
    scopes: parseArray<KeyScope>(row.scopes),
    listIds: parseArray<number>(row.list_ids),
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

/**
 * Of the given lists, those of the team the user may limit a key to: a member of, not archived.
 * (lists.repository.ts `usableLists` reads the same; keys sit below lists in the layers.)
 */
export async function listsUsableBy(
  db: Db,
  teamId: string,
  userId: string,
  listIds: readonly number[],
): Promise<Set<number>> {
  if (listIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('list_members as m')
    .innerJoin('task_lists as l', 'l.id', 'm.list_id')
    .select('l.id')
    .where('m.user_id', '=', userId)
    .where('l.team_id', '=', teamId)
    .where('l.is_archived', '=', 0)
    .where('l.id', 'in', listIds)
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
    .select(['id', 'name', 'prefix', 'created_at', 'last_used_at', 'expires_at', 'scopes', 'list_ids'])
    .where('team_id', '=', teamId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute();
  return rows.map(toKeyRecord);
}

/** A key with scopes or lists, and who owns it: what the team's owners and admins see of agents' access. */
export interface AgentKeyRecord extends KeyRecord {
  owner: { id: string; name: string; email: string };
}

/** The team's unrevoked keys that carry scopes or list limits, whoever owns them, newest first. */
export async function limitedKeysOfTeam(db: Db, teamId: string): Promise<AgentKeyRecord[]> {
  const rows = await db
    .selectFrom('api_keys as k')
    .innerJoin('users as u', 'u.id', 'k.user_id')
    .select([
      'k.id',
      'k.name',
      'k.prefix',
      'k.created_at',
      'k.last_used_at',
      'k.expires_at',
      'k.scopes',
      'k.list_ids',
      'u.id as owner_id',
      'u.name as owner_name',
      'u.email as owner_email',
    ])
    .where('k.team_id', '=', teamId)
    .where('k.revoked_at', 'is', null)
    .where((eb) => eb.or([eb('k.scopes', 'is not', null), eb('k.list_ids', 'is not', null)]))
    .orderBy('k.created_at', 'desc')
    .orderBy('k.id')
    .execute();
  return rows.map((row) => ({
    ...toKeyRecord(row),
    owner: { id: row.owner_id, name: row.owner_name, email: row.owner_email },
  }));
}

/** Whether `keyId` is an unrevoked key of the team with scopes or list limits. */
export async function isLimitedKeyOfTeam(db: Db, teamId: string, keyId: string): Promise<boolean> {
  const row = await db
    .selectFrom('api_keys')
    .select('id')
    .where('id', '=', keyId)
    .where('team_id', '=', teamId)
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('scopes', 'is not', null), eb('list_ids', 'is not', null)]))
    .executeTakeFirst();
  return row !== undefined;
}
