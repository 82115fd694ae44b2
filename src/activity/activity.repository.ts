/**
 * Task activity rows, read a page at a time by task (changes/activity-entries.ts writes them, in
 * the transaction of the change they record). `changes` is JSON holding people and lists by id (`StoredChanges`); who and what
 * they are is read for each reader (activity.presenter.ts), since a list's name may be shown only
 * to its members.
 */
import { sql, type Expression } from 'kysely';
import { MAX_PAGE_BYTES, SHORTENED_TEXT_LENGTH, type ActivityKind, type Person } from '../contract/index.js';
import {
  jsonDocument,
  jsonHas,
  jsonTextAt,
  jsonWithout,
  textBytes,
  textLength,
  textPrefix,
  withinBytes,
} from '../storage/bounded-reads.js';
import {
  inList,
  listParam,
  pastTaskRow,
  taskRowsPage,
  type ListParam,
  type TaskRowKey,
  type TaskRowsPage,
} from '../storage/dialect.js';
import { prepared } from '../storage/prepared.js';
import type { Db } from '../storage/schema.js';
import type { StoredChanges } from '../changes/activity-entries.js';

/** An entry as read, with its actor (null for an operator's change). */
export interface ActivityRecord {
  id: number;
  taskId: number;
  actor: Person | null;
  kind: ActivityKind;
  changes: StoredChanges;
  createdAt: string;
  /** A description's `from` or `to` is cut to its first SHORTENED_TEXT_LENGTH characters. */
  shortened: boolean;
  /** Made through an agent's key (/mcp, migration 0028); absent otherwise. */
  via?: ActivityVia;
}

/** How an entry's change was made, when an agent made it. */
export interface ActivityVia {
  kind: 'agent';
  keyName: string;
}

type EntryRow = {
  id: number;
  kind: string;
  changes: string;
  created_at: string;
  actor_id: string | null;
  name: string | null;
  email: string | null;
  via: string | null;
};

const entryColumns = ['a.id', 'a.kind', 'a.created_at', 'u.id as actor_id', 'u.name', 'u.email', 'a.via'] as const;

const toRecord = (taskId: number, r: EntryRow, changes: StoredChanges, shortened: boolean): ActivityRecord => ({
  id: r.id,
  taskId,
  actor: r.actor_id === null ? null : { id: r.actor_id, name: r.name!, email: r.email! },
  kind: r.kind as ActivityKind,
  changes,
  createdAt: r.created_at,
  shortened,
  ...(r.via === null ? {} : { via: JSON.parse(r.via) as ActivityVia }),
});

/**
 * Newest first, from the task's (task_id, id) index: the cost of a page does not grow with the
 * task's history. A description's texts (up to 100,000 characters each) come as their first
 * SHORTENED_TEXT_LENGTH characters and their lengths, the rest of `changes` whole, and the page
 * stops at about MAX_PAGE_BYTES of them (`withinBytes`): the database never hands the server the
 * whole texts of a page.
 */
const pageRows = prepared((db, p: { taskId: number; through: number; limit: number }) => {
  // The page's rows, each entry's `changes` parsed once (`doc`); its fields are read from that.
  const rows = db
    .selectFrom('task_activity as a')
    .leftJoin('users as u', 'u.id', 'a.actor_id')
    .select(entryColumns)
    .select(jsonDocument(db, 'a.changes').as('doc'))
    .where('a.task_id', '=', p.taskId)
    .where('a.id', '<=', p.through)
    .orderBy('a.id', 'desc')
    .limit(p.limit);
  const rest = jsonWithout(db, 'e.doc', 'description');
  const from = jsonTextAt(db, 'e.doc', 'description', 'from');
  const to = jsonTextAt(db, 'e.doc', 'description', 'to');
  const fromPrefix = textPrefix(db, from, SHORTENED_TEXT_LENGTH);
  const toPrefix = textPrefix(db, to, SHORTENED_TEXT_LENGTH);
  const bytesOf = (text: Expression<string | null>) => sql<number>`coalesce(${textBytes(db, text)}, 0)`;
  const page = db
    .selectFrom(rows.as('e'))
    .select(['e.id', 'e.kind', 'e.created_at', 'e.actor_id', 'e.name', 'e.email', 'e.via'])
    .select([
      rest.as('changes'),
      jsonHas(db, 'e.doc', 'description').as('has_description'),
      fromPrefix.as('description_from'),
      textLength(db, from).as('description_from_length'),
      toPrefix.as('description_to'),
      textLength(db, to).as('description_to_length'),
      sql<number>`${bytesOf(rest)} + ${bytesOf(fromPrefix)} + ${bytesOf(toPrefix)}`.as('size'),
    ]);
  return withinBytes(db, page, 'desc', MAX_PAGE_BYTES);
});

