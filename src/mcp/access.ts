/**
 * The line every tool result ends with: whose access the agent acts with, and how far it goes
 * ("as Ada Lovelace (member), key 'Claude' limited to tasks:read,lists:read"), so the agent (and
 * the person reading over its shoulder) never assumes more than was granted.
 */
import type { Caller } from '../caller.js';
import type { Store } from '../storage/database.js';
import { identity } from '../team/team.service.js';

/** The caller's access in words; read once per request (`once` below). */
export async function describeAccess(store: Store, caller: Caller): Promise<string> {
  const who = await identity(store, caller);
  const key = `key '${caller.via?.keyName ?? caller.limits?.name ?? ''}'`;
  const limits = caller.limits;
  const scopes = limits?.scopes ? `limited to ${limits.scopes.join(',')}` : 'with the full access of its user';
  const lists = limits?.listIds ? ` and to lists ${limits.listIds.join(',')}` : '';
  return `as ${who.user.name} (${who.role}) in ${who.team.name}, ${key} ${scopes}${lists}`;
}

/** `work`, run the first time the result is asked for, then remembered. */
export function once<T>(work: () => Promise<T>): () => Promise<T> {
  let result: Promise<T> | undefined;
  return () => (result ??= work());
}
