/**
 * Scoped API keys (issue 33): what a key may do and which lists it may see, each a JSON array in
 * text. Null for every existing key, which keeps the full power it always had.
 */
import type { Kysely, Migration } from 'kysely';

export function keyScopes(): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      // One column per statement: SQLite's ALTER TABLE adds one at a time.
      await db.schema.alterTable('api_keys').addColumn('scopes', 'text').execute();
      await db.schema.alterTable('api_keys').addColumn('list_ids', 'text').execute();
    },
  };
}
