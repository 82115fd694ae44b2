/**
 * GET /v1/search (issue 29): full-text search of titles, descriptions and comments, over HTTP on
 * the store under test. Each team and word is the test's own, so the suites run in parallel.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import { createTestTeam, type Actor } from './factories.js';
import {
  expectError,
  expectStatus,
  startTestServer,
  tempDatabase,
  TEST_STORE,
  type TempDatabase,
  type TestServer,
} from './harness.js';
import { startCountedApp, type CountedApp, type Statement } from './statement-log.js';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

interface Hit {
  task: { id: number; number: number; title: string };
  field: 'title' | 'description' | 'comment';
  commentId?: number;
  snippet: string;
}

/** A word no other test (or team) uses. */
let words = 0;
const uniqueWord = (stem = 'word') => `${stem}${(++words).toString(36)}x${Math.random().toString(36).slice(2, 8)}`;

const searchPath = (q: string, extra = '') => `/v1/search?q=${encodeURIComponent(q)}${extra}`;

async function search(actor: Actor, q: string, extra = ''): Promise<{ items: Hit[]; nextCursor: string | null }> {
  return expectStatus(await actor.api.get(searchPath(q, extra)), 200);
}

/** Every hit of a search, following the cursor to the end. */
async function allHits(actor: Actor, q: string, limit = 50): Promise<Hit[]> {
  const hits: Hit[] = [];
  let cursor: string | null = null;
  do {
    const page = await search(actor, q, `&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    assert.ok(page.items.length <= limit);
    hits.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return hits;
}

const brief = (hits: Hit[]) => hits.map((h) => `${h.field}:${h.task.id}${h.commentId ? `/${h.commentId}` : ''}`);

async function newTask(actor: Actor, body: Record<string, unknown>): Promise<number> {
  return expectStatus(await actor.api.post('/v1/tasks', body), 201).id;
}

async function comment(actor: Actor, taskId: number, body: string): Promise<number> {
  return expectStatus(await actor.api.post(`/v1/tasks/${taskId}/comments`, { body }), 201).id;
}

describe('GET /v1/search', () => {
  test('finds a word in titles, then descriptions, then comments, each newest first, with the word marked', async () => {
    const team = await createTestTeam(server);
    const owner = team.owner;
    const word = uniqueWord();
    const inTitle = await newTask(owner, { title: `Pay the ${word} today` });
    const inDescription = await newTask(owner, { title: 'Other', description: `Remember the ${word}, please.` });
    const commented = await newTask(owner, { title: 'Third' });
    const first = await comment(owner, commented, `An older ${word} note`);
    const second = await comment(owner, commented, `A newer note on ${word.toUpperCase()}`);
    const both = await newTask(owner, { title: `${word} again`, description: `and ${word}` });

    const { items, nextCursor } = await search(owner, word);
    assert.deepEqual(brief(items), [
      `title:${both}`,
      `title:${inTitle}`,
      `description:${both}`,
      `description:${inDescription}`,
      `comment:${commented}/${second}`,
      `comment:${commented}/${first}`,
    ]);
    assert.equal(nextCursor, null);
    assert.equal(items[1]!.snippet, `Pay the \u0002${word}\u0003 today`);
    assert.deepEqual(items[1]!.task, { id: inTitle, number: 1, title: `Pay the ${word} today` });
    assert.match(items[3]!.snippet, new RegExp(`\u0002${word}\u0003`));
    assert.match(items[4]!.snippet, new RegExp(`\u0002${word.toUpperCase()}\u0003`));
    assert.equal(items[0]!.commentId, undefined);
  });

  test('every word must match, case aside, and the last one also as the start of a word', async () => {
    const owner = (await createTestTeam(server)).owner;
    const word = uniqueWord('alpha');
    const both = await newTask(owner, { title: `${word} Bravo` });
    await newTask(owner, { title: `${word} charlie` });
    const longer = await newTask(owner, { title: `${word} bravissimo` });
    const ids = async (q: string) => (await allHits(owner, q)).map((h) => h.task.id).sort((a, b) => a - b);
    assert.deepEqual(await ids(`bravo ${word.toUpperCase()}`), [both]);
    assert.deepEqual(await ids(`${word} brav`), [both, longer]);
    assert.deepEqual(await ids(`brav ${word}`), [], 'only the last word is a prefix');
    assert.deepEqual(await ids(`${word} brav `), [], 'a last word followed by a space is whole');
    assert.deepEqual(await ids(`${word} "brav"`), [], 'so is a quoted one');
    assert.deepEqual(await ids(`${word} bravo "`), [both]);
    assert.deepEqual(await ids(`${word} br`), [], 'a last word of 2 characters is whole');
    assert.deepEqual(await ids(word.slice(2)), [], 'a prefix is the start of a word, not its middle');
    assert.equal((await ids(word.slice(0, -2))).length, 3, 'a shorter start of the word finds all three');
  });

  test('operators and punctuation in q are plain text: results or a clear 400, never a 500', async () => {
    const owner = (await createTestTeam(server)).owner;
    const word = uniqueWord('near');
    const task = await newTask(owner, { title: `NEAR(${word}) "quoted" a*b title:x -not OR AND` });
    for (const q of [
      `NEAR(${word}`,
      `"${word}`,
      `${word}*`,
      `title:${word}`,
      `-${word}`,
      `${word} OR zz`,
      `'${word}'`,
    ]) {
      const { items } = await search(owner, q);
      assert.deepEqual(
        items.map((h) => h.task.id),
        q.includes('zz') ? [] : [task],
        `q=${q}`,
      );
    }
    const oddWords = ['\u0301', '\u0301\u0301x', '٣', 'ǅ', '𝟘', 'ⅷ', '²', '\u200d', 'ﬁ', 'İ', '\u00a0x\u00a0'];
    for (const q of ['"', '*', 'NEAR(', '(', ')', '^', ':', '&|!', 'AND', 'NOT', "'", '\\', '{title}', ...oddWords]) {
      const response = await owner.api.get(searchPath(q));
      if (response.status !== 200) expectError(response, 400, 'q must contain at least one letter or digit.');
    }
    expectError(await owner.api.get(searchPath(' " * ')), 400, 'q must contain at least one letter or digit.');
  });

  test('property: any q, FTS syntax and odd Unicode included, is a 200 or a 400 that says why', async () => {
    const owner = (await createTestTeam(server)).owner;
    await newTask(owner, { title: 'near "quoted" title OR and', description: 'Ünïcödé ß ǅ 漢字 🙂' });
    const syntax = fc.constantFrom(
      '"',
      '*',
      'NEAR(',
      ')',
      'AND',
      'OR',
      'NOT',
      ':',
      '^',
      '-',
      '+',
      '{',
      '}',
      "'",
      '&',
      '|',
      '!',
      '<->',
      ':*',
      '\\',
    );
    const piece = fc.oneof(
      syntax,
      fc.string({ unit: 'grapheme', maxLength: 6 }),
      fc.constantFrom('near', 'title', 'ü', ' '),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { minLength: 1, maxLength: 12 }), async (pieces) => {
        const q = pieces.join('').slice(0, 200);
        const response = await owner.api.get(searchPath(q));
        if (response.status === 200) return;
        assert.equal(response.status, 400, `q=${JSON.stringify(q)}: ${response.text}`);
        assert.deepEqual(Object.keys(response.body), ['error']);
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 100) },
    );
  });

  test('q, limit and cursor out of bounds are a 400 that says why', async () => {
    const owner = (await createTestTeam(server)).owner;
    expectError(await owner.api.get('/v1/search'), 400, 'q is required.');
    expectError(await owner.api.get(searchPath('')), 400, 'q must be a string of 1 to 200 characters.');
    expectError(await owner.api.get(searchPath('a'.repeat(201))), 400, 'q must be at most 200 characters long.');
    expectError(
      await owner.api.get(searchPath(Array.from({ length: 17 }, (_, i) => `w${i}`).join(' '))),
      400,
      'q must hold at most 16 words.',
    );
    for (const limit of ['0', '51', 'x', '1.5']) {
      expectError(
        await owner.api.get(searchPath('x', `&limit=${limit}`)),
        400,
        'limit must be a whole number from 1 to 50.',
      );
    }
    for (const cursor of ['title', 'title.0', 'name.3', '3', 'comment.99999999999']) {
      expectError(
        await owner.api.get(searchPath('x', `&cursor=${cursor}`)),
        400,
        'cursor must be the nextCursor of an earlier page of the same search.',
      );
    }
  });

  test('a cursor past the largest id a row can have reads as before every row, never a 500', async () => {
    const owner = (await createTestTeam(server)).owner;
    const word = uniqueWord();
    const id = await newTask(owner, { title: word, description: word });
    for (const cursor of ['title.2147483648', 'description.9999999999', 'comment.4294967296']) {
      const page = expectStatus<{ items: { task: { id: number } }[] }>(
        await owner.api.get(searchPath(word, `&cursor=${cursor}`)),
        200,
      );
      assert.ok(page.items.every((hit) => hit.task.id === id));
    }
  });

  test('the cursor walks every hit once, in order, page by page', async () => {
    const owner = (await createTestTeam(server)).owner;
    const word = uniqueWord();
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) ids.push(await newTask(owner, { title: `${word} ${i}`, description: `${word}` }));
    await comment(owner, ids[0]!, word);
    await comment(owner, ids[1]!, word);
    const whole = await allHits(owner, word, 50);
    assert.equal(whole.length, 10);
    for (const limit of [1, 3, 4])
      assert.deepEqual(brief(await allHits(owner, word, limit)), brief(whole), `limit ${limit}`);
    const page = await search(owner, word, '&limit=4');
    assert.equal(page.nextCursor, `title.${ids[0]}`);
  });

  test('the index follows edits and deletions of titles, descriptions and comments', async () => {
    const owner = (await createTestTeam(server)).owner;
    const [before, afterWord, note] = [uniqueWord(), uniqueWord(), uniqueWord()];
    const task = await newTask(owner, { title: `${before} title`, description: `${before} text` });
    const commentId = await comment(owner, task, note);
    expectStatus(await owner.api.patch(`/v1/tasks/${task}`, { title: `${afterWord} title`, description: null }), 200);
    assert.deepEqual(brief(await allHits(owner, before)), []);
    assert.deepEqual(brief(await allHits(owner, afterWord)), [`title:${task}`]);
    expectStatus(await owner.api.patch(`/v1/tasks/${task}/comments/${commentId}`, { body: `${afterWord}` }), 200);
    assert.deepEqual(brief(await allHits(owner, note)), []);
    assert.deepEqual(brief(await allHits(owner, afterWord)), [`title:${task}`, `comment:${task}/${commentId}`]);
    expectStatus(await owner.api.delete(`/v1/tasks/${task}/comments/${commentId}`), 200);
    assert.deepEqual(brief(await allHits(owner, afterWord)), [`title:${task}`]);
    await comment(owner, task, afterWord);
    expectStatus(await owner.api.delete(`/v1/tasks/${task}`), 200);
    assert.deepEqual(brief(await allHits(owner, afterWord)), [], 'the task and its comments are gone');
  });

  test('GET /v1/tasks?query= still matches substrings of titles, where search matches words', async () => {
    const owner = (await createTestTeam(server)).owner;
    const word = uniqueWord('sub');
    const task = await newTask(owner, { title: `pre${word}post` });
    const listed = expectStatus(await owner.api.get(`/v1/tasks?query=${word}`), 200);
    assert.deepEqual(
      listed.map((t: { id: number }) => t.id),
      [task],
    );
    assert.deepEqual(brief(await allHits(owner, word)), []);
  });
});

