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
 * a word found nowhere (the whole team). Here the index is asked alone (a bitmap scan, forced for
 * this one statement), which costs a rare word almost nothing and a common one its whole posting
 * list: so a search asks it after the newest rows (a common word's page is there), or first for a
 * word the statistics call rare (asksIndexFirst). Only a word with more matches than `cap` is
 * walked, and such a word is common enough that the walk stops soon.
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

/** How long a process trusts a database's word statistics before reading them again. */
const STATISTICS_MS = 60_000;

/** Each field's GIN index (migration 0018), whose statistics say which words are frequent. */
const FIELD_INDEXES: Record<SearchField, string> = {
  title: 'tasks_title_tsv_idx',
  description: 'tasks_description_tsv_idx',
  comment: 'task_comments_body_tsv_idx',
};

/**
 * An index's frequent lexemes (pg_stats.most_common_elems), sorted by code unit, each with the
 * share of the sampled rows that hold it (most_common_elem_freqs).
 */
interface FrequentLexemes {
  lexemes: string[];
  shares: number[];
}

/** Per field, null where there are no statistics. */
type Statistics = Record<SearchField, FrequentLexemes | null>;

/**
 * Per database (a root Kysely's adapter, which its transactions and plugins share), the
 * statistics and when they were asked for. Read on a search only, so a process that never
 * searches never reads them; shared by the searches of the next STATISTICS_MS.
 */
const cache = new WeakMap<object, { since: number; statistics: Promise<Statistics> }>();

/** A word whose lexeme is the word in lower case, in `simple`'s parser as in the service's. */
const PLAIN_WORD = /^[\p{L}\p{N}]+$/u;

/** What the window a search would look at first holds: `rows` rows, where it wants `wanted` hits. */
export interface WindowFill {
  rows: number;
  wanted: number;
}

/**
 * Whether a field's few matches should be asked of the index (fewMatches) before the newest rows
 * are looked at: on PostgreSQL, when its statistics say the newest `rows` rows would hold fewer
 * than the `wanted` hits, so that the window could not answer alone.
 *
 * Why: the window (postgresMatches) computes `to_tsvector` for up to its 2,000 rows, which is
 * what a common word needs (its page is among them) and all a rare word pays for nothing before
 * the index finds its few matches: 42 ms for a rare word and 33 ms for a word found nowhere at
 * every size, quiet (BENCHMARKS.md, "Issue 29: search"). PostgreSQL's own statistics of the
 * expression indexes tell the two apart: `most_common_elems` holds every lexeme found in more
 * than a small share of the sampled rows (1000-entry statistics: up to 10,000 lexemes, migration
 * 0018), with that share. A word that is not among them is rarer than any of them (as a prefix:
 * none of them starts with it), which alone makes it rare, as the issue asked; a word among them
 * is rare when its share of `rows` is under `wanted` (a word in 10 rows of 20,000 is recorded
 * where the sample is the whole table). For the last word as a prefix, the share is that of all
 * the recorded lexemes starting with it; for several words, which must all match, the smallest.
 *
 * Either order gives the same answer, only its cost differs: if the index finds more than its
 * cap after all (a word grown common since the last ANALYZE, or a prefix of many rare lexemes),
 * the window and the walk follow as for any word, and the index's read is the cost of the guess.
 * No statistics (never analyzed, or pg_stats not readable by this role), or a word whose lexeme
 * this cannot be sure of: the window first, as before there were statistics.
 */
export async function asksIndexFirst(
  db: Kysely<any>,
  field: SearchField,
  { words, prefix }: SearchWords,
  { rows, wanted }: WindowFill,
): Promise<boolean> {
  if (!isPostgres(db)) return false;
  const frequent = (await statisticsOf(db))[field];
  if (!frequent) return false;
  const shares = words.map((word, i) =>
    PLAIN_WORD.test(word) ? shareOf(frequent, word.toLowerCase(), prefix && i === words.length - 1) : 1,
  );
  return Math.min(...shares) * rows < wanted;
}

/** The share of the rows holding `lexeme` (as a prefix: any lexeme starting with it); 0 when not recorded. */
function shareOf({ lexemes, shares }: FrequentLexemes, lexeme: string, prefix: boolean): number {
  // The first recorded lexeme not before `lexeme`: itself, else the first that starts with it, if any.
  let low = 0;
  let high = lexemes.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (lexemes[middle]! < lexeme) low = middle + 1;
    else high = middle;
  }
  if (!prefix) return lexemes[low] === lexeme ? shares[low]! : 0;
  let share = 0;
  for (let i = low; i < lexemes.length && lexemes[i]!.startsWith(lexeme); i++) share += shares[i]!;
  return Math.min(share, 1);
}

function statisticsOf(db: Kysely<any>): Promise<Statistics> {
  const key = db.getExecutor().adapter;
  const known = cache.get(key);
  if (known && Date.now() - known.since < STATISTICS_MS) return known.statistics;
  const statistics = readStatistics(db);
  cache.set(key, { since: Date.now(), statistics });
  return statistics;
}

/** One catalog read for the three indexes; a failed read counts as no statistics. */
async function readStatistics(db: Kysely<any>): Promise<Statistics> {
  const found: Statistics = { title: null, description: null, comment: null };
  try {
    const rows = await db
      .selectFrom('pg_stats')
      .where('schemaname', '=', sql<string>`current_schema()`)
      .where('tablename', 'in', Object.values(FIELD_INDEXES))
      .select([
        'tablename',
        sql<string[] | null>`most_common_elems::text::text[]`.as('lexemes'),
        sql<number[] | null>`most_common_elem_freqs`.as('shares'),
      ])
      .execute();
    for (const [field, index] of Object.entries(FIELD_INDEXES) as [SearchField, string][]) {
      const row = rows.find((r) => r.tablename === index);
      if (!row?.lexemes || !row.shares) continue;
      // (the shares end with three more numbers: the smallest, the largest, and the share of nulls)
      const order = row.lexemes.map((_, i) => i).sort((a, b) => (row.lexemes![a]! < row.lexemes![b]! ? -1 : 1));
      found[field] = { lexemes: order.map((i) => row.lexemes![i]!), shares: order.map((i) => row.shares![i]!) };
    }
  } catch {
    // (left as no statistics: the window first, as before they existed)
  }
  return found;
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