/**
 * The task's entries with ids up to `through`, newest first: up to `limit` + 1 of them (so the
 * caller knows whether more remain), fewer once their texts pass about MAX_PAGE_BYTES, descriptions
 * shortened. `found`: how many the read found before it stopped at that budget.
 */
export async function activityPage(
  db: Db,
  taskId: number,
  page: { through: number; limit: number },
): Promise<{ records: ActivityRecord[]; found: number }> {
  const rows = await pageRows(db, { taskId, through: page.through, limit: page.limit + 1 });
  const records = rows.map((r) => {
    const changes = JSON.parse(r.changes) as StoredChanges;
    let shortened = false;
    if (r.has_description) {
      changes.description = { from: r.description_from, to: r.description_to };
      shortened = [r.description_from_length, r.description_to_length].some(
        (length) => length !== null && Number(length) > SHORTENED_TEXT_LENGTH,
      );
    }
    return toRecord(taskId, r, changes, shortened);
  });
  return { records, found: Number(rows[0]?.found ?? 0) };
}

const entryRow = prepared((db, p: { taskId: number; entryId: number }) =>
  db
    .selectFrom('task_activity as a')
    .leftJoin('users as u', 'u.id', 'a.actor_id')
    .select(entryColumns)
    .select('a.changes')
    .where('a.task_id', '=', p.taskId)
    .where('a.id', '=', p.entryId),
);

const tasksEntryRowsAfter = prepared((db, p: TaskRowsPage) =>
  pastTaskRow(
    db,
    db
      .selectFrom('task_activity as a')
      .leftJoin('users as u', 'u.id', 'a.actor_id')
      .select(entryColumns)
      .select(['a.task_id', 'a.changes']),
    'a',
    p,
  ),
);

/**
 * The entries of a page of tasks, whole (descriptions not shortened): an export reads them in one
 * statement per `limit` entries, not one per task. By task id then entry id, those after entry
 * `after.id` of task `after.taskId` (0, 0 for the first read), keyset on the (task_id, id) index so
 * that a task with more entries than `limit` continues in the next read. Keep `limit` small: each
 * entry may carry two descriptions of up to 100,000 characters.
 */
export async function wholeActivityOfTasks(
  db: Db,
  taskIds: readonly number[],
  after: TaskRowKey,
  limit: number,
): Promise<ActivityRecord[]> {
  if (taskIds.length === 0) return [];
  const rows = await tasksEntryRowsAfter(db, taskRowsPage(db, taskIds, after, limit));
  return rows.map((row) => toRecord(row.task_id, row, JSON.parse(row.changes) as StoredChanges, false));
}

/** One of the task's entries, whole; undefined when it is not one of the task's. */
export async function findActivity(db: Db, taskId: number, entryId: number): Promise<ActivityRecord | undefined> {
  const [row] = await entryRow(db, { taskId, entryId });
  return row && toRecord(taskId, row, JSON.parse(row.changes) as StoredChanges, false);
}

const peopleRows = prepared((db, p: { userIds: ListParam }) =>
  db
    .selectFrom('users')
    .select(['id', 'name', 'email'])
    .where(inList(db, 'id', p.userIds)),
);

/** The people named in entries, by id: current names, as everywhere a person is shown. */
export async function peopleByIds(db: Db, userIds: readonly string[]): Promise<Map<string, Person>> {
  if (userIds.length === 0) return new Map();
  const rows = await peopleRows(db, { userIds: listParam(db, userIds) });
  return new Map(rows.map((r) => [r.id, r]));
}

const visibleListRows = prepared((db, p: { listIds: ListParam; userId: string }) =>
  db
    .selectFrom('task_lists as l')
    .select(['l.id', 'l.name'])
    .where(inList(db, 'l.id', p.listIds))
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('list_members as m')
          .select('m.list_id')
          .whereRef('m.list_id', '=', 'l.id')
          .where('m.user_id', '=', p.userId),
      ),
    ),
);

/**
 * Of the lists named in entries, those the reader is a member of, by id, with their names: the
 * rule of `taskLists` (task-links.repository.ts), so a list's name never reaches someone outside it.
 */
export async function listsVisibleTo(
  db: Db,
  userId: string,
  listIds: readonly number[],
): Promise<Map<number, { id: number; name: string }>> {
  if (listIds.length === 0) return new Map();
  const rows = await visibleListRows(db, { listIds: listParam(db, listIds), userId });
  return new Map(rows.map((r) => [r.id, r]));
}
