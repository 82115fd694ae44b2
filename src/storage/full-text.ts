/**
 * Full-text search (migration 0018) as GET /v1/search sees it: one field's matches as a walk,
 * newest first, with a snippet. SQLite matches with FTS5, PostgreSQL with tsvector and GIN; both
 * fold case, keep diacritics and do not stem, so both stores find the same words.
 *
 * User input never reaches either engine's query syntax as syntax: the service hands over only
 * words (runs of letters, digits and marks), and each is quoted here as one term.
 */
import { sql, type Kysely, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import {
  SNIPPET_MARK_END as MARK_END,
  SNIPPET_MARK_START as MARK_START,
  type SearchField,
} from '../contract/search.js';
import { isPostgres } from './dialect.js';

/** Words of a snippet of a description or a comment, around its matches. */
const SNIPPET_WORDS = 16;

/**
 * The searched words: every one must match (AND); the last also as a prefix when `prefix`.
 * Each is a run of letters, digits and marks, which the caller guarantees.
 */
export interface SearchWords {
  words: readonly string[];
  prefix: boolean;
}

/**
 * A field's matches: `query` reads the matching rows with the task as `t` (and, for comments,
 * the comment as `c`), to be ordered by `order` descending (newest first); `id` is the row's
 * position in that order (task id, or comment id), `snippet` the field's text with each match
 * marked. Filters on the team and access are the caller's.
 */
export interface FieldMatches {
  query: SelectQueryBuilder<any, any, any>;
  order: string;
  snippet: RawBuilder<string>;
  /** Whether `query` reads only the window asked for (PostgreSQL); if not, it reads every match. */
  windowed: boolean;
}

/**
 * The newest `rows` rows before `before` (tasks of the team, or comments) that a search may look
 * at first, where the engine may walk too far (PostgreSQL: fewMatches).
 */
export interface SearchWindow {
  teamId: string;
  before: number | undefined;
  rows: number;
}

/**
 * On PostgreSQL, the rows of every team whose `field` holds the words, straight from the GIN
 * index, when there are at most `cap` of them; null when there are more, or on SQLite (no query).
 *
 * Why: PostgreSQL picks per statement between walking a team's rows newest first, testing each,
 * which stops at once for a common word, and reading the index, which a rare word needs, by its
 * estimate of the word's frequency; at 1M tasks a team it walks for a rare word (seconds), or for
 * a word found nowhere (the whole team). A search first asks the index alone (a bitmap scan, forced
 * for this one statement), which costs a rare word almost nothing; only a word with more matches
 * than `cap` is walked, and such a word is common enough that the walk stops soon.
 */
export async function fewMatches(
  db: Kysely<any>,
  field: SearchField,
  { words, prefix }: SearchWords,
  cap: number,
): Promise<number[] | null> {
  if (!isPostgres(db)) return null;
  const query = tsQuery(words, prefix);
  const [table, text] =
    field === 'comment'
      ? [sql`task_comments`, sql`body`]
      : [sql`tasks`, field === 'title' ? sql`title` : sql`coalesce(description, '')`];
  const rows = await db.transaction().execute(async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx);
    await sql`set local enable_indexscan = off`.execute(trx);
    const matching = sql<{ id: number }>`
      select id from ${table} where to_tsvector('simple', ${text}) @@ ${query} limit ${cap + 1}`;
    return (await matching.execute(trx)).rows;
  });
  return rows.length > cap ? null : rows.map((row) => row.id);
}

/** tsquery: each word one quoted lexeme ('' doubles a quote, though words hold none), ANDed, the last with `:*` as a prefix. */
function tsQuery(words: readonly string[], prefix: boolean): RawBuilder<unknown> {
  const text = words
    .map((word, i) => `'${word.replace(/'/g, "''")}'${prefix && i === words.length - 1 ? ':*' : ''}`)
    .join(' & ');
  return sql`to_tsquery('simple', ${text})`;
}

export function fieldMatches(
  db: Kysely<any>,
  field: SearchField,
  search: SearchWords,
  window?: SearchWindow,
): FieldMatches {
  return isPostgres(db) ? postgresMatches(db, field, search, window) : sqliteMatches(db, field, search);
}

