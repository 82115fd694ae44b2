/**
 * Issue 33, OAuth 2.1 for MCP clients (docs/mcp.md, "Authorization (OAuth 2.1)"): the clients that
 * registered themselves (RFC 7591, public clients: no secret), and the authorization codes a
 * person's consent gives one of them, stored only as their sha256. A code is single-use
 * (`used_at`) and lives ten minutes; the access token it is exchanged for is an ordinary scoped
 * row of `api_keys`, whose id the code keeps (`key_id`) so that a replayed code revokes it.
 */
import type { Kysely, Migration } from 'kysely';

export function oauth(): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('oauth_clients')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('client_name', 'text', (c) => c.notNull())
        // A JSON array of the exact redirect URIs the client may use.
        .addColumn('redirect_uris', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('oauth_codes')
        .addColumn('code_hash', 'text', (c) => c.primaryKey())
        .addColumn('client_id', 'text', (c) => c.notNull().references('oauth_clients.id').onDelete('cascade'))
        .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('scopes', 'text', (c) => c.notNull())
        .addColumn('list_ids', 'text')
        .addColumn('code_challenge', 'text', (c) => c.notNull())
        .addColumn('redirect_uri', 'text', (c) => c.notNull())
        .addColumn('resource', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('used_at', 'text')
        .addColumn('key_id', 'text')
        .execute();
      // The housekeeping's sweep of old codes.
      await db.schema.createIndex('oauth_codes_expiry_idx').on('oauth_codes').column('expires_at').execute();
    },
  };
}
