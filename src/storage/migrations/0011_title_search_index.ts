/**
 * A trigram index on tasks.title_search, so a title search across a whole team reads the
 * titles that contain the searched text instead of every task (issue 15; BENCHMARKS.md).
 *
 * SQLite: an FTS5 table with the trigram tokenizer, external content (it stores only the index;
 * the text stays in tasks), kept in step by triggers in the writing transaction itself, so a
 * rollback undoes both and the index never disagrees with tasks. `rebuild` indexes the tasks
 * already there. task-query.ts walks it (storage/title-search.ts).
 * PostgreSQL: a GIN index with pg_trgm's operator class, which the planner uses for the search's
 * own LIKE. pg_trgm is a contrib extension, trusted since PostgreSQL 13, so the database owner
 * tasklane connects as may create it; README says what an operator needs.
 */
import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../dialect.js';

export function titleSearchIndex(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      if (dialect === 'postgres') {
        await createTrigramExtension(db);
        await sql`create index tasks_title_search_trgm_idx on tasks using gin (title_search gin_trgm_ops)`.execute(db);
        return;
      }
      // columnsize=0: no per-row token counts, which only ranking (unused) needs.
      await sql`create virtual table tasks_title_fts using fts5(
        title_search, content = 'tasks', content_rowid = 'id', columnsize = 0,
        tokenize = 'trigram case_sensitive 0'
      )`.execute(db);
      await sql`create trigger tasks_title_fts_insert after insert on tasks begin
        insert into tasks_title_fts (rowid, title_search) values (new.id, new.title_search);
      end`.execute(db);
      // An external-content index forgets a row by its old text, which the trigger still has.
      await sql`create trigger tasks_title_fts_delete after delete on tasks begin
        insert into tasks_title_fts (tasks_title_fts, rowid, title_search) values ('delete', old.id, old.title_search);
      end`.execute(db);
      await sql`create trigger tasks_title_fts_update after update of title_search on tasks begin
        insert into tasks_title_fts (tasks_title_fts, rowid, title_search) values ('delete', old.id, old.title_search);
        insert into tasks_title_fts (rowid, title_search) values (new.id, new.title_search);
      end`.execute(db);
      await sql`insert into tasks_title_fts (tasks_title_fts) values ('rebuild')`.execute(db);
    },
  };
}

/** pg_trgm, or an error that tells the operator what to do. */
async function createTrigramExtension(db: Kysely<any>): Promise<void> {
  try {
    await sql`create extension if not exists pg_trgm`.execute(db);
  } catch (error) {
    throw new Error(
      `title search needs the PostgreSQL extension pg_trgm, and it could not be created ` +
        `(${error instanceof Error ? error.message : String(error)}). pg_trgm ships with PostgreSQL ` +
        `(the contrib modules; on Debian and Ubuntu in the postgresql package) and is trusted from ` +
        `PostgreSQL 13, so the database's owner may create it: connect tasklane as the owner, or have ` +
        `a superuser run "create extension pg_trgm" in this database once, then start tasklane again.`,
      { cause: error },
    );
  }
}
