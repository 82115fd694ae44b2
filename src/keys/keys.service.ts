/**
 * API keys: a signed-in user's own keys (the web app's settings) and the operator's keys for any
 * member (`tasklane admin key …`). The secret is shown once, in the answer that creates it.
 */
import type { Caller } from '../caller.js';
import { endedAccess } from '../changes/publisher.js';
import {
  AGENT_SCOPES,
  KEY_SCOPES,
  READ_ONLY_SCOPES,
  type ApiKey,
  type CreatedKey,
  type CreateKeyBody,
  type KeyScope,
} from '../contract/keys.js';
import { conflict, invalidInput, notFound } from '../http/errors.js';
import { isUuid } from '../ids.js';
import { requireSession } from '../sessions/sessions.service.js';
import { afterCommit, type Store } from '../storage/database.js';
import type { Db } from '../storage/schema.js';
import { findMembership } from '../team/teams.repository.js';
import { ExpiryError, resolveExpiry, type ExpiryNames, type ExpiryRequest } from './key-expiry.js';
import { presentCreatedKey, presentKey } from './keys.presenter.js';
import * as keys from './keys.repository.js';

const WHAT = 'Managing API keys';
const BODY_NAMES: ExpiryNames = { expiresAt: 'expiresAt', expiresInDays: 'expiresInDays' };

/** The expiry to store, or a 400 naming the option or field the caller used. */
function expiryOf(request: ExpiryRequest, names: ExpiryNames): string | null {
  try {
    return resolveExpiry(request, names);
  } catch (error) {
    if (error instanceof ExpiryError) throw invalidInput(error.message);
    throw error;
  }
}

/** A new key for the member, in `db` (a transaction when it must commit with other changes). */
export function issueKey(db: Db, input: keys.NewKey): Promise<{ record: keys.KeyRecord; key: string }> {
  return keys.insertKey(db, input);
}

const PRESETS: Record<NonNullable<CreateKeyBody['preset']>, readonly KeyScope[]> = {
  readOnly: READ_ONLY_SCOPES,
  agent: AGENT_SCOPES,
};

/** The scopes a new key asks for (`scopes` or `preset`), or null for a key with full power; else a 400 saying why. */
export function scopesOf(body: Pick<CreateKeyBody, 'scopes' | 'preset'>): KeyScope[] | null {
  if (body.scopes !== undefined && body.preset !== undefined) {
    throw invalidInput('Give scopes or preset, not both.');
  }
  if (body.preset !== undefined) return [...PRESETS[body.preset]];
  if (body.scopes === undefined) return null;
  if (body.scopes.length === 0) {
    throw invalidInput(
      `scopes must hold at least one scope (${KEY_SCOPES.join(', ')}); leave it out for a key without scopes.`,
    );
  }
  const unknown = body.scopes.filter((scope) => !(KEY_SCOPES as readonly string[]).includes(scope));
  if (unknown.length > 0) {
    throw invalidInput(
      `scopes: ${JSON.stringify(unknown[0])} is not a scope; the scopes are ${KEY_SCOPES.join(', ')}.`,
    );
  }
  const twice = body.scopes.find((scope, i) => body.scopes!.indexOf(scope) !== i);
  if (twice !== undefined) throw invalidInput(`scopes: ${twice} is given twice.`);
  // In the contract's order, so that a key's scopes read the same however they were asked for.
  return KEY_SCOPES.filter((scope) => body.scopes!.includes(scope));
}

/** The lists a new key is limited to, each one the creator may use; null: every list. */
async function listLimitOf(
  db: Db,
  caller: Pick<Caller, 'teamId' | 'userId'>,
  listIds: number[] | undefined,
): Promise<number[] | null> {
  if (listIds === undefined) return null;
  if (listIds.length === 0) {
    throw invalidInput('listIds must name at least one list; leave it out for a key that sees every list.');
  }
  const twice = listIds.find((id, i) => listIds.indexOf(id) !== i);
  if (twice !== undefined) throw invalidInput(`listIds: ${twice} is given twice.`);
  const usable = await keys.listsUsableBy(db, caller.teamId, caller.userId, listIds);
  const refused = listIds.find((id) => !usable.has(id));
  if (refused !== undefined) {
    throw invalidInput(`listIds: ${refused} is not a list you are a member of, or it is archived.`);
  }
  return [...listIds].sort((a, b) => a - b);
}

