/** Newest-first task listings walk this index and stop at the limit, instead of sorting the team. */
import type { Kysely, Migration } from 'kysely';

export function taskListOrder(): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.createIndex('tasks_team_id_idx').on('tasks').columns(['team_id', 'id']).execute();
    },
  };
}
