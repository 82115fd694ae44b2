/**
 * Whole-database checks for the crash tests: the engine's own integrity check, and rules tasklane's
 * writes must keep whatever happens (no orphan rows, unique gap-free numbering, an outbox that
 * matches the tasks). Each returns the problems it found, empty when all is well.
 */
import { sql } from 'kysely';
import type { Store } from '../src/storage/database.js';

/**
 * SQLite: `PRAGMA integrity_check` says ok and `PRAGMA foreign_key_check` finds nothing.
 * PostgreSQL: amcheck verifies every btree index (with its parent links and that every heap tuple
 * is indexed) and every table's heap. amcheck is not a trusted extension: this needs a superuser.
 */
export async function engineIntegrityProblems(store: Store): Promise<string[]> {
  const { db } = store;
  if (store.dialect === 'sqlite') {
    const integrity = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(db);
    const foreignKeys = await sql<Record<string, unknown>>`pragma foreign_key_check`.execute(db);
    return [
      ...integrity.rows.filter((row) => row.integrity_check !== 'ok').map((row) => row.integrity_check),
      ...foreignKeys.rows.map((row) => `foreign key violation: ${JSON.stringify(row)}`),
      ...(await titleIndexProblems(store)),
    ];
  }
  await sql`create extension if not exists amcheck`.execute(db);
  const indexes = await sql<{ oid: number; name: string }>`
    select c.oid, n.nspname || '.' || c.relname as name
    from pg_index i
    join pg_class c on c.oid = i.indexrelid
    join pg_am a on a.oid = c.relam
    join pg_namespace n on n.oid = c.relnamespace
    where a.amname = 'btree' and i.indisvalid and i.indisready and c.relpersistence <> 't'`.execute(db);
  const problems: string[] = [];
  if (indexes.rows.length === 0) problems.push('amcheck found no btree index to check');
  for (const index of indexes.rows) {
    try {
      await sql`select bt_index_parent_check(${index.oid}::regclass, true)`.execute(db);
    } catch (error) {
      problems.push(`index ${index.name}: ${(error as Error).message}`);
    }
  }
  const tables = await sql<{ oid: number; name: string }>`
    select c.oid, n.nspname || '.' || c.relname as name
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('r', 'm', 't') and c.relpersistence <> 't'`.execute(db);
  for (const table of tables.rows) {
    const corrupt = await sql<Record<string, unknown>>`select * from verify_heapam(${table.oid}::regclass)`.execute(db);
    for (const row of corrupt.rows) problems.push(`table ${table.name}: ${JSON.stringify(row)}`);
  }
  return problems;
}

/**
 * SQLite: the titles' FTS5 index (migration 0011) holds exactly the trigrams of tasks.title_search,
 * row for row (FTS5's integrity-check with rank 1 compares an external-content index with its table).
 */
export async function titleIndexProblems(store: Store): Promise<string[]> {
  if (store.dialect !== 'sqlite') return [];
  try {
    await sql`insert into tasks_title_fts (tasks_title_fts, rank) values ('integrity-check', 1)`.execute(store.db);
    return [];
  } catch (error) {
    return [`the title search index disagrees with tasks: ${(error as Error).message}`];
  }
}

