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
 *   of the list’s tasks writes a new snapshot (tasks/access.ts). Derived, so not copied by
 *   `migrate-data`: the target starts without, and makes its own.
 * - `event_audiences`: which snapshots an event's audience includes.
 *
 * The trigger also marks the superseded snapshot's `superseded_at`; pruning (changes/outbox.ts)
 * waits a while after it, since a transaction may have read it as current just before.
 *
 * On PostgreSQL, where transactions overlap, a change of a list's members (or of its archiving)
 * also takes an advisory lock on the list's membership, exclusive; a change of a task takes it
 * shared, before it reads its audience, and holds it to commit (tasks/access.ts). So the two are
 * ordered: an event committed after a member left never names them, and a snapshot is read from
 * members that cannot change before it is made current. SQLite runs one writer at a time.
 */
import { sql, type Kysely, type Migration } from 'kysely';
import { LIST_MEMBERSHIP_LOCK, withSerialId, type DialectName } from '../dialect.js';

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
      // No index on audience_id: only pruning asks which snapshots events name, a periodic job
      // that reads the table once; an index would cost every change a page (BENCHMARKS.md).

      if (dialect === 'postgres') {
        // Statement-level, so that one statement changing many lists' members (a member leaving
        // the team) takes their locks in list id order, as the readers do: no deadlock.
        await sql`create function list_members_changed() returns trigger language plpgsql as $$
          declare
            list integer;
          begin
            for list in select distinct list_id from changed_lists order by 1 loop
              perform pg_advisory_xact_lock(${sql.lit(LIST_MEMBERSHIP_LOCK)}, list);
            end loop;
            update list_audiences set superseded_at = ${NOW_PG}
              where id in (select c.audience_id from list_current_audiences c
                           where c.list_id in (select list_id from changed_lists));
            delete from list_current_audiences where list_id in (select list_id from changed_lists);
            return null;
          end $$`.execute(db);
        await sql`create trigger list_members_inserted after insert on list_members
          referencing new table as changed_lists for each statement execute function list_members_changed()`.execute(
          db,
        );
        await sql`create trigger list_members_deleted after delete on list_members
          referencing old table as changed_lists for each statement execute function list_members_changed()`.execute(
          db,
        );
        // An update names the list it leaves and the one it joins; tasklane never updates these
        // rows, but a trigger that missed one would let a snapshot outlive its members.
        await sql`create function list_members_updated() returns trigger language plpgsql as $$
          begin
            perform pg_advisory_xact_lock(${sql.lit(LIST_MEMBERSHIP_LOCK)}, l)
              from (select old.list_id as l union select new.list_id order by 1 offset 0) ids;
            update list_audiences set superseded_at = ${NOW_PG}
              where id in (select audience_id from list_current_audiences where list_id in (old.list_id, new.list_id));
            delete from list_current_audiences where list_id in (old.list_id, new.list_id);
            return null;
          end $$`.execute(db);
        await sql`create trigger list_members_updated after update on list_members
          for each row execute function list_members_updated()`.execute(db);
        // Archiving a list ends its members' access as leaving it does: ordered with readers the same way.
        await sql`create function list_archived_changed() returns trigger language plpgsql as $$
          begin
            perform pg_advisory_xact_lock(${sql.lit(LIST_MEMBERSHIP_LOCK)}, new.id);
            return null;
          end $$`.execute(db);
        await sql`create trigger task_lists_archived_changed after update of is_archived on task_lists
          for each row when (old.is_archived is distinct from new.is_archived)
          execute function list_archived_changed()`.execute(db);
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
