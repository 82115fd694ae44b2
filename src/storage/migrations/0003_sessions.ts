/** Web sign-in sessions. */
import type { Kysely, Migration } from 'kysely';

export function sessions(): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('sessions')
        // sha256 of the cookie's secret: a stolen database yields no usable session.
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('csrf_token', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('sessions_user_idx').on('sessions').columns(['user_id']).execute();
    },
  };
}
