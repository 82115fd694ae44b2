/**
 * Outgoing webhooks (issue 17): the endpoints, the event types each subscribes to, one delivery
 * per event and endpoint (written in the change's own transaction, from the outbox), and the log
 * of every attempt. Numbered 0013: 0012 belongs to task activity, built beside it; the migrator
 * needs names in order, not without gaps.
 */
import type { Kysely, Migration } from 'kysely';
import { withSerialId, type DialectName } from '../dialect.js';

export function webhooks(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('webhooks')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('owner_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull())
        // 1: every event type (also ones added later); 0: those in webhook_event_types.
        .addColumn('all_events', 'integer', (c) => c.notNull())
        .addColumn('enabled', 'integer', (c) => c.notNull())
        .addColumn('disabled_reason', 'text')
        .addColumn('disabled_at', 'text')
        // Sealed with the server's WEBHOOK_SECRET_KEY (webhooks/secret-box.ts), never in clear.
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('previous_secret', 'text')
        .addColumn('previous_secret_expires_at', 'text')
        // When the current run of failed attempts began; null after a success.
        .addColumn('failing_since', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      // The outbox's statement finds a team's enabled webhooks with it.
      await db.schema.createIndex('webhooks_team_idx').on('webhooks').columns(['team_id', 'owner_id']).execute();

      await db.schema
        .createTable('webhook_event_types')
        .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
        .addColumn('type', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('webhook_event_types_pk', ['webhook_id', 'type'])
        .execute();

      // The id orders an endpoint's deliveries: the outbox allocates it under the team row's
      // lock, so it follows the events' commit order.
      await withSerialId(db.schema.createTable('webhook_deliveries'), dialect)
        .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
        // The outbox event it announces (no foreign key: events are pruned long before deliveries);
        // null for a test. The activity record of a change can be found by it.
        .addColumn('event_id', 'integer')
        .addColumn('type', 'text', (c) => c.notNull())
        // The event's data (ids), as the outbox wrote it; the body is built from it once.
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('occurred_at', 'text', (c) => c.notNull())
        // The body, built at the first attempt and then sent unchanged by every retry.
        .addColumn('payload', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempt_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('first_attempt_at', 'text')
        .addColumn('next_attempt_at', 'text', (c) => c.notNull())
        // A worker's claim on the delivery (its lease) while it sends it.
        .addColumn('locked_until', 'text')
        .addColumn('finished_at', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      // An endpoint's queue (its oldest unfinished deliveries), and its log, newest first.
      await db.schema
        .createIndex('webhook_deliveries_queue_idx')
        .on('webhook_deliveries')
        .columns(['webhook_id', 'status', 'id'])
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_due_idx')
        .on('webhook_deliveries')
        .columns(['status', 'next_attempt_at'])
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_finished_idx')
        .on('webhook_deliveries')
        .columns(['finished_at'])
        .execute();

      await withSerialId(db.schema.createTable('webhook_attempts'), dialect)
        .addColumn('delivery_id', 'integer', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
        .addColumn('attempted_at', 'text', (c) => c.notNull())
        .addColumn('duration_ms', 'integer', (c) => c.notNull())
        .addColumn('status_code', 'integer')
        .addColumn('response_body', 'text')
        .addColumn('error', 'text')
        .addColumn('next_attempt_at', 'text')
        .execute();
      await db.schema
        .createIndex('webhook_attempts_delivery_idx')
        .on('webhook_attempts')
        .columns(['delivery_id', 'id'])
        .execute();
      await db.schema
        .createIndex('webhook_attempts_time_idx')
        .on('webhook_attempts')
        .columns(['attempted_at'])
        .execute();
    },
  };
}
