import { byNameThenId } from '../ids.js';
import { readLocked, type Locked } from '../storage/dialect.js';
import type { ListColor } from '../contract/enums.js';
import type { Member } from '../contract/team.js';
import type { Db, ListRow } from '../storage/schema.js';

/** A list as the rest of the code sees it; `version` is the basis of its ETag. */
export interface ListRecord {
  id: number;
  teamId: string;
  name: string;
  color: ListColor;
  isArchived: boolean;
  /** Every member of the team is a member of the list (shared-lists.ts). */
  sharedWithTeam: boolean;
  version: number;
}

type ListColumns = Pick<ListRow, 'id' | 'team_id' | 'name' | 'color' | 'is_archived' | 'shared_with_team' | 'version'>;

function toListRecord(row: ListColumns): ListRecord {
  return {
    id: row.id,
    teamId: row.team_id,
    name: row.name,
    color: row.color,
    isArchived: Boolean(row.is_archived),
    sharedWithTeam: Boolean(row.shared_with_team),
    version: row.version,
  };
}

/** A list of this team, or undefined: another team's list is indistinguishable from a missing one. */
export async function findList(db: Db, teamId: string, listId: number): Promise<ListRecord | undefined> {
  const row = await db
    .selectFrom('task_lists')
    .selectAll()
    .where('id', '=', listId)
    .where('team_id', '=', teamId)
    .executeTakeFirst();
  return row && toListRecord(row);
}

/**
 * `findList` under the list's row lock, held until the transaction ends: how every change to a
 * list, its archive state or its members begins. A concurrent change of the same list waits
 * here, then reads what the one before it committed.
 */
export async function findListLocked(trx: Db, teamId: string, listId: number): Promise<Locked<ListRecord> | undefined> {
  const row = trx.selectFrom('task_lists').select('id').where('id', '=', listId).where('team_id', '=', teamId);
  return readLocked(trx, row, 'change', () => findList(trx, teamId, listId));
}

