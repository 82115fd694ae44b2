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

/** Per field, the lexemes ANALYZE found frequent, sorted (code units); null: no statistics. */
type FrequentLexemes = Record<SearchField, readonly string[] | null>;

/**
 * Per database (a root Kysely's adapter, which its transactions and plugins share), the frequent
 * lexemes and when they were asked for. Read on a search only, so a process that never searches
 * never reads them; shared by the searches of the next STATISTICS_MS.
 */
const statistics = new WeakMap<object, { since: number; lexemes: Promise<FrequentLexemes> }>();

/** A word whose lexeme is the word in lower case, in `simple`'s parser as in the service's. */
const PLAIN_WORD = /^[\p{L}\p{N}]+$/u;

/**
 * Whether a field's few matches should be asked of the index (fewMatches) before the newest rows
 * are looked at: on PostgreSQL, when its statistics hold the words and one of them is rare.
 *
 * Why: the window (postgresMatches) computes `to_tsvector` for up to its 2,000 rows, which is
 * what a common word needs (its page is among them) and all a rare word pays for nothing before
 * the index finds its few matches: at 1M tasks a team, 42 ms for a rare word and 33 ms for a word
 * found nowhere, against 4 ms at 10k (BENCHMARKS.md, "Issue 29: search"). PostgreSQL's own
 * statistics of the expression indexes tell the two apart: `most_common_elems` holds the
 * lexemes found in more than a small share of the sampled rows (1000-entry statistics, up to
 * 10,000 lexemes, migration 0018). A word that is not among them (for the last word as a prefix,
 * no lexeme among them starts with it) is rarer than the rarest of them, so it goes to the index
 * first; if the index finds more than its cap after all (a word grown common since the last
 * ANALYZE), the window and the walk follow as for any word, and the answer is the same either way.
 * Every word must match, so one rare word makes the rows few. No statistics (never analyzed, or
 * pg_stats not readable by this role), or a word whose lexeme this cannot be sure of: the window
 * first, as for a frequent word. Only the order of the steps depends on this, never the answer.
 */
export async function asksIndexFirst(db: Kysely<any>, field: SearchField, { words, prefix }: SearchWords) {
  if (!isPostgres(db)) return false;
  const frequent = (await frequentLexemes(db))[field];
  if (!frequent) return false;
  return words.some((word, i) => {
    if (!PLAIN_WORD.test(word)) return false;
    const lexeme = word.toLowerCase();
    // The first lexeme not before `lexeme`: itself, or the first that starts with it, if any.
    let low = 0;
    let high = frequent.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (frequent[middle]! < lexeme) low = middle + 1;
      else high = middle;
    }
    const next = frequent[low];
    return !(next === lexeme || (prefix && i === words.length - 1 && next?.startsWith(lexeme)));
  });
}

function frequentLexemes(db: Kysely<any>): Promise<FrequentLexemes> {
  const key = db.getExecutor().adapter;
  const known = statistics.get(key);
  if (known && Date.now() - known.since < STATISTICS_MS) return known.lexemes;
  const lexemes = readFrequentLexemes(db);
  statistics.set(key, { since: Date.now(), lexemes });
  return lexemes;
}

/** One catalog read for the three indexes; a failed read counts as no statistics. */
async function readFrequentLexemes(db: Kysely<any>): Promise<FrequentLexemes> {
  const found: FrequentLexemes = { title: null, description: null, comment: null };
  try {
    const rows = await db
      .selectFrom('pg_stats')
      .where('schemaname', '=', sql<string>`current_schema()`)
      .where('tablename', 'in', Object.values(FIELD_INDEXES))
      .select(['tablename', sql<string[] | null>`most_common_elems::text::text[]`.as('elements')])
      .execute();
    for (const [field, index] of Object.entries(FIELD_INDEXES) as [SearchField, string][]) {
      const elements = rows.find((row) => row.tablename === index)?.elements;
      if (elements) found[field] = [...elements].sort();
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
