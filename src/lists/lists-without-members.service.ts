/**
 * Lists left without members. A member's removal from the team takes their list memberships with
 * it, so a list only they were in is left with none, and the list endpoints, which admit only a
 * list's members, can no longer reach it. The team's owners and admins find such lists here and
 * add themselves to one; from then on the published rules apply to them as to any member. This
 * never lets anyone into a list that has members: the join checks, under the list's row lock
 * (which every change of a list's members takes first), that it still has none.
 */
import type { Caller } from '../caller.js';
import { conflict, notFound } from '../http/errors.js';
import { toId } from '../ids.js';
import type { Store } from '../storage/database.js';
import { requireManager } from '../team/roles.js';
import { findMembership, keepMemberships } from '../team/teams.repository.js';
import * as lists from './lists.repository.js';
import { presentList, type VersionedList } from './lists.presenter.js';
import { grantListMembership } from './lists.service.js';

const WHAT = 'lists without members';

/** GET /v1/lists-without-members: the team's lists that have no member, for its owners and admins. */
export async function listsWithoutMembers(store: Store, caller: Caller): Promise<VersionedList[]> {
  requireManager(caller, WHAT);
  return (await lists.listsWithoutMembers(store.db, caller.teamId)).map(presentList);
}

/** POST /v1/lists-without-members/{listId}/join: the caller becomes the list's first member again. */
export async function joinListWithoutMembers(store: Store, caller: Caller, rawListId: string): Promise<VersionedList> {
  requireManager(caller, WHAT);
  return store.transaction(async (trx) => {
    const listId = toId(rawListId);
    const list = listId === null ? undefined : await lists.findListLocked(trx, caller.teamId, listId);
    if (!list) throw notFound(`List ${rawListId} not found.`);
    // The role, read again now that the change is under way (it may have changed since the
    // request was authenticated); the membership is kept until commit, so no removal slips in.
    await keepMemberships(trx, caller.teamId, [caller.userId]);
    requireManager({ role: await findMembership(trx, caller.teamId, caller.userId) }, WHAT);
    if ((await lists.countListMembers(trx, list.id)) > 0) {
      throw conflict(`List ${list.id} has members: ask one of them to add you.`);
    }
    await grantListMembership(trx, list, caller.userId);
    return presentList(list);
  });
}
