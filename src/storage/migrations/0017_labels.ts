/**
 * Labels (issue 29): team-wide names and colours that tasks carry any number of. A name is
 * unique in its team ignoring case: `name_key` holds it folded to lower case (as title_search
 * folds titles, the same on both engines), and the unique index holds the rule under races.
 */
import type { Kysely, Migration } from 'kysely';
import { withSerialId, type DialectName } from '../dialect.js';

export function labels(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await withSerialId(db.schema.createTable('labels'), dialect)
        .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('name_key', 'text', (c) => c.notNull())
        .addColumn('color', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('labels_team_name_unique')
        .on('labels')
        .columns(['team_id', 'name_key'])
        .unique()
        .execute();

      await db.schema
        .createTable('task_labels')
        .addColumn('task_id', 'integer', (c) => c.notNull().references('tasks.id').onDelete('cascade'))
        .addColumn('label_id', 'integer', (c) => c.notNull().references('labels.id').onDelete('cascade'))
        .addPrimaryKeyConstraint('task_labels_pk', ['task_id', 'label_id'])
        .execute();
      // The label filter of GET /v1/tasks and a label's deletion start from the label.
      await db.schema.createIndex('task_labels_label_idx').on('task_labels').columns(['label_id', 'task_id']).execute();
    },
  };
}
