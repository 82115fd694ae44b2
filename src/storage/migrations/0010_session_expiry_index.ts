/** Expired sessions are pruned by expiry time; this index keeps that a short walk. */
import type { Kysely, Migration } from 'kysely';

export function sessionExpiryIndex(): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.createIndex('sessions_expires_idx').on('sessions').columns(['expires_at']).execute();
    },
  };
}