/** The signed-in user's keys in their team, expired ones too, newest first. */
export async function ownKeys(store: Store, caller: Caller): Promise<ApiKey[]> {
  requireSession(caller, WHAT);
  return (await keys.keysOf(store.db, caller.teamId, caller.userId)).map(presentKey);
}

export async function createOwnKey(store: Store, caller: Caller, body: CreateKeyBody): Promise<CreatedKey> {
  requireSession(caller, WHAT);
  const { name } = body;
  const expiresAt = expiryOf({ expiresAt: body.expiresAt, expiresInDays: body.expiresInDays }, BODY_NAMES);
  const scopes = scopesOf(body);
  const { record, key } = await store.transaction(async (trx) => {
    // A list archived or left later narrows nothing but what the key sees: the limit is only ever
    // added to the task-access rule, never a way in.
    const listIds = await listLimitOf(trx, caller, body.listIds);
    return issueKey(trx, { teamId: caller.teamId, userId: caller.userId, name, expiresAt, scopes, listIds });
  });
  return presentCreatedKey(record, key);
}

/** Revokes one of the caller's own keys; any other key id is a 404, as if it did not exist. */
export async function revokeOwnKey(store: Store, caller: Caller, keyId: string): Promise<void> {
  requireSession(caller, WHAT);
  await revokeTeamKey(store, caller.teamId, keyId, async (trx) =>
    (await keys.keysOf(trx, caller.teamId, caller.userId)).some((k) => k.id === keyId),
  );
}

/**
 * The one revocation a caller in a team makes: `keyId`, if `mayRevoke` holds for it, is revoked
 * in one transaction, and every process hears `endedAccess` after commit, so open streams close
 * at once; any other id is a 404, as if it did not exist.
 */
export async function revokeTeamKey(
  store: Store,
  teamId: string,
  keyId: string,
  mayRevoke: (trx: Db) => Promise<boolean>,
): Promise<void> {
  await store.transaction(async (trx) => {
    if (!isUuid(keyId) || !(await mayRevoke(trx)) || !(await keys.revokeKey(trx, keyId))) {
      throw notFound(`API key ${keyId} not found.`);
    }
    afterCommit(trx, () => endedAccess.publish({ teamId }));
  });
}

/**
 * The operator's key for a member of the team, with scopes and a list limit as a user's own key
 * may have them (checked the same way); `names` are the options the expiry came from, for messages.
 */
export async function createKeyFor(
  store: Store,
  input: { teamId: string; userId: string; name: string; expiry: ExpiryRequest } & Pick<
    CreateKeyBody,
    'scopes' | 'preset' | 'listIds'
  >,
  names: ExpiryNames,
): Promise<CreatedKey> {
  const { teamId, userId, name } = input;
  const expiresAt = expiryOf(input.expiry, names);
  const scopes = scopesOf(input);
  const { record, key } = await store.transaction(async (trx) => {
    if (!(await findMembership(trx, teamId, userId)))
      throw notFound(`user ${userId} is not a member of team ${teamId}`);
    const listIds = await listLimitOf(trx, { teamId, userId }, input.listIds);
    return issueKey(trx, { teamId, userId, name, expiresAt, scopes, listIds });
  });
  return presentCreatedKey(record, key);
}

/** The operator's view of a user's keys in a team: as the user's own settings list them, never the secret. */
export async function keysOfMember(store: Store, teamId: string, userId: string): Promise<ApiKey[]> {
  return (await keys.keysOf(store.db, teamId, userId)).map(presentKey);
}

/** The operator's revocation of any key. */
export async function revokeKey(store: Store, keyId: string): Promise<void> {
  const key = isUuid(keyId) ? await keys.findKey(store.db, keyId) : undefined;
  if (!key) throw notFound(`key ${keyId} not found`);
  if (!(await keys.revokeKey(store.db, keyId))) throw conflict(`key ${keyId} is already revoked`);
  endedAccess.publish({ teamId: key.team_id });
}
