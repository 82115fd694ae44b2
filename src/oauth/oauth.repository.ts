/** oauth_clients and oauth_codes (migration 0029): registered clients, and codes stored only as sha256. */
import type { KeyScope } from '../contract/keys.js';
import type { Db } from '../storage/schema.js';

export interface ClientRecord {
  id: string;
  clientName: string;
  redirectUris: string[];
  createdAt: string;
}

export async function insertClient(db: Db, client: ClientRecord): Promise<void> {
  await db
    .insertInto('oauth_clients')
    .values({
      id: client.id,
      client_name: client.clientName,
      redirect_uris: JSON.stringify(client.redirectUris),
      created_at: client.createdAt,
    })
    .execute();
}

export async function findClient(db: Db, id: string): Promise<ClientRecord | undefined> {
  const row = await db.selectFrom('oauth_clients').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) return undefined;
  return {
    id: row.id,
    clientName: row.client_name,
    redirectUris: JSON.parse(row.redirect_uris) as string[],
    createdAt: row.created_at,
  };
}

export interface NewCode {
  codeHash: string;
  clientId: string;
  teamId: string;
  userId: string;
  scopes: readonly KeyScope[];
  listIds: readonly number[] | null;
  codeChallenge: string;
  redirectUri: string;
  resource: string | null;
  createdAt: string;
  expiresAt: string;
}

export async function insertCode(db: Db, code: NewCode): Promise<void> {
  await db
    .insertInto('oauth_codes')
    .values({
      code_hash: code.codeHash,
      client_id: code.clientId,
      team_id: code.teamId,
      user_id: code.userId,
      scopes: JSON.stringify(code.scopes),
      list_ids: code.listIds === null ? null : JSON.stringify(code.listIds),
      code_challenge: code.codeChallenge,
      redirect_uri: code.redirectUri,
      resource: code.resource,
      created_at: code.createdAt,
      expires_at: code.expiresAt,
      used_at: null,
      key_id: null,
    })
    .execute();
}

export interface CodeRecord extends Omit<NewCode, 'createdAt'> {
  usedAt: string | null;
  keyId: string | null;
}

/** The code with this hash, used or not (a replay must be told from an unknown code). */
export async function findCode(db: Db, codeHash: string): Promise<CodeRecord | undefined> {
  const row = await db.selectFrom('oauth_codes').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
  if (!row) return undefined;
  return {
    codeHash: row.code_hash,
    clientId: row.client_id,
    teamId: row.team_id,
    userId: row.user_id,
    scopes: JSON.parse(row.scopes) as KeyScope[],
    listIds: row.list_ids === null ? null : (JSON.parse(row.list_ids) as number[]),
    codeChallenge: row.code_challenge,
    redirectUri: row.redirect_uri,
    resource: row.resource,
    expiresAt: row.expires_at,
    usedAt: row.used_at,
    keyId: row.key_id,
  };
}

/**
 * Marks the code used, if nobody has: true for the one caller that did. The condition on
 * `used_at` makes two exchanges racing on one code (two processes) yield one token.
 */
export async function claimCode(db: Db, codeHash: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('oauth_codes')
    .set({ used_at: at })
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Records the access token a code was exchanged for, so that a replay of the code can revoke it. */
export async function setCodeKey(db: Db, codeHash: string, keyId: string): Promise<void> {
  await db.updateTable('oauth_codes').set({ key_id: keyId }).where('code_hash', '=', codeHash).execute();
}

/**
 * A person allowed the client now: it is in use (`pruneUnusedClients`). False when the client is
 * gone (pruned since the request was checked); on PostgreSQL the update locks the row, so a prune
 * that comes later finds it allowed and leaves it.
 */
export async function markClientAuthorized(db: Db, clientId: string, at: string): Promise<boolean> {
  const marked = await db
    .updateTable('oauth_clients')
    .set({ authorized_at: at })
    .where('id', '=', clientId)
    .executeTakeFirst();
  return Number(marked.numUpdatedRows) === 1;
}

/** Deletes the clients never allowed that registered before `before` (their codes go with them); answers how many. */
export async function pruneClients(db: Db, before: Date): Promise<number> {
  const gone = await db
    .deleteFrom('oauth_clients')
    .where('authorized_at', 'is', null)
    .where('created_at', '<', before.toISOString())
    .executeTakeFirst();
  return Number(gone.numDeletedRows);
}

/** Deletes codes that expired before `before` (kept a day after, so a late replay still revokes its token). */
export async function pruneCodes(db: Db, before: Date): Promise<void> {
  await db.deleteFrom('oauth_codes').where('expires_at', '<', before.toISOString()).execute();
}
