/**
 * Issue 33: when a person last allowed a registered OAuth client (null: never). Registration is
 * open to anyone (RFC 7591), so a client nobody allows within a day is deleted by the
 * housekeeping (oauth.service.ts, `pruneUnusedClients`) rather than kept forever.
 */
import type { Kysely, Migration } from 'kysely';

export function oauthClientUse(): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('oauth_clients').addColumn('authorized_at', 'text').execute();
    },
  };
}
