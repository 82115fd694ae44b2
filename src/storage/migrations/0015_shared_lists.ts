/** A list shared with the whole team (lists/shared-lists.ts): every member of the team is one of its members. */
import type { Kysely, Migration } from 'kysely';

export function sharedLists(): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      // 0/1 like is_archived; existing lists are not shared.
      await db.schema
        .alterTable('task_lists')
        .addColumn('shared_with_team', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  };
}
