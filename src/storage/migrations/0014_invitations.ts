/**
 * Invitations into a team (issue 18): a link's token is stored only as its sha256, like an API
 * key's, and an invitation is used at most once (`used_at` is set by one conditional UPDATE).
 */
import type { Kysely, Migration } from 'kysely';

export function invitations(): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('invitations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('role', 'text', (c) => c.notNull())
        // Lower case; null: anyone holding the link may accept it.
        .addColumn('email', 'text')
        // sha256 of the link's token, hex; the token itself is never stored.
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('invited_by', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('used_at', 'text')
        .addColumn('used_by', 'text', (c) => c.references('users.id').onDelete('set null'))
        .addColumn('revoked_at', 'text')
        .execute();
      // The team's pending invitations, newest first.
      await db.schema
        .createIndex('invitations_team_idx')
        .on('invitations')
        .columns(['team_id', 'created_at'])
        .execute();
    },
  };
}
