/**
 * Task lists: load within the caller's team → authorize (membership) → change and record its
 * realtime event in one transaction. Routes and the CLI both come through here, so neither can
 * skip the checks.
 */
import type { Caller } from '../caller.js';
import type { CreateListBody, UpdateListBody } from '../contract/lists.js';
import { checkIfMatch } from '../http/etag.js';
import { conflict, forbidden, invalidInput, notFound } from '../http/errors.js';
import { isUuid, toId } from '../ids.js';
import { outsideListLimitMessage, withinListLimit } from '../keys/scopes.js';
import type { Store } from '../storage/database.js';
import type { Locked } from '../storage/dialect.js';
import type { Db } from '../storage/schema.js';
import { findMembership, keepMemberships } from '../team/teams.repository.js';
import * as lists from './lists.repository.js';
import type { ListMember, ListRecord } from './lists.repository.js';
import { presentList, type VersionedList } from './lists.presenter.js';
import { recordListEvent } from './list-events.js';
import { addWholeTeam } from './shared-lists.js';

export type { VersionedList };

/** The list, if it is in the caller's team and the caller is a member of it. */
export async function loadListAsMember(db: Db, caller: Caller, rawListId: string): Promise<ListRecord> {
  const listId = toId(rawListId);
  const row = listId === null ? undefined : await lists.findList(db, caller.teamId, listId);
  if (!row) throw notFound(`List ${rawListId} not found.`);
  await checkListMember(db, row, caller);
  return row;
}

/**
 * The list, read under its row lock, if it is in the caller's team and the caller is a member:
 * how every change to a list begins, so that the checks made on it (If-Match, archive state,
 * membership and its count) still hold when the change commits.
 */
async function loadListForChange(trx: Db, caller: Caller, rawListId: string): Promise<Locked<ListRecord>> {
  const listId = toId(rawListId);
  const row = listId === null ? undefined : await lists.findListLocked(trx, caller.teamId, listId);
  if (!row) throw notFound(`List ${rawListId} not found.`);
  await checkListMember(trx, row, caller);
  return row;
}

async function checkListMember(db: Db, list: ListRecord, caller: Caller): Promise<void> {
  if (!(await lists.isListMember(db, list.id, caller.userId))) {
    throw forbidden('You do not have access to this list.');
  }
  if (!withinListLimit(caller, list.id)) throw forbidden(outsideListLimitMessage(list.id));
}

/**
 * The caller's non-archived lists (the spec's collection), or with `archived`, their archived
 * ones; for a key limited to lists, only those of its lists.
 */
export async function listLists(store: Store, caller: Caller, archived = false): Promise<VersionedList[]> {
  const rows = await lists.listsOfMember(store.db, caller.teamId, caller.userId, archived);
  return rows.filter((row) => withinListLimit(caller, row.id)).map(presentList);
}

export async function getList(store: Store, caller: Caller, rawListId: string): Promise<VersionedList> {
  return presentList(await loadListAsMember(store.db, caller, rawListId));
}

export async function createList(store: Store, caller: Caller, input: CreateListBody): Promise<VersionedList> {
  // A new list would be outside the key's lists from the start.
  if (caller.limits?.listIds) throw forbidden('This API key is limited to lists; it cannot create a list.');
  return store.transaction(async (trx) => {
    const row = await lists.insertList(trx, {
      teamId: caller.teamId,
      name: input.name,
      color: input.color ?? 'Green',
      createdBy: caller.userId,
      sharedWithTeam: input.sharedWithTeam,
    });
    await lists.addListMember(trx, row.id, caller.userId);
    // A new row no one else sees until commit is as good as locked.
    if (row.sharedWithTeam) await addWholeTeam(trx, row as Locked<ListRecord>);
    await recordListEvent(trx, row, 'taskList.created');
    return presentList(row);
  });
}

export async function updateList(
  store: Store,
  caller: Caller,
  rawListId: string,
  changes: UpdateListBody,
  ifMatch?: string,
): Promise<VersionedList> {
  return store.transaction(async (trx) => {
    const row = await loadListForChange(trx, caller, rawListId);
    checkIfMatch(ifMatch, row, 'list');
    const { name, color } = changes;
    // Sharing as it already is changes nothing (and tells no one).
    const sharing = changes.sharedWithTeam === row.sharedWithTeam ? undefined : changes.sharedWithTeam;
    if (name === undefined && color === undefined && sharing === undefined) return presentList(row);
    const updated = await lists.updateList(trx, row.id, { name, color, sharedWithTeam: sharing });
    // Stopping sharing keeps every member: it only stops adding newcomers (docs/api.md).
    if (sharing) await addWholeTeam(trx, row);
    await recordListEvent(trx, updated, 'taskList.updated');
    return presentList(updated);
  });
}

