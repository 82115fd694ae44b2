/**
 * The benchmark's data generator. It fills a database DIRECTLY THROUGH THE STORAGE LAYER
 * (Kysely multi-row inserts in large transactions, explicit ids), with the server stopped:
 * it bypasses the HTTP API, its validation, the realtime outbox and the per-team task counter
 * (set once at the end), so a million tasks take a minute rather than hours. Only the schema
 * (migrations) and team creation (`createTeam`, which makes the default statuses) are the
 * application's own code; API keys come from `insertKey`, so they work as usual.
 *
 * Shape (per team, two teams of the same size so that team scoping is exercised; the teams'
 * tasks are interleaved by id, odd ids team A, even ids team B):
 * - 50 members; the first (the owner, who is the benchmark's caller) is a member of all 200
 *   lists, every other member of 20 random lists;
 * - 200 lists; a task's 1–2 lists are drawn from a Zipf(1) distribution over the lists, so list
 *   sizes range from a few tasks to about 9% of the team (which lets every size offer a list
 *   with about 200 open medium-priority tasks);
 * - N tasks: 0–3 assignees (uniform), a random creator, priority none/low/medium/high/urgent
 *   (20% each), 30% in the completed status ("Done"), the rest To do / In progress, 80% with a
 *   due date spread over 2026, half with a description of ~200 characters, 10% subtasks of an
 *   earlier task of the same team; titles "<verb> <adjective> <noun> <n>" from small vocabularies
 *   (each noun in about 10% of titles); RARE_TITLES of them also end in RARE_WORD;
 * - activity (issue 16): every task has its `task.created` entry; one task in BUSY_EVERY of team A
 *   has BUSY_ENTRIES in all (changes of fields, assignees, lists and status, and comments), and
 *   team A's first task has LONG_ENTRIES, for the timeline scenarios;
 * - comments (issue 29): one task in COMMENT_EVERY has a comment naming its noun, and RARE_TITLES
 *   other tasks of each team hold RARE_WORD in their description, RARE_TITLES more in a comment,
 *   so a search for it finds 3 × RARE_TITLES hits per team at any size.
 * A seeded PRNG makes the same size give the same data.
 */
import { sql, type Insertable } from 'kysely';
import { insertKey } from '../src/keys/keys.repository.js';
import { openStore, type Store } from '../src/storage/database.js';
import { setSerialHighWater } from '../src/storage/dialect.js';
import { migrateToLatest } from '../src/storage/migrate.js';
import type { Db, TaskListItemsTable } from '../src/storage/schema.js';
import { createTeam } from '../src/membership/accounts.service.js';
import { PRIORITIES } from '../src/contract/enums.js';
import { seededRng } from '../test/random.js';

export const MEMBERS = 50;
export const LISTS = 200;
const LISTS_PER_MEMBER = 20;
const TASK_ROWS_PER_INSERT = 1_000; // 14 columns: 14,000 parameters (SQLite allows 32,766; PostgreSQL 65,535)
const LINK_ROWS_PER_INSERT = 5_000;
const TASKS_PER_TRANSACTION = 50_000;
const ACTIVITY_ROWS_PER_INSERT = 2_000; // 6 columns: 12,000 parameters
const COMMENT_ROWS_PER_INSERT = 2_000; // 6 columns: 12,000 parameters
/** One task in COMMENT_EVERY has a comment. */
export const COMMENT_EVERY = 4;

/** One task in BUSY_EVERY of team A has a history of BUSY_ENTRIES entries, more than a page of 50. */
export const BUSY_EVERY = 100;
export const BUSY_ENTRIES = 60;
/** Team A's first task has a history of LONG_ENTRIES entries. */
export const LONG_ENTRIES = 10_000;

