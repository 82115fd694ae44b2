/**
 * What an export reads, in id-ordered pages (keyset: `id > after`, at most PAGE_ROWS rows), so
 * that memory stays flat whatever the team's size. Every read is within the team, and for a
 * `readable` export within the task-access rule (tasks/access.ts `canAccess`), as GET /v1/tasks
 * filters it. Reads run on a read snapshot (storage/snapshot.ts), never on the server's store.
 */
import { sql } from 'kysely';
import type { ExportScope } from '../contract/index.js';
import { canAccess } from '../tasks/access.js';
import { inList, listParam, type ListParam } from '../storage/dialect.js';
import { prepared } from '../storage/prepared.js';
import type { Db, Role } from '../storage/schema.js';

/** Rows per page of each read. */
export const PAGE_ROWS = 500;

/**
 * Who the export reads as: the whole team, or what `userId` may read. `userId` null: the
 * operator's export (`tasklane admin export`), always of the whole team.
 */
export interface ExportReader {
  teamId: string;
  userId: string | null;
  scope: ExportScope;
}

/** The reader's id, for the reads of a `readable` export (which always has one). */
const readerId = (reader: ExportReader): string => reader.userId ?? '';

export interface ExportedMember {
  id: string;
  name: string;
  email: string;
  role: Role;
}

/** The team's name, if the team exists. */
export async function teamName(db: Db, teamId: string): Promise<string | undefined> {
  const row = await db.selectFrom('teams').select('name').where('id', '=', teamId).executeTakeFirst();
  return row?.name;
}

/** A person by id: name and email only (the users table also holds the password hash). */
export async function person(db: Db, userId: string): Promise<{ id: string; name: string; email: string } | undefined> {
  return db.selectFrom('users').select(['id', 'name', 'email']).where('id', '=', userId).executeTakeFirst();
}

/** The team's members after `after` (user id order): names, emails and roles, nothing secret. */
export async function membersPage(db: Db, teamId: string, after: string): Promise<ExportedMember[]> {
  return db
    .selectFrom('team_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.id', 'u.name', 'u.email', 'm.role'])
    .where('m.team_id', '=', teamId)
    .where('m.user_id', '>', after)
    .orderBy('m.user_id')
    .limit(PAGE_ROWS)
    .execute();
}

/** Lists after `after`: all the team's (archived too), or those the reader is a member of. */
export async function listIdsPage(db: Db, reader: ExportReader, after: number): Promise<number[]> {
  let query = db
    .selectFrom('task_lists as l')
    .select('l.id')
    .where('l.team_id', '=', reader.teamId)
    .where('l.id', '>', after);
  if (reader.scope === 'readable') {
    query = query.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('list_members as m')
          .select(sql.lit(1).as('one'))
          .whereRef('m.list_id', '=', 'l.id')
          .where('m.user_id', '=', readerId(reader)),
      ),
    );
  }
  const rows = await query.orderBy('l.id').limit(PAGE_ROWS).execute();
  return rows.map((r) => r.id);
}

/** Tasks after `after`: all the team's, or those the reader may read (the task-access rule). */
export async function taskIdsPage(db: Db, reader: ExportReader, after: number): Promise<number[]> {
  let query = db
    .selectFrom('tasks as t')
    .select('t.id')
    .where('t.team_id', '=', reader.teamId)
    .where('t.id', '>', after);
  if (reader.scope === 'readable') query = query.where((eb) => canAccess(eb, readerId(reader)));
  const rows = await query.orderBy('t.id').limit(PAGE_ROWS).execute();
  return rows.map((r) => r.id);
}

/** A task's links as the whole team sees them: every list it is on, its parent and its subtasks. */
export interface WholeTaskLinks {
  taskLists: { id: number; name: string }[];
  parent: { id: number; number: number; title: string } | null;
  subtaskCount: number;
}

const listsOfTasks = prepared((db, p: { taskIds: ListParam }) =>
  db
    .selectFrom('task_list_items as i')
    .innerJoin('task_lists as l', 'l.id', 'i.list_id')
    .select(['i.task_id', 'l.id', 'l.name'])
    .where(inList(db, 'i.task_id', p.taskIds))
    .orderBy('i.task_id')
    .orderBy('l.id'),
);

const parentsOfTasks = prepared((db, p: { taskIds: ListParam }) =>
  db
    .selectFrom('tasks as c')
    .innerJoin('tasks as p', 'p.id', 'c.parent_id')
    .select(['c.id as task_id', 'p.id', 'p.number', 'p.title'])
    .where(inList(db, 'c.id', p.taskIds)),
);

const subtaskCounts = prepared((db, p: { taskIds: ListParam }) =>
  db
    .selectFrom('tasks')
    .select((eb) => ['parent_id', eb.fn.countAll().as('n')])
    .where(inList(db, 'parent_id', p.taskIds))
    .groupBy('parent_id'),
);

/**
 * The links of a page of tasks as the whole team sees them (a `team` export), by task id: every
 * list each is on, its parent and its subtasks, whoever the exporter is. The API's detail shows
 * them as its reader may see them; a `readable` export keeps that. Three statements a page, where
 * a task at a time took three a task (most of a team export's reads on PostgreSQL).
 */
export async function wholeTaskLinks(db: Db, taskIds: readonly number[]): Promise<Map<number, WholeTaskLinks>> {
  const links = new Map<number, WholeTaskLinks>(
    taskIds.map((id) => [id, { taskLists: [], parent: null, subtaskCount: 0 }]),
  );
  if (taskIds.length === 0) return links;
  const ids = listParam(db, taskIds);
  for (const { task_id, id, name } of await listsOfTasks(db, { taskIds: ids })) {
    links.get(task_id)?.taskLists.push({ id, name });
  }
  for (const { task_id, ...parent } of await parentsOfTasks(db, { taskIds: ids })) {
    const task = links.get(task_id);
    if (task) task.parent = parent;
  }
  for (const { parent_id, n } of await subtaskCounts(db, { taskIds: ids })) {
    const task = parent_id === null ? undefined : links.get(parent_id);
    if (task) task.subtaskCount = Number(n);
  }
  return links;
}

/** The names of lists by id, whoever may see them (a `team` export's activity entries). */
export async function listNames(
  db: Db,
  listIds: readonly number[],
): Promise<Map<number, { id: number; name: string }>> {
  if (listIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('task_lists')
    .select(['id', 'name'])
    .where('id', 'in', [...listIds])
    .execute();
  return new Map(rows.map((r) => [r.id, r]));
}
