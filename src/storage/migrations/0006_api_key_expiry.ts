/** Optional API key expiry: null for every existing key, so nothing that works today stops working. */
import type { Kysely, Migration } from 'kysely';

export function apiKeyExpiry(): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('api_keys').addColumn('expires_at', 'text').execute();
    },
  };
}