const VERBS = ['Review', 'Write', 'Fix', 'Plan', 'Update', 'Check', 'Draft', 'Prepare', 'Send', 'Test'];
const ADJECTIVES = ['quarterly', 'urgent', 'new', 'shared', 'final', 'monthly', 'draft', 'public', 'internal', 'small'];
const NOUNS = [
  'report',
  'invoice',
  'roadmap',
  'release',
  'budget',
  'proposal',
  'website',
  'contract',
  'survey',
  'deck',
];
/** The word scenario 3 searches for: one noun, in about 10% of titles. */
export const SEARCH_WORD = 'invoice';
/**
 * The word scenario 8 searches the whole team for: in RARE_TITLES titles of each team, whatever
 * its size, spread evenly from the oldest task to the newest. No other title holds any of its
 * trigrams, so a search that reads only the titles containing it costs the same at any size.
 */
export const RARE_WORD = 'zephyr';
export const RARE_TITLES = 5;

export interface TeamData {
  teamId: string;
  /** members[0] is the owner, member of every list. */
  memberIds: string[];
  listIds: number[];
  statuses: { todo: number; inProgress: number; done: number };
}

export interface Dataset {
  databaseUrl: string;
  tasksPerTeam: number;
  /** The caller: team A's owner, with an API key. */
  key: string;
  userId: string;
  teamA: TeamData;
  teamB: TeamData;
  /** Team A's list whose open (not completed) medium-priority tasks number closest to 200, and that number. */
  filterList: { id: number; openMedium: number };
  /** Tasks of team A assigned to teamA.memberIds[1] whose title contains SEARCH_WORD. */
  searchMatches: number;
  /** Team A's tasks with BUSY_ENTRIES entries, and the one with LONG_ENTRIES (with its first and last entry ids). */
  timeline: { busyTaskIds: number[]; longTask: { id: number; firstEntryId: number; lastEntryId: number } };
  rows: { tasks: number; assignees: number; listItems: number; activity: number; comments: number };
  seconds: number;
}