/** Queries that must return no rows; each names the rule it checks. */
const MUST_BE_EMPTY: Record<string, string> = {
  'assignee of a missing task': `select a.task_id from task_assignees a left join tasks t on t.id = a.task_id where t.id is null`,
  'assignee who is not a member of the task team': `select a.task_id from task_assignees a join tasks t on t.id = a.task_id
     left join team_members m on m.team_id = t.team_id and m.user_id = a.user_id where m.user_id is null`,
  'list item of a missing task': `select i.task_id from task_list_items i left join tasks t on t.id = i.task_id where t.id is null`,
  'list item in another team or a missing list': `select i.task_id from task_list_items i join tasks t on t.id = i.task_id
     left join task_lists l on l.id = i.list_id and l.team_id = t.team_id where l.id is null`,
  // List items carry copies of their task's priority and completion (migration 0005).
  'list item whose copied priority or completion differs from its task': `select i.task_id, i.list_id
     from task_list_items i join tasks t on t.id = i.task_id join task_statuses s on s.id = t.status_id
     where i.is_completed <> s.is_completed or coalesce(i.priority, '') <> coalesce(t.priority, '')`,
  'list member of a missing list': `select m.list_id from list_members m left join task_lists l on l.id = m.list_id where l.id is null`,
  'list member who is not a member of the list team': `select m.list_id from list_members m join task_lists l on l.id = m.list_id
     left join team_members tm on tm.team_id = l.team_id and tm.user_id = m.user_id where tm.user_id is null`,
  'list without members': `select l.id from task_lists l where not exists (select 1 from list_members m where m.list_id = l.id)`,
  'subtask of a missing task': `select t.id from tasks t left join tasks p on p.id = t.parent_id and p.team_id = t.team_id
     where t.parent_id is not null and p.id is null`,
  'task with a status of another team': `select t.id from tasks t left join task_statuses s on s.id = t.status_id and s.team_id = t.team_id
     where s.id is null`,
  'task number used twice in a team': `select team_id, number from tasks group by team_id, number having count(*) > 1`,
  'task number above its team counter': `select t.id from tasks t join teams tm on tm.id = t.team_id where t.number > tm.task_counter or t.number < 1`,
  'recipient of a missing event': `select r.event_id from event_recipients r left join events e on e.id = r.event_id where e.id is null`,
  'event without recipients': `select e.id from events e where not exists (select 1 from event_recipients r where r.event_id = e.id)
     and not exists (select 1 from event_audiences a where a.event_id = e.id)`,
  // A list snapshot (migration 0020) is written once and read by every event that names it.
  'event naming an empty list snapshot': `select a.event_id from event_audiences a
     where not exists (select 1 from list_audience_members m where m.audience_id = a.audience_id)`,
  // The snapshot a list's changes name must be its members as they are now.
  'list whose current snapshot is not its members': `select c.list_id from list_current_audiences c
     where exists (select user_id from list_members where list_id = c.list_id
                   except select user_id from list_audience_members where audience_id = c.audience_id)
        or exists (select user_id from list_audience_members where audience_id = c.audience_id
                   except select user_id from list_members where list_id = c.list_id)`,
  // Each event bumps its team's counter in the same transaction, and nothing is pruned within the
  // hour a test runs, so a team's events are numbered exactly 1..event_counter.
  'team whose events are not numbered 1..event_counter': `select tm.id from teams tm
     left join (select team_id, count(*) as n, count(distinct seq) as d, max(seq) as top from events group by team_id) e
       on e.team_id = tm.id
     where coalesce(e.n, 0) <> tm.event_counter or coalesce(e.d, 0) <> tm.event_counter or coalesce(e.top, 0) <> tm.event_counter`,
};

/** Task and list rows against their events: each change wrote exactly its event, in its transaction. */
async function outboxProblems(store: Store): Promise<string[]> {
  const { db } = store;
  const events = await db.selectFrom('events').select(['team_id', 'type', 'data']).execute();
  const count = new Map<string, number>();
  for (const event of events) {
    const data = JSON.parse(event.data) as { taskId?: number; listId?: number };
    const key = `${event.type} ${data.taskId ?? data.listId}`;
    count.set(key, (count.get(key) ?? 0) + 1);
  }
  const n = (type: string, id: number) => count.get(`${type} ${id}`) ?? 0;
  const problems: string[] = [];
  const tasks = await db.selectFrom('tasks').select(['id', 'version']).execute();
  const live = new Set(tasks.map((task) => task.id));
  for (const task of tasks) {
    if (n('task.created', task.id) !== 1)
      problems.push(`task ${task.id} has ${n('task.created', task.id)} created events`);
    if (n('task.deleted', task.id) !== 0) problems.push(`task ${task.id} exists but has a deleted event`);
    // Every committed change bumps the version once and writes one task.updated event.
    if (n('task.updated', task.id) !== Number(task.version) - 1) {
      problems.push(`task ${task.id} is at version ${task.version} with ${n('task.updated', task.id)} updated events`);
    }
  }
  for (const [key, times] of count) {
    const [type, id] = key.split(' ');
    if (type === 'task.created' && !live.has(Number(id)) && n('task.deleted', Number(id)) !== 1) {
      problems.push(`task ${id} is gone with ${n('task.deleted', Number(id))} deleted events (created ${times}×)`);
    }
  }
  const lists = await db.selectFrom('task_lists').select('id').execute();
  for (const list of lists) {
    if (n('taskList.created', list.id) !== 1)
      problems.push(`list ${list.id} has ${n('taskList.created', list.id)} created events`);
  }
  if (lists.length !== [...count.keys()].filter((key) => key.startsWith('taskList.created ')).length) {
    problems.push('a taskList.created event names a list that does not exist');
  }
  return problems;
}

/** Every rule above, over the whole database. */
export async function consistencyProblems(store: Store): Promise<string[]> {
  const problems: string[] = [];
  for (const [rule, query] of Object.entries(MUST_BE_EMPTY)) {
    const { rows } = await sql.raw<Record<string, unknown>>(query).execute(store.db);
    if (rows.length > 0) problems.push(`${rule}: ${JSON.stringify(rows.slice(0, 5))}`);
  }
  return [...problems, ...(await outboxProblems(store))];
}
