/**
 * A change is authorized against its caller as they are when it runs, not as they were when the
 * request's headers arrived. Authentication (authenticate.ts) runs on the headers; a client can hold the
 * body back for as long as the request timeout allows, and meanwhile be removed or demoted.
 *
 * So every change runs through one gate: for a request that may change something, `request.store`
 * becomes `checkingCaller(…)`, whose transactions first read the caller's membership and
 * credential again (`readCallerStanding`, which keeps the membership locked until commit on
 * PostgreSQL; SQLite's writers run one at a time). A credential that no longer works, or a
 * membership that is gone, refuses the change with the 401 authentication would give now. The
 * role read there replaces the one read at authentication, so a service's role check, made inside
 * its transaction, sees the role as it is: a demoted admin's change is refused with the 403 a
 * member gets. Reads keep the check made on the headers.
 *
 * A change of memberships (the route's `locksOwners`) locks the team's owners before the caller:
 * two such changes then queue on the owners' rows before either holds anything the other needs.
 */
import type { FastifyRequest } from 'fastify';
import type { Caller } from '../caller.js';
import { expiredKeyMessage, UNKNOWN_KEY_MESSAGE } from '../keys/key-auth.js';
import { findKey, hasExpired } from '../keys/keys.repository.js';
import { withPrologue, type Store } from '../storage/database.js';
import type { Db } from '../storage/schema.js';
import { lockOwners, readCallerStanding } from '../team/teams.repository.js';
import { unauthorized } from '../http/errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route changes memberships: its transaction locks the team's owners first (above). */
    locksOwners?: boolean;
  }
}

export const SESSION_ENDED_MESSAGE = 'Your session has ended. Sign in again.';
export const formerMemberMessage = (caller: Pick<Caller, 'credential'>) =>
  caller.credential.kind === 'key'
    ? "This API key's user is no longer a member of its team."
    : 'You are no longer a member of this team.';

/** The methods that may change something: their transactions re-check the caller. */
export const CHANGING_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Reads the caller again in `trx` (see above); refuses with 401, or updates `caller.role`. */
export async function confirmCaller(trx: Db, caller: Caller, options: { locksOwners?: boolean } = {}): Promise<void> {
  if (options.locksOwners) await lockOwners(trx, caller.teamId);
  const now = new Date();
  const standing = await readCallerStanding(trx, caller, now.toISOString());
  if (!standing.credentialLive) {
    if (caller.credential.kind !== 'key') throw unauthorized(SESSION_ENDED_MESSAGE);
    // A key refused: say why, as authentication would (the only extra read is on this path).
    const key = await findKey(trx, caller.credential.id);
    const expired = key && key.revoked_at === null && hasExpired(key.expires_at, now.getTime());
    throw unauthorized(expired ? expiredKeyMessage(key.expires_at!) : UNKNOWN_KEY_MESSAGE);
  }
  if (!standing.role) throw unauthorized(formerMemberMessage(caller));
  caller.role = standing.role;
}

/** `store` whose every transaction starts by confirming `caller` (above); its reads are unchanged. */
export const checkingCaller = (store: Store, caller: Caller, options: { locksOwners?: boolean }): Store =>
  withPrologue(store, (trx) => confirmCaller(trx, caller, options));

/** For a request that may change something, its store from now on checks the caller (above). */
export function checkCallerOnChange(request: FastifyRequest): void {
  if (!CHANGING_METHODS.has(request.method)) return;
  request.store = checkingCaller(request.store, request.caller, {
    locksOwners: request.routeOptions.config.locksOwners,
  });
}