function zipfSampler(n: number, random: () => number): () => number {
  const cumulative = new Float64Array(n);
  let total = 0;
  for (let k = 0; k < n; k++) cumulative[k] = total += 1 / (k + 1);
  return () => {
    const target = random() * total;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < target) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

async function insertChunked<
  T extends 'tasks' | 'task_assignees' | 'task_list_items' | 'task_activity' | 'task_comments',
>(db: Db, table: T, rows: any[], size: number): Promise<void> {
  for (let i = 0; i < rows.length; i += size) {
    await db
      .insertInto(table)
      .values(rows.slice(i, i + size) as any)
      .execute();
  }
}

async function makeTeam(
  store: Store,
  name: string,
  firstListId: number,
  random: () => number,
): Promise<TeamData & { key: string }> {
  return store.transaction(async (trx) => {
    const team = await createTeam(trx, name);
    const statusRows = await trx
      .selectFrom('task_statuses')
      .select(['id', 'name'])
      .where('team_id', '=', team.id)
      .execute();
    const status = (n: string) => statusRows.find((s) => s.name === n)!.id;
    const now = new Date().toISOString();
    const memberIds = Array.from({ length: MEMBERS }, () => crypto.randomUUID());
    await trx
      .insertInto('users')
      .values(
        memberIds.map((id, i) => ({
          id,
          email: `member${i}.${id.slice(0, 8)}@bench.test`,
          name: `Member ${String(i).padStart(2, '0')}`,
          password_hash: null,
          created_at: now,
        })),
      )
      .execute();
    await trx
      .insertInto('team_members')
      .values(
        memberIds.map((id, i) => ({
          team_id: team.id,
          user_id: id,
          role: i === 0 ? 'owner' : 'member',
          created_at: now,
        })),
      )
      .execute();
    const { key } = await insertKey(trx, { teamId: team.id, userId: memberIds[0]!, name: 'bench' });
    const listIds = Array.from({ length: LISTS }, (_, i) => firstListId + i);
    await trx
      .insertInto('task_lists')
      .values(
        listIds.map((id, i) => ({
          id,
          team_id: team.id,
          name: `List ${i + 1}`,
          color: 'Blue',
          created_by: memberIds[0]!,
          created_at: now,
          updated_at: now,
        })),
      )
      .execute();
    const listMembers: { list_id: number; user_id: string; created_at: string }[] = [];
    for (const id of listIds) listMembers.push({ list_id: id, user_id: memberIds[0]!, created_at: now });
    for (const userId of memberIds.slice(1)) {
      const chosen = new Set<number>();
      while (chosen.size < LISTS_PER_MEMBER) chosen.add(listIds[Math.floor(random() * LISTS)]!);
      for (const id of chosen) listMembers.push({ list_id: id, user_id: userId, created_at: now });
    }
    for (let i = 0; i < listMembers.length; i += 2_000) {
      await trx
        .insertInto('list_members')
        .values(listMembers.slice(i, i + 2_000))
        .execute();
    }
    return {
      teamId: team.id,
      memberIds,
      listIds,
      statuses: { todo: status('To do'), inProgress: status('In progress'), done: status('Done') },
      key,
    };
  });
}

type ActivityRow = {
  id: number;
  task_id: number;
  actor_id: string | null;
  kind: string;
  changes: string;
  created_at: string;
};

/**
 * The history of a busy task after its creation: `count` entries by its team's members, cycling
 * through what people change most (status, assignees, lists, due date, title, priority) and
 * comments, a minute apart. Changes hold what the server would store (activity.repository.ts).
 */
function historyOf(
  taskId: number,
  team: TeamData,
  createdAt: string,
  count: number,
  random: () => number,
  nextId: () => number,
): ActivityRow[] {
  const rows: ActivityRow[] = [];
  const { todo, inProgress, done } = team.statuses;
  const statuses = [
    { id: todo, name: 'To do' },
    { id: inProgress, name: 'In progress' },
    { id: done, name: 'Done' },
  ];
  const person = () => team.memberIds[Math.floor(random() * MEMBERS)]!;
  const list = () => team.listIds[Math.floor(random() * LISTS)]!;
  const start = Date.parse(createdAt);
  for (let i = 1; i <= count; i++) {
    let kind = 'task.updated';
    let changes: object;
    switch (i % 7) {
      case 0:
        changes = { status: { from: statuses[i % 3]!, to: statuses[(i + 1) % 3]! } };
        break;
      case 1:
        changes = { assignees: { from: [person()], to: [person(), person()] } };
        break;
      case 2:
        changes = { taskLists: { from: [list()], to: [list(), list()] } };
        break;
      case 3:
        changes = { dueDate: { from: '2026-03-01', to: '2026-03-08' } };
        break;
      case 4:
        changes = { title: { from: `Old title ${i}`, to: `New title ${i}` } };
        break;
      case 5:
        changes = { priority: { from: 'low', to: 'high' } };
        break;
      default:
        kind = 'comment.created';
        changes = { commentId: { from: null, to: 1_000_000 + i } };
    }
    rows.push({
      id: nextId(),
      task_id: taskId,
      actor_id: person(),
      kind,
      changes: JSON.stringify(changes),
      created_at: new Date(start + i * 60_000).toISOString(),
    });
  }
  return rows;
}

/**
 * Creates the schema and fills it. `databaseUrl` must name an empty database (a new SQLite file
 * or a new PostgreSQL database). `onProgress` hears about every committed transaction.
 */
export async function generateDataset(
  databaseUrl: string,
  tasksPerTeam: number,
  onProgress: (tasksDone: number) => void = () => {},
  seed = 20261121,
): Promise<Dataset> {
  const started = performance.now();
  const random = seededRng(seed);
  // Bulk inserts of a 1M-task team may outlast the server's statement timeout on a busy machine.
  const store = openStore(databaseUrl, { poolSize: 2, statementTimeoutMs: 600_000 });
  try {
    await migrateToLatest(store);
    const teamA = await makeTeam(store, 'Bench team A', 1, random);
    const teamB = await makeTeam(store, 'Bench team B', LISTS + 1, random);
    const teams = [teamA, teamB];
    const zipf = zipfSampler(LISTS, random);
    const numbers = [0, 0];
    const openMediumPerList = new Map<number, number>();
    const searcher = teamA.memberIds[1]!;
    let searchMatches = 0;
    const rows = { tasks: 0, assignees: 0, listItems: 0, activity: 0, comments: 0 };
    let commentId = 0;
    let activityId = 0;
    const nextActivityId = () => ++activityId;
    const busyTaskIds: number[] = [];
    let longTask = { id: 1, firstEntryId: 0, lastEntryId: 0 };
    const total = tasksPerTeam * 2;
    const yearStart = Date.UTC(2025, 10, 1);
    const yearMs = 365 * 86_400_000;
    const dueStart = Date.UTC(2026, 0, 1);
    const priorities = [null, ...PRIORITIES];

    for (let first = 1; first <= total; first += TASKS_PER_TRANSACTION) {
      const last = Math.min(total, first + TASKS_PER_TRANSACTION - 1);
      const tasks: any[] = [];
      const assignees: { task_id: number; user_id: string }[] = [];
      const listItems: Insertable<TaskListItemsTable>[] = [];
      const activity: ActivityRow[] = [];
      const comments: any[] = [];
      for (let id = first; id <= last; id++) {
        const t = (id - 1) % 2; // odd ids team A, even ids team B
        const team = teams[t]!;
        const number = ++numbers[t]!;
        const completed = random() < 0.3;
        const statusId = completed
          ? team.statuses.done
          : random() < 0.57
            ? team.statuses.todo
            : team.statuses.inProgress;
        const priority = priorities[Math.floor(random() * priorities.length)]!;
        const noun = NOUNS[Math.floor(random() * NOUNS.length)]!;
        // Where RARE_WORD goes in this task, if anywhere: every (tasksPerTeam / RARE_TITLES)th task's
        // title, and two other tasks in each such stretch a description and a comment.
        const stretch = Math.floor(tasksPerTeam / RARE_TITLES);
        const rareAt = (offset: number) => (number % stretch === Math.floor(stretch * offset) ? ` ${RARE_WORD}` : '');
        const rare = rareAt(0);
        const title = `${VERBS[Math.floor(random() * VERBS.length)]} ${ADJECTIVES[Math.floor(random() * ADJECTIVES.length)]} ${noun} ${number}${rare}`;
        const createdAt = new Date(yearStart + Math.floor((yearMs * id) / total)).toISOString();
        // A subtask's parent: an earlier task of the same team, among its last 1,000.
        const parentId =
          number > 1 && random() < 0.1 ? id - 2 * (1 + Math.floor(random() * Math.min(1000, number - 1))) : null;
        tasks.push({
          id,
          team_id: team.teamId,
          number,
          title,
          title_search: title.toLowerCase(),
          description:
            random() < 0.5 || rareAt(1 / 3)
              ? `Notes for task ${number}: ${noun} details, owners and open questions. `.repeat(3).trim() +
                rareAt(1 / 3)
              : null,
          priority,
          due_date:
            random() < 0.8
              ? new Date(dueStart + Math.floor(random() * 365) * 86_400_000).toISOString().slice(0, 10)
              : null,
          status_id: statusId,
          parent_id: parentId,
          created_by: team.memberIds[Math.floor(random() * MEMBERS)]!,
          created_at: createdAt,
          updated_at: createdAt,
        });
        const createdBy = tasks.at(-1).created_by;
        if (number % COMMENT_EVERY === 0 || rareAt(2 / 3)) {
          comments.push({
            id: ++commentId,
            task_id: id,
            author_id: createdBy,
            body: `Looked at the ${noun} for task ${number}; waiting on review.${rareAt(2 / 3)}`,
            created_at: createdAt,
            updated_at: createdAt,
          });
        }
        activity.push({
          id: nextActivityId(),
          task_id: id,
          actor_id: createdBy,
          kind: 'task.created',
          changes: '{}',
          created_at: createdAt,
        });
        if (t === 0 && id === 1) {
          const firstEntryId = activity.at(-1)!.id;
          const history = historyOf(id, team, createdAt, LONG_ENTRIES - 1, random, nextActivityId);
          activity.push(...history);
          longTask = { id, firstEntryId, lastEntryId: history.at(-1)!.id };
        } else if (t === 0 && number % BUSY_EVERY === 0) {
          activity.push(...historyOf(id, team, createdAt, BUSY_ENTRIES - 1, random, nextActivityId));
          busyTaskIds.push(id);
        }
        const assigneeCount = Math.floor(random() * 4);
        const chosenPeople = new Set<string>();
        while (chosenPeople.size < assigneeCount) chosenPeople.add(team.memberIds[Math.floor(random() * MEMBERS)]!);
        for (const user_id of chosenPeople) assignees.push({ task_id: id, user_id });
        const listCount = random() < 0.5 ? 1 : 2;
        const chosenLists = new Set<number>();
        while (chosenLists.size < listCount) chosenLists.add(team.listIds[zipf()]!);
        // With the copies of priority and completion the task writes keep on its list items.
        for (const list_id of chosenLists) {
          listItems.push({ task_id: id, list_id, priority, is_completed: completed ? 1 : 0 });
        }
        if (t === 0) {
          if (priority === 'medium' && !completed) {
            for (const listId of chosenLists) openMediumPerList.set(listId, (openMediumPerList.get(listId) ?? 0) + 1);
          }
          if (noun === SEARCH_WORD && chosenPeople.has(searcher)) searchMatches++;
        }
      }
      await store.transaction(async (trx) => {
        await insertChunked(trx, 'tasks', tasks, TASK_ROWS_PER_INSERT);
        await insertChunked(trx, 'task_assignees', assignees, LINK_ROWS_PER_INSERT);
        await insertChunked(trx, 'task_list_items', listItems, LINK_ROWS_PER_INSERT);
        await insertChunked(trx, 'task_activity', activity, ACTIVITY_ROWS_PER_INSERT);
        await insertChunked(trx, 'task_comments', comments, COMMENT_ROWS_PER_INSERT);
      });
      rows.comments += comments.length;
      rows.activity += activity.length;
      rows.tasks += tasks.length;
      rows.assignees += assignees.length;
      rows.listItems += listItems.length;
      onProgress(last);
    }

    await store.transaction(async (trx) => {
      for (const [t, team] of teams.entries()) {
        await trx.updateTable('teams').set({ task_counter: numbers[t]! }).where('id', '=', team.teamId).execute();
      }
      await setSerialHighWater(
        trx,
        store.dialect,
        new Map([
          ['tasks', total],
          ['task_lists', 2 * LISTS],
          ['task_activity', activityId],
          ['task_comments', commentId],
        ]),
      );
    });
    // PostgreSQL's autovacuum would gather planner statistics soon after such a load; SQLite
    // has none unless someone runs ANALYZE, and tasklane never does, so neither does this.
    if (store.dialect === 'postgres') await sql`vacuum analyze`.execute(store.db);

    let filterList = { id: teamA.listIds[0]!, openMedium: -1 };
    for (const [id, n] of openMediumPerList) {
      if (filterList.openMedium < 0 || Math.abs(n - 200) < Math.abs(filterList.openMedium - 200)) {
        filterList = { id, openMedium: n };
      }
    }
    const { key, ...a } = teamA;
    const b: TeamData = {
      teamId: teamB.teamId,
      memberIds: teamB.memberIds,
      listIds: teamB.listIds,
      statuses: teamB.statuses,
    };
    return {
      databaseUrl,
      tasksPerTeam,
      key,
      userId: a.memberIds[0]!,
      teamA: a,
      teamB: b,
      filterList,
      searchMatches,
      timeline: { busyTaskIds, longTask },
      rows,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await store.close();
  }
}
