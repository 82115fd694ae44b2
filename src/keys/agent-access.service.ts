/**
 * Agents' access (issue 33): the team's owners and admins see every key of the team that carries
 * scopes or list limits, whoever owns it, and revoke any of them as its owner would.
 */
import type { Caller } from '../caller.js';
import type { AgentKey } from '../contract/keys.js';
import type { Store } from '../storage/database.js';
import { asManager, requireManager } from '../team/roles.js';
import { presentAgentKey } from './keys.presenter.js';
import * as keys from './keys.repository.js';
import { revokeTeamKey } from './keys.service.js';

const WHAT = "agents' access";

/** The team's keys with scopes or list limits, newest first; 403 for a plain member. */
export async function agentKeys(store: Store, caller: Caller): Promise<AgentKey[]> {
  requireManager(caller, WHAT);
  return (await keys.limitedKeysOfTeam(store.db, caller.teamId)).map(presentAgentKey);
}

/** Revokes a key of the team with scopes or list limits; any other key is a 404, as if missing. */
export async function revokeAgentKey(store: Store, caller: Caller, keyId: string): Promise<void> {
  await revokeTeamKey(asManager(store, caller, WHAT), caller.teamId, keyId, (trx) =>
    keys.isLimitedKeyOfTeam(trx, caller.teamId, keyId),
  );
}
