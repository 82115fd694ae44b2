/**
 * Issue 33: how a change was made, when not by a person at the API or the web app. `via` is JSON,
 * `{"kind":"agent","keyName":"…"}` for a change an agent made through /mcp with an API key; null
 * for every other entry (all existing ones), so the published activity shape is unchanged for them.
 */
import type { Kysely, Migration } from 'kysely';

export function activityVia(): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('task_activity').addColumn('via', 'text').execute();
    },
  };
}