/** Archives or unarchives; asking for the state the list is already in succeeds and changes nothing. */
export async function setArchived(
  store: Store,
  caller: Caller,
  rawListId: string,
  archived: boolean,
): Promise<VersionedList> {
  return store.transaction(async (trx) => {
    const row = await loadListForChange(trx, caller, rawListId);
    if (row.isArchived === archived) return presentList(row);
    const updated = await lists.updateList(trx, row.id, { isArchived: archived });
    await recordListEvent(trx, updated, archived ? 'taskList.archived' : 'taskList.unarchived');
    return presentList(updated);
  });
}

export async function listMembers(store: Store, caller: Caller, rawListId: string): Promise<ListMember[]> {
  const row = await loadListAsMember(store.db, caller, rawListId);
  return lists.membersOfList(store.db, caller.teamId, row.id);
}

/** Adds a teammate to a list; `created` is false when they already were a member. */
export async function addMember(
  store: Store,
  caller: Caller,
  rawListId: string,
  userId: string,
): Promise<{ member: ListMember; created: boolean }> {
  return store.transaction(async (trx) => {
    const row = await loadListForChange(trx, caller, rawListId);
    const created = await grantListMembership(trx, row, userId);
    const members = await lists.membersOfList(trx, caller.teamId, row.id);
    return { member: members.find((m) => m.id === userId)!, created };
  });
}

/**
 * Grants membership of a list to a member of the list's team (shared with `admin list-member add`);
 * the members, the new one included, hear `taskList.updated` so the list appears for them. The
 * list is locked by the caller; the membership of the team is kept locked until commit, so a
 * removal from the team cannot slip in between and leave this list membership behind.
 */
export async function grantListMembership(trx: Db, list: Locked<ListRecord>, userId: string): Promise<boolean> {
  const notTeammate = () => invalidInput(`User ${userId} is not a member of this team.`);
  if (!isUuid(userId)) throw notTeammate();
  await keepMemberships(trx, list.teamId, [userId]);
  if (!(await findMembership(trx, list.teamId, userId))) throw notTeammate();
  const added = await lists.addListMember(trx, list.id, userId);
  if (added) await recordListEvent(trx, list, 'taskList.updated');
  return added;
}

export async function removeMember(store: Store, caller: Caller, rawListId: string, userId: string): Promise<void> {
  await store.transaction(async (trx) => {
    const row = await loadListForChange(trx, caller, rawListId);
    await revokeListMembership(trx, row, userId);
  });
}

/**
 * Removes a member; a list keeps at least one, or nobody could ever reach it again. The list is
 * locked by the caller, so two removals cannot both count the other member and leave none. The
 * removed member hears this last `taskList.updated` too, so the list leaves their sidebar.
 */
export async function revokeListMembership(trx: Db, list: Locked<ListRecord>, userId: string): Promise<void> {
  if (!isUuid(userId) || !(await lists.isListMember(trx, list.id, userId))) {
    throw notFound(`User ${userId} is not a member of list ${list.id}.`);
  }
  if (list.sharedWithTeam) {
    throw conflict(
      `List ${list.id} is shared with the whole team, so every member of the team is one of its members: stop sharing it first.`,
    );
  }
  if ((await lists.countListMembers(trx, list.id)) <= 1) {
    throw invalidInput('A list must keep at least one member.');
  }
  await lists.removeListMember(trx, list.id, userId);
  await recordListEvent(trx, list, 'taskList.updated', [userId]);
}

/** The list by id in any team, under its row lock: for the operator, who acts outside any team. */
async function loadListForOperator(trx: Db, rawListId: string): Promise<Locked<ListRecord>> {
  const listId = /^\d+$/.test(rawListId) ? toId(rawListId) : null;
  const list = listId === null ? undefined : await lists.findListById(trx, listId);
  const locked = list && (await lists.findListLocked(trx, list.teamId, list.id));
  if (!locked) throw notFound(`list ${rawListId} not found`);
  return locked;
}

/** `tasklane admin list-member add`: the same rule as the API's, without a caller. */
export function addMemberAsOperator(store: Store, rawListId: string, userId: string): Promise<ListRecord> {
  return store.transaction(async (trx) => {
    const list = await loadListForOperator(trx, rawListId);
    await grantListMembership(trx, list, userId);
    return list;
  });
}

/** `tasklane admin list-member remove`: the same rule as the API's, without a caller. */
export function removeMemberAsOperator(store: Store, rawListId: string, userId: string): Promise<void> {
  return store.transaction(async (trx) => {
    await revokeListMembership(trx, await loadListForOperator(trx, rawListId), userId);
  });
}

/** `tasklane admin list share`: shares the list with its whole team, or with `shared` false stops sharing it. */
export function setSharedAsOperator(store: Store, rawListId: string, shared: boolean): Promise<VersionedList> {
  return store.transaction(async (trx) => {
    const list = await loadListForOperator(trx, rawListId);
    if (list.sharedWithTeam === shared) return presentList(list);
    const updated = await lists.updateList(trx, list.id, { sharedWithTeam: shared });
    if (shared) await addWholeTeam(trx, list);
    await recordListEvent(trx, updated, 'taskList.updated');
    return presentList(updated);
  });
}
