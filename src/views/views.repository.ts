/** Saved views (migration 0019): SQL in, records out. */
import type { TaskFilters, TaskSortParam, ViewLayout } from '../contract/index.js';
import { lockKey, lockRows } from '../storage/dialect.js';
import type { Db } from '../storage/schema.js';

export interface ViewRecord {
  id: number;
  name: string;
  filters: TaskFilters;
  sort: TaskSortParam | null;
  layout: ViewLayout;
  sharedWithTeam: boolean;
  /** null: the team's, its author having left. */
  author: { id: string; name: string; email: string } | null;
  createdAt: string;
  updatedAt: string;
}

export interface ViewFields {
  name: string;
  filters: TaskFilters;
  sort: TaskSortParam | null;
  layout: ViewLayout;
  sharedWithTeam: boolean;
}

/** Views of `teamId` that `userId` sees: their own and the team's shared ones (null: every view of the team). */
function visibleViews(db: Db, teamId: string, userId: string | null) {
  const query = db
    .selectFrom('views as v')
    .leftJoin('users as u', 'u.id', 'v.author_id')
    .select([
      'v.id',
      'v.name',
      'v.filters',
      'v.sort',
      'v.layout',
      'v.shared_with_team',
      'v.created_at',
      'v.updated_at',
      'u.id as author_id',
      'u.name as author_name',
      'u.email as author_email',
    ])
    .where('v.team_id', '=', teamId);
  if (userId === null) return query;
  return query.where((eb) => eb.or([eb('v.author_id', '=', userId), eb('v.shared_with_team', '=', 1)]));
}

type Row = Awaited<ReturnType<ReturnType<typeof visibleViews>['executeTakeFirstOrThrow']>>;

function toRecord(row: Row): ViewRecord {
  return {
    id: row.id,
    name: row.name,
    filters: JSON.parse(row.filters) as TaskFilters,
    sort: row.sort as TaskSortParam | null,
    layout: row.layout as ViewLayout,
    sharedWithTeam: row.shared_with_team === 1,
    author: row.author_id ? { id: row.author_id, name: row.author_name!, email: row.author_email! } : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** By name (ignoring case), then id. */
export async function listViews(db: Db, teamId: string, userId: string): Promise<ViewRecord[]> {
  const rows = await visibleViews(db, teamId, userId).orderBy('v.name_key').orderBy('v.id').execute();
  return rows.map(toRecord);
}

/** The view, if `userId` sees it (theirs, or shared); a missing one and another's private one alike: undefined. */
export async function findView(
  db: Db,
  teamId: string,
  userId: string | null,
  id: number,
): Promise<ViewRecord | undefined> {
  const row = await visibleViews(db, teamId, userId).where('v.id', '=', id).executeTakeFirst();
  return row && toRecord(row);
}

/** Locks the view for a change or deletion (dialect.ts, `lockRows`), before it is read. */
export function lockView(trx: Db, teamId: string, id: number, lock: 'change' | 'delete'): Promise<void> {
  return lockRows(trx, trx.selectFrom('views').select('id').where('team_id', '=', teamId).where('id', '=', id), lock);
}

/**
 * Makes an author's creates run one after another, so each counts the views the one before made.
 * Not a lock on their membership: a role change holds the owners' memberships and then waits for
 * this one's, which would deadlock with a create waiting for theirs.
 */
export const lockAuthor = (trx: Db, teamId: string, userId: string): Promise<void> =>
  lockKey(trx, `views:${teamId}:${userId}`);

export async function countViewsBy(db: Db, teamId: string, authorId: string): Promise<number> {
  const row = await db
    .selectFrom('views')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('team_id', '=', teamId)
    .where('author_id', '=', authorId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

const nameKey = (name: string) => name.toLowerCase();

/** Whether `authorId` has a view of that name (ignoring case) other than `exceptId`. */
export async function nameTaken(
  db: Db,
  teamId: string,
  authorId: string,
  name: string,
  exceptId = 0,
): Promise<boolean> {
  const row = await db
    .selectFrom('views')
    .select('id')
    .where('team_id', '=', teamId)
    .where('author_id', '=', authorId)
    .where('name_key', '=', nameKey(name))
    .where('id', '!=', exceptId)
    .executeTakeFirst();
  return row !== undefined;
}

function columns(fields: Partial<ViewFields>) {
  return {
    ...(fields.name !== undefined && { name: fields.name, name_key: nameKey(fields.name) }),
    ...(fields.filters !== undefined && { filters: JSON.stringify(fields.filters) }),
    ...(fields.sort !== undefined && { sort: fields.sort }),
    ...(fields.layout !== undefined && { layout: fields.layout }),
    ...(fields.sharedWithTeam !== undefined && { shared_with_team: fields.sharedWithTeam ? 1 : 0 }),
  };
}

export async function insertView(
  trx: Db,
  teamId: string,
  authorId: string,
  fields: ViewFields,
  now: string,
): Promise<number> {
  const row = await trx
    .insertInto('views')
    .values({
      team_id: teamId,
      author_id: authorId,
      name: fields.name,
      name_key: nameKey(fields.name),
      filters: JSON.stringify(fields.filters),
      sort: fields.sort,
      layout: fields.layout,
      shared_with_team: fields.sharedWithTeam ? 1 : 0,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function updateView(trx: Db, id: number, fields: Partial<ViewFields>, now: string): Promise<void> {
  await trx
    .updateTable('views')
    .set({ ...columns(fields), updated_at: now })
    .where('id', '=', id)
    .execute();
}

export async function deleteView(trx: Db, id: number): Promise<void> {
  await trx.deleteFrom('views').where('id', '=', id).execute();
}

/**
 * A member leaves the team: their private views go with them; their shared ones stay, the team's
 * now (no author: its owners and admins manage them).
 */
export async function handOverViewsOfLeaver(trx: Db, teamId: string, userId: string): Promise<void> {
  await trx
    .deleteFrom('views')
    .where('team_id', '=', teamId)
    .where('author_id', '=', userId)
    .where('shared_with_team', '=', 0)
    .execute();
  await trx
    .updateTable('views')
    .set({ author_id: null })
    .where('team_id', '=', teamId)
    .where('author_id', '=', userId)
    .execute();
}
