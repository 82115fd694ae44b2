/** The realtime outbox: events written in the same transaction as the change they announce. */
import type { Kysely, Migration } from 'kysely';
import { withSerialId, type DialectName } from '../dialect.js';

export function eventsOutbox(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      // Per-team event sequence: bumped under the team row's lock, so seq order is commit order.
      await db.schema
        .alterTable('teams')
        .addColumn('event_counter', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();

      await withSerialId(db.schema.createTable('events'), dialect)
        .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('events_team_seq_unique', ['team_id', 'seq'])
        .execute();

      // Who may see each event, decided inside the writing transaction.
      await db.schema
        .createTable('event_recipients')
        .addColumn('event_id', 'integer', (c) => c.notNull().references('events.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('event_recipients_pk', ['event_id', 'user_id'])
        .execute();
    },
  };
}