describe('GET /v1/search never leaks', () => {
  test("another team's tasks and comments are never a hit, however the word is placed", async () => {
    const canaryTeam = await createTestTeam(server);
    const word = uniqueWord('canary');
    const planted = await newTask(canaryTeam.owner, { title: `${word} title`, description: `${word} secret` });
    await comment(canaryTeam.owner, planted, `${word} comment`);
    assert.equal((await allHits(canaryTeam.owner, word)).length, 3, 'the canary is findable in its own team');

    const other = await createTestTeam(server);
    const visible = await newTask(other.owner, { title: 'Plain visible task' });
    for (const q of [word, word.slice(0, 6), `${word} title`, `${word} secret`]) {
      const { items, nextCursor } = await search(other.owner, q);
      assert.deepEqual(items, [], `q=${q}`);
      assert.equal(nextCursor, null);
    }
    for (const cursor of [`title.${planted + 1}`, `description.${planted + 1}`, `comment.999999999`]) {
      assert.deepEqual((await search(other.owner, word, `&cursor=${cursor}`)).items, []);
    }
    assert.ok(visible > 0);
  });

  test('a task on a private list is found by its list members, and by no other member of the team', async () => {
    const team = await createTestTeam(server);
    const [member, outsider] = [await team.member(), await team.member()];
    const list = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Private' }), 201);
    expectStatus(await team.owner.api.post(`/v1/lists/${list.id}/members`, { userId: member.userId }), 201);
    const word = uniqueWord('private');
    const task = await newTask(team.owner, { title: `${word}`, description: word, taskListIds: [list.id] });
    const commentId = await comment(member, task, `${word} said the member`);
    const expected = [`title:${task}`, `description:${task}`, `comment:${task}/${commentId}`];
    assert.deepEqual(brief(await allHits(member, word)), expected);
    assert.deepEqual(brief(await allHits(outsider, word)), []);
    assert.deepEqual(brief(await allHits(outsider, 'said the member')), []);

    // Assigned, the outsider may read it; archived, the list no longer lets its member in.
    expectStatus(await team.owner.api.patch(`/v1/tasks/${task}`, { assigneeIds: [outsider.userId] }), 200);
    assert.deepEqual(brief(await allHits(outsider, word)), expected);
    expectStatus(await team.owner.api.post(`/v1/lists/${list.id}/archive`), 200);
    assert.deepEqual(brief(await allHits(member, word)), []);
  });

  test('a word in more titles than the index is first asked for is found newest first, only where readable', async () => {
    const team = await createTestTeam(server);
    const outsider = await team.member();
    const list = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Many' }), 201);
    const word = uniqueWord('many');
    const first = expectStatus(await team.owner.api.post('/v1/tasks', { title: word, taskListIds: [list.id] }), 201);
    // 2,100 more titles with the word (more than the 2,000 matches read from the index first,
    // search.repository.ts), written in one statement; none on a list, so only their creator reads them.
    await sql`
      with recursive n(i) as (select 1 union all select i + 1 from n where i < 2100)
      insert into tasks (team_id, number, title, title_search, status_id, created_by, created_at, updated_at)
      select t.team_id, 100000 + n.i, ${`${word} `} || n.i, ${`${word} `} || n.i, t.status_id, t.created_by,
             t.created_at, t.updated_at
      from n, tasks t where t.id = ${first.id}`.execute(server.store.db);
    const newest20 = Array.from({ length: 20 }, (_, i) => `${word} ${2100 - i}`);
    const page = await search(team.owner, word, '&limit=20');
    assert.deepEqual(
      page.items.map((hit) => hit.task.title),
      newest20,
    );
    assert.ok(page.items.every((hit) => hit.field === 'title' && hit.snippet.includes(word)));
    assert.notEqual(page.nextCursor, null);
    // 2,100 newer tasks without the word: the newest rows a search looks at first hold none.
    await sql`
      with recursive n(i) as (select 1 union all select i + 1 from n where i < 2100)
      insert into tasks (team_id, number, title, title_search, status_id, created_by, created_at, updated_at)
      select t.team_id, 200000 + n.i, 'Other ' || n.i, 'other ' || n.i, t.status_id, t.created_by,
             t.created_at, t.updated_at
      from n, tasks t where t.id = ${first.id}`.execute(server.store.db);
    assert.deepEqual(
      (await search(team.owner, word, '&limit=20')).items.map((hit) => hit.task.title),
      newest20,
    );
    // The outsider reads only the first task, through its list… which they are not on: nothing.
    assert.deepEqual(brief(await allHits(outsider, word)), []);
    expectStatus(await team.owner.api.post(`/v1/lists/${list.id}/members`, { userId: outsider.userId }), 201);
    assert.deepEqual(brief(await allHits(outsider, word)), [`title:${first.id}`]);
  });

  test('property: a search finds exactly the readable tasks whose field holds every word', async () => {
    const team = await createTestTeam(server);
    const reader = await team.member();
    const list = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Shared' }), 201);
    expectStatus(await team.owner.api.post(`/v1/lists/${list.id}/members`, { userId: reader.userId }), 201);
    const stem = uniqueWord('p');
    const vocabulary = ['apple', 'apricot', 'banana', 'cherry', 'date'].map((w) => `${stem}${w}`);
    const text = fc.array(fc.constantFrom(...vocabulary, 'filler', 'words'), { minLength: 1, maxLength: 4 });
    const taskArb = fc.record({
      title: text,
      description: fc.option(text, { nil: null }),
      comment: fc.option(text, { nil: null }),
      readable: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(taskArb, { minLength: 1, maxLength: 6 }),
        fc.array(fc.constantFrom(...vocabulary), { minLength: 1, maxLength: 2 }),
        fc.boolean(),
        async (tasks, query, asPrefix) => {
          const expected: string[] = [];
          const created: number[] = [];
          for (const t of tasks) {
            const id = await newTask(team.owner, {
              title: t.title.join(' '),
              description: t.description?.join(' ') ?? null,
              ...(t.readable && { taskListIds: [list.id] }),
            });
            created.push(id);
            const commentId = t.comment ? await comment(team.owner, id, t.comment.join(' ')) : undefined;
            if (!t.readable) continue;
            const holds = (field: string[] | null) => !!field && query.every((w) => field.includes(w));
            if (holds(t.title)) expected.push(`title:${id}`);
            if (holds(t.description)) expected.push(`description:${id}`);
            if (holds(t.comment)) expected.push(`comment:${id}/${commentId}`);
          }
          // Searched as typed, the last word cut short: vocabulary words share no 6-letter start.
          const q = asPrefix
            ? [...query.slice(0, -1), query.at(-1)!.slice(0, stem.length + 3)].join(' ')
            : query.join(' ');
          const own = new Set(created);
          const found = brief((await allHits(reader, q)).filter((h) => own.has(h.task.id)));
          assert.deepEqual(found.sort(), expected.sort(), `q=${q}`);
          for (const id of created) expectStatus(await team.owner.api.delete(`/v1/tasks/${id}`), 200);
        },
      ),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 25) },
    );
  });
});