/**
 * FTS5: each word one quoted string ("" doubles a quote, though words hold none), the last
 * followed by `*` as a prefix; a column filter for a task's field.
 */
function sqliteMatches(db: Kysely<any>, field: SearchField, { words, prefix }: SearchWords): FieldMatches {
  const terms = words
    .map((word, i) => `"${word.replace(/"/g, '""')}"${prefix && i === words.length - 1 ? '*' : ''}`)
    .join(' ');
  const marks = sql`${MARK_START}, ${MARK_END}`;
  if (field === 'comment') {
    return {
      // CROSS JOIN pins the walk to start from the index, newest comment first, and stop at the limit.
      query: db
        .selectFrom('task_comments_fts as d')
        .crossJoin('task_comments as c')
        .crossJoin('tasks as t')
        .whereRef('c.id', '=', 'd.rowid')
        .whereRef('t.id', '=', 'c.task_id')
        .where(sql<boolean>`d.task_comments_fts match ${terms}`),
      order: 'd.rowid',
      snippet: sql<string>`snippet(d.task_comments_fts, 0, ${marks}, '…', ${SNIPPET_WORDS})`,
      windowed: false,
    };
  }
  return {
    query: db
      .selectFrom('tasks_fts as d')
      .crossJoin('tasks as t')
      .whereRef('t.id', '=', 'd.rowid')
      .where(sql<boolean>`d.tasks_fts match ${`${field} : (${terms})`}`),
    order: 'd.rowid',
    snippet:
      field === 'title'
        ? sql<string>`highlight(d.tasks_fts, 0, ${marks})`
        : sql<string>`snippet(d.tasks_fts, 1, ${marks}, '…', ${SNIPPET_WORDS})`,
    windowed: false,
  };
}

/**
 * The expressions are the indexes' own (migration 0018), so the planner can use them. With a
 * window, the rows are first the newest of the window (a subquery with a LIMIT, which PostgreSQL
 * does not flatten): a walk that cannot go further, whatever the planner thinks of the word.
 */
function postgresMatches(
  db: Kysely<any>,
  field: SearchField,
  { words, prefix }: SearchWords,
  window?: SearchWindow,
): FieldMatches {
  const query = tsQuery(words, prefix);
  const newest = (table: string, scope: (q: SelectQueryBuilder<any, any, any>) => SelectQueryBuilder<any, any, any>) =>
    scope(db.selectFrom(table).selectAll())
      .$if(window?.before !== undefined, (q) => q.where('id', '<', window!.before!))
      .orderBy('id', 'desc')
      .limit(window!.rows);
  const marks = `StartSel=${MARK_START}, StopSel=${MARK_END}`;
  const headline = (column: string, options: string) =>
    sql<string>`ts_headline('simple', ${sql.ref(column)}, ${query}, ${`${options}, ${marks}`})`;
  const fragment = `MaxWords=${SNIPPET_WORDS}, MinWords=${SNIPPET_WORDS / 2}`;
  if (field === 'comment') {
    return {
      query: db
        // (typed as the plain table: the window's columns are the table's own)
        .selectFrom((window ? newest('task_comments', (q) => q).as('c') : 'task_comments as c') as 'task_comments as c')
        .innerJoin('tasks as t', 't.id', 'c.task_id')
        .where(sql<boolean>`to_tsvector('simple', c.body) @@ ${query}`),
      order: 'c.id',
      snippet: headline('c.body', fragment),
      windowed: window !== undefined,
    };
  }
  const indexed = field === 'title' ? sql`t.title` : sql`coalesce(t.description, '')`;
  const ofTeam = (q: SelectQueryBuilder<any, any, any>) => q.where('team_id', '=', window!.teamId);
  return {
    query: db
      .selectFrom((window ? newest('tasks', ofTeam).as('t') : 'tasks as t') as 'tasks as t')
      .where(sql<boolean>`to_tsvector('simple', ${indexed}) @@ ${query}`),
    order: 't.id',
    snippet: field === 'title' ? headline('t.title', 'HighlightAll=true') : headline('t.description', fragment),
    windowed: window !== undefined,
  };
}
