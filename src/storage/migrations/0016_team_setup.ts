/**
 * A team that the first start made and its owner has not set up yet (issue 28): the web app asks
 * for the team's name, the owner's name, email and a new password at the first sign-in. 0 for every
 * existing team, so nothing that works today asks anything.
 */
import type { Kysely, Migration } from 'kysely';

export function teamSetup(): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .alterTable('teams')
        .addColumn('setup_pending', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  };
}
