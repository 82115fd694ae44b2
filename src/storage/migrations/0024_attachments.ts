/**
 * Issue 31, attachments: files on tasks. The bytes live in a file store (attachments/storage/),
 * named by `storage_key`, a server-made random name; the row is what the API shows. Each team's
 * bytes in use are counted on its row (`attachment_bytes`), bumped by a conditional UPDATE in the
 * upload's transaction, so concurrent uploads never pass ATTACHMENTS_TEAM_QUOTA_BYTES.
 */
import { sql, type Kysely, type Migration } from 'kysely';
import { withSerialId, type DialectName } from '../dialect.js';

export function attachments(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .alterTable('teams')
        .addColumn('attachment_bytes', 'bigint', (c) => c.notNull().defaultTo(sql`0`))
        .execute();
      // A task's deletion takes its rows; their files are then orphans, which the housekeeping
      // job's reconciliation removes (attachments/reconcile.ts).
      await withSerialId(db.schema.createTable('attachments'), dialect)
        .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('task_id', 'integer', (c) => c.notNull().references('tasks.id').onDelete('cascade'))
        .addColumn('storage_key', 'text', (c) => c.notNull().unique())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('size', 'bigint', (c) => c.notNull())
        .addColumn('content_type', 'text', (c) => c.notNull())
        .addColumn('sha256', 'text', (c) => c.notNull())
        .addColumn('uploaded_by', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      // A task's attachments, oldest first, at a flat cost.
      await db.schema.createIndex('attachments_task_idx').on('attachments').columns(['task_id', 'id']).execute();
      await db.schema.createIndex('attachments_uploader_idx').on('attachments').column('uploaded_by').execute();
    },
  };
}
