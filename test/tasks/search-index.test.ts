/**
 * The titles' trigram index (migration 0011) on the store under test: a search it drives
 * returns exactly the rows the LIKE walk returns, and the index stays in step with tasks
 * through inserts, title changes, deletions, cascades and rollbacks.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import type { Caller } from '../../src/caller.js';
import { openStore, type Store } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import type { Db } from '../../src/storage/schema.js';
import { findPage } from '../../src/tasks/task-query.js';
import { deleteTask, insertTask, updateTask } from '../../src/tasks/tasks.repository.js';
import { createTeam } from '../../src/membership/accounts.service.js';
import { titleIndexProblems } from '../integrity.js';
import { TEST_STORE, tempDatabase, type TempDatabase } from '../harness.js';

let database: TempDatabase;
let store: Store;
before(async () => {
  database = await tempDatabase();
  store = openStore(database.url);
  await migrateToLatest(store);
});
after(async () => {
  await store.close();
  await database.remove();
});

interface Workspace {
  caller: Caller;
  statusId: number;
  listId: number;
}

/** A new team with its owner and one list, which every task of the tests joins. */
async function workspace(): Promise<Workspace> {
  return store.transaction(async (trx) => {
    const team = await createTeam(trx, 'Search');
    const userId = crypto.randomUUID();
    const now = new Date().toISOString();
    await trx
      .insertInto('users')
      .values({ id: userId, email: `${userId}@search.test`, name: 'Owner', password_hash: null, created_at: now })
      .execute();
    await trx
      .insertInto('team_members')
      .values({ team_id: team.id, user_id: userId, role: 'owner', created_at: now })
      .execute();
    const status = await trx
      .selectFrom('task_statuses')
      .select('id')
      .where('team_id', '=', team.id)
      .executeTakeFirstOrThrow();
    const list = await trx
      .insertInto('task_lists')
      .values({ team_id: team.id, name: 'All', color: 'Blue', created_by: userId, created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    await trx.insertInto('list_members').values({ list_id: list.id, user_id: userId, created_at: now }).execute();
    return {
      caller: { userId, teamId: team.id, role: 'owner', credential: { kind: 'key', id: 'search-test' } },
      statusId: status.id,
      listId: list.id,
    };
  });
}

async function addTask(db: Db, w: Workspace, title: string): Promise<number> {
  const row = await insertTask(db, {
    teamId: w.caller.teamId,
    title,
    description: null,
    priority: null,
    dueDate: null,
    statusId: w.statusId,
    parentId: null,
    createdBy: w.caller.userId,
    createdAt: new Date().toISOString(),
  });
  // As a create's last statement does: the team's task counter is bumped, and on PostgreSQL the
  // task gets its number from it (SQLite inserted it with that number: dialect.ts, numberAtInsert).
  const { task_counter } = await db
    .updateTable('teams')
    .set((eb) => ({ task_counter: eb('task_counter', '+', 1) }))
    .where('id', '=', w.caller.teamId)
    .returning('task_counter')
    .executeTakeFirstOrThrow();
  await db.updateTable('tasks').set({ number: task_counter }).where('id', '=', row.id).execute();
  await db.insertInto('task_list_items').values({ task_id: row.id, list_id: w.listId, priority: null }).execute();
  return row.id;
}

const ids = (page: { rows: { id: number }[] }) => page.rows.map((row) => row.id);

/**
 * The search's two walks. Whole team: the trigram index drives (SQLite), or PostgreSQL is kept
 * off every plan but a bitmap scan, which for a LIKE on title_search is the GIN index. One list
 * (which holds every task): the list drives and the LIKE tests each row.
 */
async function bothWalks(w: Workspace, query: string): Promise<{ indexed: number[]; walked: number[] }> {
  const indexed = await store.transaction(async (trx) => {
    if (store.dialect === 'postgres') {
      await sql`set local enable_seqscan = off`.execute(trx);
      await sql`set local enable_indexscan = off`.execute(trx);
      await sql`set local enable_indexonlyscan = off`.execute(trx);
    }
    return ids(await findPage(trx, w.caller, { query, limit: 1000 }));
  });
  const walked = ids(await findPage(store.db, w.caller, { query, taskListIds: [w.listId], limit: 1000 }));
  return { indexed, walked };
}

/** Characters where case folding and LIKE differ most: non-ASCII cases, wildcards, quotes, combining marks. */
const TRICKY = [
  'a',
  'A',
  'b',
  'İ',
  'i',
  'ı',
  'ß',
  'ẞ',
  'Σ',
  'σ',
  'ς',
  'K',
  'k',
  'ǅ',
  'ﬁ',
  'é',
  '\u0301',
  'Ä',
  '%',
  '_',
  '\\',
  '"',
  "'",
  ' ',
  '*',
  '😀',
];
const trickyText = (maxLength: number) =>
  fc.oneof(
    fc.array(fc.constantFrom(...TRICKY), { minLength: 1, maxLength }).map((chars) => chars.join('')),
    fc.string({ unit: 'binary', minLength: 1, maxLength }),
  );
/** No NUL: PostgreSQL's text cannot hold it, and the API's titles never reach the store with one. */
const title = trickyText(12).filter((t) => !t.includes('\0') && t.trim() !== '');

describe(`title search index on ${TEST_STORE}`, () => {
  test('a search through the trigram index returns exactly the rows of the LIKE walk, newest first, for any titles and query', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(title, { minLength: 1, maxLength: 12 }),
        fc.oneof(
          // A piece of one of the titles, its case changed: most such searches find something.
          fc.tuple(fc.nat(), fc.nat(), fc.nat(), fc.boolean()),
          trickyText(6).filter((q) => !q.includes('\0')),
        ),
        async (titles, pick) => {
          const w = await workspace();
          const created: number[] = [];
          for (const t of titles) created.push(await addTask(store.db, w, t));
          let query: string;
          if (typeof pick === 'string') query = pick;
          else {
            const chars = [...titles[pick[0] % titles.length]!];
            const from = pick[1] % chars.length;
            const piece = chars.slice(from, from + 3 + (pick[2] % 4)).join('');
            query = pick[3] ? piece.toUpperCase() : piece;
          }
          const expected = created
            .filter((_, i) => titles[i]!.toLowerCase().includes(query.toLowerCase()))
            .sort((a, b) => b - a);
          const { indexed, walked } = await bothWalks(w, query);
          assert.deepEqual(walked, expected, `LIKE walk for ${JSON.stringify(query)} in ${JSON.stringify(titles)}`);
          assert.deepEqual(indexed, expected, `index for ${JSON.stringify(query)} in ${JSON.stringify(titles)}`);
        },
      ),
      { numRuns: 60 },
    );
  });

  test('a common word through the index stops at the limit and returns the newest matches first', async () => {
    const w = await workspace();
    const created: number[] = [];
    for (let i = 0; i < 30; i++) created.push(await addTask(store.db, w, `Weekly report ${i}`));
    const { rows } = await findPage(store.db, w.caller, { query: 'REPORT', limit: 7 });
    assert.deepEqual(
      rows.map((row) => row.id),
      created.slice(-7).reverse(),
    );
  });

  test('the index follows every committed insert, title change and deletion', async () => {
    const w = await workspace();
    const search = async (query: string) => ids(await findPage(store.db, w.caller, { query, limit: 100 }));
    const kept = await addTask(store.db, w, 'Kept platypus');
    const renamed = await addTask(store.db, w, 'Old wombat');
    const removed = await addTask(store.db, w, 'Removed platypus');
    await updateTask(store.db, renamed, { title: 'New quokka' });
    await updateTask(store.db, kept, { priority: 'high' }); // no title: the index is left alone
    await deleteTask(store.db, removed);
    assert.deepEqual(await search('platypus'), [kept]);
    assert.deepEqual(await search('wombat'), []);
    assert.deepEqual(await search('QUOKKA'), [renamed]);
    assert.deepEqual(await titleIndexProblems(store), []);
  });

  test('a rolled-back transaction leaves the index as it was, like the tasks', async () => {
    const w = await workspace();
    const search = async (query: string) => ids(await findPage(store.db, w.caller, { query, limit: 100 }));
    const renamed = await addTask(store.db, w, 'Steady narwhal');
    const removed = await addTask(store.db, w, 'Doomed axolotl');
    await assert.rejects(
      store.transaction(async (trx) => {
        await addTask(trx, w, 'Phantom pangolin');
        await updateTask(trx, renamed, { title: 'Changed okapi' });
        await deleteTask(trx, removed);
        assert.deepEqual(ids(await findPage(trx, w.caller, { query: 'pangolin', limit: 10 })).length, 1);
        throw new Error('roll back');
      }),
      /roll back/,
    );
    assert.deepEqual(await search('pangolin'), []);
    assert.deepEqual(await search('okapi'), []);
    assert.deepEqual(await search('narwhal'), [renamed]);
    assert.deepEqual(await search('axolotl'), [removed]);
    assert.deepEqual(await titleIndexProblems(store), []);
  });

  test('deleting a team removes its tasks from the index too (the cascade fires the triggers)', async () => {
    const w = await workspace();
    await addTask(store.db, w, 'Cascaded capybara');
    await store.db.deleteFrom('teams').where('id', '=', w.caller.teamId).execute();
    assert.deepEqual(await titleIndexProblems(store), []);
  });

  test('a search shorter than a trigram keeps the LIKE walk and finds the same rows', async () => {
    const w = await workspace();
    const created = [
      await addTask(store.db, w, 'ab'),
      await addTask(store.db, w, 'xaby'),
      await addTask(store.db, w, 'ba'),
    ];
    for (const query of ['a', 'AB', 'b', 'ß']) {
      const { indexed, walked } = await bothWalks(w, query);
      const expected = created.filter((_, i) => ['ab', 'xaby', 'ba'][i]!.includes(query.toLowerCase())).reverse();
      assert.deepEqual(indexed, expected, query);
      assert.deepEqual(walked, expected, query);
    }
  });
});
