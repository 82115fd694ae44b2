/**
 * Issue 32, exports: a whole team (or what one member may read) written as one gzip'd JSON Lines
 * file (docs/export-format.md). A row is one request for such a file; the file itself lives in
 * the exports' file store (exports/export-files.ts) under `storage_key`, a server-made name.
 * `updated_at` is the running export's heartbeat: a row left pending or running by a process that
 * died stops being refreshed, and reads as failed once it is old (exports/exports.service.ts).
 */
import type { Kysely, Migration } from 'kysely';
import { withSerialId, type DialectName } from '../dialect.js';

export function exports(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await withSerialId(db.schema.createTable('exports'), dialect)
        .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('requested_by', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('storage_key', 'text')
        .addColumn('size', 'bigint')
        .addColumn('sha256', 'text')
        .addColumn('counts', 'text')
        .addColumn('error', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('finished_at', 'text')
        .addColumn('expires_at', 'text')
        .execute();
      // A person's own exports, newest first (GET /v1/exports).
      await db.schema
        .createIndex('exports_requester_idx')
        .on('exports')
        .columns(['team_id', 'requested_by', 'id'])
        .execute();
      // The housekeeping job's sweep of expired ones.
      await db.schema.createIndex('exports_expiry_idx').on('exports').column('expires_at').execute();
    },
  };
}
