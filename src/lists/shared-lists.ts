/**
 * Lists shared with the whole team (`sharedWithTeam`): every member of the team is a member of
 * such a list. Access stays what it always was, list membership; sharing only makes the
 * memberships: for every current member when a list becomes shared (`shareWithTeam`), and for a
 * newcomer in the transaction of their join (`joinSharedLists`: an accepted invitation, `admin
 * member add`). Each new member hears `taskList.updated`, as when added by hand, so open apps
 * show the list at once.
 *
 * A join and a sharing could each miss the other (PostgreSQL's READ COMMITTED: the list reads
 * the members before the newcomer commits, the newcomer reads the shared lists before the list
 * commits), so both lock the team row before they read, and the second sees the first's commit.
 * A team that shares no list pays that lock (and one read) on a join only; task and list writes
 * are unchanged.
 */
import type { Db } from '../storage/schema.js';
import { keptMemberIdsOf, lockTeam } from '../team/teams.repository.js';
import type { Locked } from '../storage/dialect.js';
import { recordListEvent } from './list-events.js';
import * as lists from './lists.repository.js';
import type { ListRecord } from './lists.repository.js';

/**
 * Makes every member of the list's team a member of the locked list; returns who was added. The
 * memberships are kept until commit (a removal from the team in flight commits first, so no list
 * membership outlives its team membership), before the team row is locked: nothing then waits
 * while holding the team row but for someone who joined in that instant.
 */
export async function addWholeTeam(trx: Db, list: Locked<ListRecord>): Promise<string[]> {
  await keptMemberIdsOf(trx, list.teamId);
  await lockTeam(trx, list.teamId);
  // Again, for whoever joined meanwhile (their locks are new; the others' are held already).
  const members = await keptMemberIdsOf(trx, list.teamId);
  return lists.addListMembers(trx, list.id, members);
}

/**
 * In a join's transaction, after the membership is inserted: the newcomer becomes a member of
 * each of the team's shared lists, whose members (the newcomer too) hear `taskList.updated`.
 */
export async function joinSharedLists(trx: Db, teamId: string, userId: string): Promise<number[]> {
  await lockTeam(trx, teamId);
  const joined: number[] = [];
  for (const listId of await lists.sharedListIds(trx, teamId)) {
    if (!(await lists.addListMember(trx, listId, userId))) continue;
    await recordListEvent(trx, { id: listId, teamId }, 'taskList.updated');
    joined.push(listId);
  }
  return joined;
}
