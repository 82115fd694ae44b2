/**
 * Who manages the team: its owners and admins (its members, invitations and workflow statuses).
 * Every service that a manager alone may use checks here, in the change's transaction.
 */
import type { Caller } from '../caller.js';
import type { Role } from '../contract/enums.js';
import { forbidden } from '../http/errors.js';
import { withPrologue, type Store } from '../storage/database.js';

/** Owners and admins manage the team: its members, invitations and workflow statuses. */
export const managesTeam = (role: Role | null | undefined): boolean => role === 'owner' || role === 'admin';

/** Whether a member with `role` may invite someone as `invited`: owners anyone, admins admins and members. */
export const mayInviteAs = (role: Role | null | undefined, invited: Role): boolean =>
  role === 'owner' || (role === 'admin' && invited !== 'owner');

/** 403 unless the caller is one of the team's owners or admins; `what` completes "… can manage". */
export function requireManager(caller: { role: Role | null | undefined }, what: string): void {
  if (!managesTeam(caller.role)) throw forbidden(`Only the team's owners and admins can manage ${what}.`);
}

/**
 * `store` whose every transaction refuses (403) unless the caller manages the team, with the role
 * as read in that transaction (auth/caller-check.ts reads it again first): the check for a
 * change an owner or admin makes through a function the operator's CLI shares.
 */
export const asManager = (store: Store, caller: Caller, what: string): Store =>
  withPrologue(store, () => requireManager(caller, what));