export async function isListMember(db: Db, listId: number, userId: string): Promise<boolean> {
  const row = await db
    .selectFrom('list_members')
    .select('list_id')
    .where('list_id', '=', listId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row !== undefined;
}

/** The user's lists in the team that are (not) archived, oldest first. */
export async function listsOfMember(db: Db, teamId: string, userId: string, archived = false): Promise<ListRecord[]> {
  const rows = await db
    .selectFrom('list_members as m')
    .innerJoin('task_lists as l', 'l.id', 'm.list_id')
    .select(['l.id', 'l.team_id', 'l.name', 'l.color', 'l.is_archived', 'l.shared_with_team', 'l.version'])
    .where('m.user_id', '=', userId)
    .where('l.team_id', '=', teamId)
    .where('l.is_archived', '=', archived ? 1 : 0)
    .orderBy('l.id')
    .execute();
  return rows.map(toListRecord);
}

/** Of the given list ids, those of the team that the user is a member of and that are not archived. */
/** Of the given lists, those the user may attach tasks to (member of, not archived), by id, with their names. */
export async function usableLists(
  db: Db,
  teamId: string,
  userId: string,
  listIds: readonly number[],
): Promise<Map<number, string>> {
  if (listIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('list_members as m')
    .innerJoin('task_lists as l', 'l.id', 'm.list_id')
    .select(['l.id', 'l.name'])
    .where('m.user_id', '=', userId)
    .where('l.team_id', '=', teamId)
    .where('l.is_archived', '=', 0)
    .where('l.id', 'in', listIds)
    .orderBy('l.id')
    .execute();
  return new Map(rows.map((r) => [r.id, r.name]));
}

export async function insertList(
  db: Db,
  input: { teamId: string; name: string; color: ListColor; createdBy: string; sharedWithTeam?: boolean },
): Promise<ListRecord> {
  const now = new Date().toISOString();
  const row = await db
    .insertInto('task_lists')
    .values({
      team_id: input.teamId,
      name: input.name,
      color: input.color,
      created_by: input.createdBy,
      // Left to the column's default unless shared, so a plain list's insert is as it was.
      ...(input.sharedWithTeam && { shared_with_team: 1 }),
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toListRecord(row);
}

/** Applies the given changes and bumps the version; returns the list as it now is. */
export async function updateList(
  db: Db,
  listId: number,
  changes: { name?: string; color?: ListColor; isArchived?: boolean; sharedWithTeam?: boolean },
): Promise<ListRecord> {
  const { isArchived, sharedWithTeam, ...columns } = changes;
  const row = await db
    .updateTable('task_lists')
    .set((eb) => ({
      ...columns,
      ...(isArchived !== undefined && { is_archived: isArchived ? 1 : 0 }),
      ...(sharedWithTeam !== undefined && { shared_with_team: sharedWithTeam ? 1 : 0 }),
      updated_at: new Date().toISOString(),
      version: eb('version', '+', 1),
    }))
    .where('id', '=', listId)
    .returningAll()
    .executeTakeFirstOrThrow();
  return toListRecord(row);
}

export type ListMember = Member;

/** Members of a list with their role in the team, by name. */
export async function membersOfList(db: Db, teamId: string, listId: number): Promise<ListMember[]> {
  const members = await db
    .selectFrom('list_members as lm')
    .innerJoin('users as u', 'u.id', 'lm.user_id')
    .innerJoin('team_members as tm', (join) =>
      join.onRef('tm.user_id', '=', 'lm.user_id').on('tm.team_id', '=', teamId),
    )
    .select(['u.id', 'u.name', 'u.email', 'tm.role'])
    .where('lm.list_id', '=', listId)
    .execute();
  return members.sort(byNameThenId);
}

/** Grants membership; returns false when the user already was a member. */
export async function addListMember(db: Db, listId: number, userId: string): Promise<boolean> {
  const result = await db
    .insertInto('list_members')
    .values({ list_id: listId, user_id: userId, created_at: new Date().toISOString() })
    .onConflict((oc) => oc.columns(['list_id', 'user_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function removeListMember(db: Db, listId: number, userId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('list_members')
    .where('list_id', '=', listId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function countListMembers(db: Db, listId: number): Promise<number> {
  const row = await db
    .selectFrom('list_members')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('list_id', '=', listId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * The team's lists that have no member (a member's removal can leave a list so), archived ones
 * too, oldest first: nobody can reach them through the list endpoints any more.
 */
export async function listsWithoutMembers(db: Db, teamId: string): Promise<ListRecord[]> {
  const rows = await db
    .selectFrom('task_lists as l')
    .select(['l.id', 'l.team_id', 'l.name', 'l.color', 'l.is_archived', 'l.shared_with_team', 'l.version'])
    .where('l.team_id', '=', teamId)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('list_members as m').select('m.list_id').whereRef('m.list_id', '=', 'l.id'))),
    )
    .orderBy('l.id')
    .execute();
  return rows.map(toListRecord);
}

/** Any team's list by id: for the operator's `admin` commands only, never for API callers. */
export async function findListById(db: Db, listId: number): Promise<ListRecord | undefined> {
  const row = await db.selectFrom('task_lists').selectAll().where('id', '=', listId).executeTakeFirst();
  return row && toListRecord(row);
}

/** Ids of the list's members: the audience of its realtime events. */
export async function memberIdsOfList(db: Db, listId: number): Promise<string[]> {
  const rows = await db.selectFrom('list_members').select('user_id').where('list_id', '=', listId).execute();
  return rows.map((r) => r.user_id);
}

/** Ids of the team's lists shared with the whole team, archived ones too, oldest first. */
export async function sharedListIds(db: Db, teamId: string): Promise<number[]> {
  const rows = await db
    .selectFrom('task_lists')
    .select('id')
    .where('team_id', '=', teamId)
    .where('shared_with_team', '=', 1)
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

/** Makes each of the users a member of the list; returns those who were not one before. */
export async function addListMembers(db: Db, listId: number, userIds: readonly string[]): Promise<string[]> {
  if (userIds.length === 0) return [];
  const before = new Set(await memberIdsOfList(db, listId));
  const added = userIds.filter((id) => !before.has(id));
  if (added.length === 0) return [];
  const createdAt = new Date().toISOString();
  await db
    .insertInto('list_members')
    .values(added.map((userId) => ({ list_id: listId, user_id: userId, created_at: createdAt })))
    .onConflict((oc) => oc.columns(['list_id', 'user_id']).doNothing())
    .execute();
  return added;
}