describe(
  'GET /v1/search on PostgreSQL: the order of its steps follows the statistics',
  {
    skip: TEST_STORE !== 'postgres' && 'PostgreSQL only: SQLite has one step',
  },
  () => {
    // A database of its own, whose statistics are only the ANALYZE run here: autovacuum would
    // analyze its tables whenever it likes. Each app has its own store, so its own statistics cache.
    let database: TempDatabase;
    const apps: CountedApp[] = [];
    const startApp = async () => {
      const app = await startCountedApp(database.url);
      apps.push(app);
      return app;
    };
    before(async () => {
      database = await tempDatabase();
      const app = await startApp();
      for (const table of ['tasks', 'task_comments']) {
        await sql`alter table ${sql.table(table)} set (autovacuum_enabled = off)`.execute(app.store.db);
      }
    });
    after(async () => {
      for (const app of apps) await app.close();
      await database?.remove();
    });

    /**
     * Which step a search took first, from its statements: the index's few matches (raw SQL that
     * first forces the bitmap scan, storage/full-text.ts fewMatches), or the newest rows (a select
     * of tasks). Titles are searched first, so this is the title field's first step.
     */
    const firstStep = (statements: Statement[]) => {
      const first = statements.find(
        (s) => s.text?.includes('enable_seqscan') || (s.kind === 'SelectQueryNode' && s.tables.includes('tasks')),
      );
      assert.ok(first, 'a search reads the index or the newest rows');
      return first.kind === 'RawNode' ? 'the index' : 'the newest rows';
    };
    const readsStatistics = (statements: Statement[]) => statements.some((s) => s.tables.includes('pg_stats'));

    /** `count` tasks of the team titled `<word> <n>` (n = 1 … count), in one statement, newest last. */
    async function insertTitled(app: CountedApp, taskId: number, word: string, count: number, numbersFrom: number) {
      await sql`
      with recursive n(i) as (select 1 union all select i + 1 from n where i < ${count})
      insert into tasks (team_id, number, title, title_search, status_id, created_by, created_at, updated_at)
      select t.team_id, ${numbersFrom} + n.i, ${`${word} `} || n.i, lower(${`${word} `} || n.i), t.status_id,
             t.created_by, t.created_at, t.updated_at
      from n, tasks t where t.id = ${taskId}`.execute(app.store.db);
    }

    test('never analyzed: every word looks at the newest rows first, and is found', async () => {
      const app = await startApp();
      const team = await createTestTeam(app);
      const word = uniqueWord('unanalyzed');
      const id = await newTask(team.owner, { title: word });
      const found = await app.log.requestsDuring(() => search(team.owner, `${word} `));
      assert.deepEqual(brief(found.result.items), [`title:${id}`]);
      assert.equal(firstStep(found.statements), 'the newest rows');
      const none = await app.log.requestsDuring(() => search(team.owner, `${uniqueWord('nowhere')} `));
      assert.deepEqual(none.result.items, []);
      assert.equal(firstStep(none.statements), 'the newest rows');
    });

    test('after ANALYZE, a word the statistics do not hold, or hold as too rare to fill a page from the newest rows, asks the index first; a frequent one the newest rows; the answers are the same', async () => {
      const app = apps[0]!; // which has not searched yet: its first search reads the statistics
      const team = await createTestTeam(app);
      const frequent = uniqueWord('frequent');
      const first = await newTask(team.owner, { title: `${frequent} 0` });
      await insertTitled(app, first, frequent, 2_100, 100_000);
      // In 3 titles of about 2,100: recorded, but the newest 2,000 rows would hold fewer than a page.
      const scarce = uniqueWord('scarce');
      await insertTitled(app, first, scarce, 3, 150_000);
      await sql`analyze tasks`.execute(app.store.db);
      await sql`analyze task_comments`.execute(app.store.db);
      const recorded = await sql<{ recorded: boolean }>`
        select most_common_elems::text::text[] @> array[${frequent}, ${scarce}]::text[] as recorded
        from pg_stats where tablename = 'tasks_title_tsv_idx'`.execute(app.store.db);
      assert.equal(recorded.rows[0]?.recorded, true, 'ANALYZE records both words');
      const scarceIds = await sql<{ id: number }>`
        select id from tasks where title like ${`${scarce} %`} order by id desc`.execute(app.store.db);
      // Written after ANALYZE, so unknown to the statistics: a rare word, in every field.
      const rare = uniqueWord('rare');
      const rareTitle = await newTask(team.owner, { title: `${rare} first` });
      const rareDescription = await newTask(team.owner, { title: 'Plain', description: `a ${rare} here` });
      const both = await newTask(team.owner, { title: `${frequent} ${rare}` });
      const rareComment = await comment(team.owner, rareTitle, `the ${rare} again`);
      const rareHits = [
        `title:${both}`,
        `title:${rareTitle}`,
        `description:${rareDescription}`,
        `comment:${rareTitle}/${rareComment}`,
      ];
      const frequentTop = [`${frequent} ${rare}`, ...Array.from({ length: 19 }, (_, i) => `${frequent} ${2100 - i}`)];

      const rareSearch = await app.log.requestsDuring(() => search(team.owner, `${rare} `));
      assert.deepEqual(brief(rareSearch.result.items), rareHits);
      assert.equal(firstStep(rareSearch.statements), 'the index');
      assert.ok(readsStatistics(rareSearch.statements), 'the first search reads the statistics');
      const again = await app.log.requestsDuring(() => allHits(team.owner, `${rare} `, 1));
      assert.deepEqual(brief(again.result), rareHits, 'the cursor walks the same hits one by one');
      assert.ok(!readsStatistics(again.statements), 'the next searches of the minute read them no more');

      for (const q of [`${frequent} `, frequent.slice(0, -2)]) {
        const frequentSearch = await app.log.requestsDuring(() => search(team.owner, q, '&limit=20'));
        assert.deepEqual(
          frequentSearch.result.items.map((hit) => hit.task.title),
          frequentTop,
          `q=${q}`,
        );
        assert.equal(firstStep(frequentSearch.statements), 'the newest rows', `q=${q}`);
      }
      for (const [q, hits] of [
        [rare.slice(0, -2), rareHits],
        [`${scarce} `, scarceIds.rows.map((row) => `title:${row.id}`)],
        [`${frequent} ${rare} `, [`title:${both}`]],
        [`${uniqueWord('nowhere')} `, []],
      ] as const) {
        const rareFirst = await app.log.requestsDuring(() => search(team.owner, q));
        assert.deepEqual(brief(rareFirst.result.items), hits, `q=${q}`);
        assert.equal(firstStep(rareFirst.statements), 'the index', `q=${q}`);
      }

      // A word unknown to the statistics with more matches than the index is asked for (2,100, then
      // 2,100 newer tasks without it): the index first, then the newest rows, then the walk.
      const late = uniqueWord('late');
      await insertTitled(app, first, late, 2_100, 200_000);
      await insertTitled(app, first, 'Other', 2_100, 300_000);
      const lateSearch = await app.log.requestsDuring(() => search(team.owner, `${late} `, '&limit=20'));
      const latePage = lateSearch.result;
      assert.deepEqual(
        latePage.items.map((hit) => hit.task.title),
        Array.from({ length: 20 }, (_, i) => `${late} ${2100 - i}`),
      );
      assert.equal(firstStep(lateSearch.statements), 'the index');
      const next = await search(team.owner, `${late} `, `&limit=20&cursor=${latePage.nextCursor}`);
      assert.deepEqual(
        next.items.map((hit) => hit.task.title),
        Array.from({ length: 20 }, (_, i) => `${late} ${2080 - i}`),
      );
    });
  },
);
