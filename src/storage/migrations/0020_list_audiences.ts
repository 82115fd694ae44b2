/**
 * Issue 27: a change's stored audience no longer grows with its lists' size. An event used to
 * keep one `event_recipients` row per person who may read its task; a list of 2,000 members cost
 * 2,000 rows a change. Now a list's members are kept once, as an immutable snapshot (a "list
 * audience"), and an event names the snapshots of its task's lists (`event_audiences`, one row
 * per list) beside the few people who read it directly (creator, assignees: `event_recipients`).
 *
 * - `list_audiences` / `list_audience_members`: a snapshot of one list's members. Never changed
 *   once written; its id is never reused (AUTOINCREMENT on SQLite, a sequence on PostgreSQL), so a
 *   process may cache its members by id. No foreign key to the list: a deleted list's snapshots
 *   stay as long as the events that name them.
 * - `list_current_audiences`: the snapshot that still equals a list's members. Any change to
 *   `list_members` deletes it, by trigger, so no code path can forget to; the next change of one
 *   of the list's tasks writes a new snapshot (tasks/audience.ts). Derived, so not copied by
 *   `migrate-data`: the target starts without, and makes its own.
 * - `event_audiences`: which snapshots an event's audience includes.
 *
 * The trigger also marks the superseded snapshot's `superseded_at`; pruning (changes/outbox.ts)
 * waits a while after it, since a transaction may have read it as current just before.
 *
 * On PostgreSQL the trigger also locks the list's row (FOR NO KEY UPDATE) before it deletes the
 * pointer; a writer making a snapshot holds that row FOR SHARE from before it reads the members
 * to its commit, so a membership change and a snapshot are ordered, and a snapshot read before a
 * member left can never become the list's current one after (tasks/audience.ts).
 */
import { sql, type Kysely, type Migration } from 'kysely';
import { withSerialId, type DialectName } from '../dialect.js';

/** Now, as the ISO 8601 text every timestamp column holds. */
const NOW_PG = sql.raw(`to_char(clock_timestamp() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);
const NOW_SQLITE = sql.raw(`strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`);

export function listAudiences(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await withSerialId(db.schema.createTable('list_audiences'), dialect)
        .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('list_id', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        // When it stopped being its list's current snapshot: pruning spares it for a while after,
        // for a transaction that read it as current just before (changes/outbox.ts, pruneEvents).
        .addColumn('superseded_at', 'text')
        .execute();
      await db.schema
        .createTable('list_audience_members')
        .addColumn('audience_id', 'integer', (c) => c.notNull().references('list_audiences.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('list_audience_members_pk', ['audience_id', 'user_id'])
        .execute();
      await db.schema
        .createTable('list_current_audiences')
        .addColumn('list_id', 'integer', (c) => c.primaryKey().references('task_lists.id').onDelete('cascade'))
        .addColumn('audience_id', 'integer', (c) => c.notNull().references('list_audiences.id'))
        .execute();
      await db.schema
        .createTable('event_audiences')
        .addColumn('event_id', 'integer', (c) => c.notNull().references('events.id').onDelete('cascade'))
        .addColumn('audience_id', 'integer', (c) => c.notNull().references('list_audiences.id'))
        .addPrimaryKeyConstraint('event_audiences_pk', ['event_id', 'audience_id'])
        .execute();
      // Pruning asks whether any event still names a snapshot.
      await db.schema.createIndex('event_audiences_audience_idx').on('event_audiences').column('audience_id').execute();

      if (dialect === 'postgres') {
        await sql`create function list_audience_superseded(list integer) returns void language plpgsql as $$
          begin
            perform 1 from task_lists where id = list for no key update;
            update list_audiences set superseded_at = ${NOW_PG}
              where id in (select audience_id from list_current_audiences where list_id = list);
            delete from list_current_audiences where list_id = list;
          end $$`.execute(db);
        await sql`create function list_members_changed() returns trigger language plpgsql as $$
          begin
            if tg_op <> 'INSERT' then
              perform list_audience_superseded(old.list_id);
            end if;
            if tg_op <> 'DELETE' then
              perform list_audience_superseded(new.list_id);
            end if;
            return null;
          end $$`.execute(db);
        await sql`create trigger list_members_changed after insert or update or delete on list_members
          for each row execute function list_members_changed()`.execute(db);
        return;
      }
      for (const [event, lists] of [
        ['insert', 'new.list_id'],
        ['delete', 'old.list_id'],
        ['update', 'old.list_id, new.list_id'],
      ] as const) {
        await sql`create trigger ${sql.raw(`list_members_${event}d`)} after ${sql.raw(event)} on list_members begin
          update list_audiences set superseded_at = ${NOW_SQLITE}
            where id in (select audience_id from list_current_audiences where list_id in (${sql.raw(lists)}));
          delete from list_current_audiences where list_id in (${sql.raw(lists)});
        end`.execute(db);
      }
    },
  };
}
