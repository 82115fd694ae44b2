/**
 * Idempotency records: one per (credential, team, Idempotency-Key), holding the original response
 * of a POST so that a retry replays it instead of running again (see http/idempotency.ts).
 */
import type { Kysely, Migration } from 'kysely';

export function idempotencyKeys(): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('idempotency_keys')
        // `key:<api key id>` or `session:<session id>`: a key is the caller's own, never shared.
        .addColumn('credential', 'text', (c) => c.notNull())
        .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        // HMACs under a key derived from the credential's secret: the table alone reveals nothing.
        .addColumn('key_hash', 'text', (c) => c.notNull())
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        // The sealed (AES-256-GCM) status, headers and body; written in the request's own transaction.
        .addColumn('response', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        // The reservation: a second insert of the same key conflicts here (or, in PostgreSQL, waits
        // for the first transaction to end).
        .addPrimaryKeyConstraint('idempotency_keys_pk', ['credential', 'team_id', 'key_hash'])
        .execute();
      await db.schema.createIndex('idempotency_keys_created_idx').on('idempotency_keys').column('created_at').execute();
    },
  };
}
