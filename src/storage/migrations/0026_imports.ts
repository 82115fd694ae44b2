/**
 * Issue 32, imports: a file from tasklane, Trello, Todoist or a spreadsheet, planned before
 * anything is written (imports/). `imports` is one upload and what became of it: its plan (JSON),
 * its progress while applied, and what its apply did. `import_rows` holds what the file said, one
 * row per object in the order they are written, so that an apply runs in batches from any process
 * (each batch a scheduled job, `import.apply`) without reading the file again. `import_objects`
 * maps each imported object's source ref to what it became in the team: applying the same file
 * again finds them (and, where the source's object is the same as then (`source_hash`), changes
 * nothing), and an undo finds what an import created and the
 * version it left it at.
 */
import type { Kysely, Migration } from 'kysely';
import { withSerialId, type DialectName } from '../dialect.js';

export function imports(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await withSerialId(db.schema.createTable('imports'), dialect)
        .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('requested_by', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('file_name', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('plan', 'text', (c) => c.notNull())
        .addColumn('rows_total', 'integer', (c) => c.notNull())
        .addColumn('rows_done', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('result', 'text')
        .addColumn('error', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('finished_at', 'text')
        .execute();
      await db.schema.createIndex('imports_team_idx').on('imports').columns(['team_id', 'id']).execute();

      await db.schema
        .createTable('import_rows')
        .addColumn('import_id', 'integer', (c) => c.notNull().references('imports.id').onDelete('cascade'))
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('item', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('import_rows_pkey', ['import_id', 'seq'])
        .execute();

      await db.schema
        .createTable('import_objects')
        .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('ref', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('object_id', 'integer', (c) => c.notNull())
        .addColumn('created_by_import', 'integer', (c) => c.references('imports.id').onDelete('set null'))
        .addColumn('version', 'integer')
        .addColumn('source_hash', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('import_objects_pkey', ['team_id', 'ref'])
        .execute();
      // An undo's walk over what its import created.
      await db.schema
        .createIndex('import_objects_creator_idx')
        .on('import_objects')
        .columns(['created_by_import'])
        .execute();
    },
  };
}
