/**
 * A task's activity entries, as a change writes them: in the change's own transaction (the
 * outbox folds an entry into the statement that records its event; see outbox.ts). The read side,
 * pages of a task's history, is activity/'s. `changes` is stored as JSON holding people and lists
 * by id (`StoredChanges`): who and what they are is read for each reader.
 */
import type { QueryCreator } from 'kysely';
import type { Caller } from '../caller.js';
import type { ActivityKind } from '../contract/index.js';
import { inList, keeping, listParam } from '../storage/dialect.js';
import { prepared } from '../storage/prepared.js';
import type { Db, Tables } from '../storage/schema.js';

/** A change of one field: before and after. */
export interface FieldChange<T> {
  from: T;
  to: T;
}

/** What an entry stores: as `ActivityChanges`, with people (user ids) and lists (list ids) by id. */
export interface StoredChanges {
  title?: FieldChange<string>;
  description?: FieldChange<string | null>;
  priority?: FieldChange<string | null>;
  dueDate?: FieldChange<string | null>;
  status?: FieldChange<{ id: number; name: string }>;
  parentId?: FieldChange<number | null>;
  assignees?: FieldChange<string[]>;
  taskLists?: FieldChange<number[]>;
  /** Labels as named at the change: a label is team-wide, so every reader may see it. */
  labels?: FieldChange<{ id: number; name: string }[]>;
  commentId?: FieldChange<number | null>;
  /** A file attached or removed (issue 31), by its id and name. */
  attachment?: FieldChange<{ id: number; name: string } | null>;
}

/** One entry to record. */
export interface NewActivity {
  taskId: number;
  /** Null: an operator's change (`tasklane admin`). */
  actorId: string | null;
  kind: ActivityKind;
  changes: StoredChanges;
  /** How the change was made when an agent made it (`viaOf`, JSON); absent or null otherwise. */
  via?: string | null;
}

/** The values of one row, `changes` as JSON text. */
export type ActivityValues = {
  taskId: number;
  actorId: string | null;
  kind: string;
  changes: string;
  createdAt: string;
  via: string | null;
};

export const activityValues = (entry: NewActivity, createdAt: string): ActivityValues => ({
  taskId: entry.taskId,
  actorId: entry.actorId,
  kind: entry.kind,
  changes: JSON.stringify(entry.changes),
  createdAt,
  via: entry.via ?? null,
});

/**
 * The `via` of an entry the caller's change records: `{"kind":"agent","keyName"}` for a change
 * made through /mcp, null (no extra work, the column's default) for every other.
 */
export const viaOf = (caller: Pick<Caller, 'via'>): string | null =>
  caller.via ? JSON.stringify({ kind: caller.via.kind, keyName: caller.via.keyName }) : null;

/**
 * Inserts one entry: a statement of its own, or a part of a larger one (changes/outbox.ts folds
 * it into the statement that records the change's event, so it costs no round trip).
 */
export const insertActivity = (db: QueryCreator<Tables>, p: ActivityValues) =>
  db.insertInto('task_activity').values({
    task_id: p.taskId,
    actor_id: p.actorId,
    kind: p.kind,
    changes: p.changes,
    created_at: p.createdAt,
    via: p.via,
  });

const insertActivityRow = prepared(insertActivity);

/**
 * Records many entries (an operator's change of many tasks), one fixed-shape INSERT each: a
 * multi-row INSERT would have a text per row count, and PostgreSQL connections prepare every
 * write's text (prepared.ts), which must stay a bounded set.
 */
export async function recordActivities(db: Db, entries: readonly NewActivity[]): Promise<void> {
  const createdAt = new Date().toISOString();
  for (const entry of entries) await insertActivityRow(db, activityValues(entry, createdAt));
}

/**
 * Records, for every task of the team the user is assigned to, that they are no longer: they
 * were removed from the team (by `actorId`, or the operator: null), which ends their
 * assignments. Runs before the assignments are deleted.
 */
export async function recordUnassignedFromTeam(
  db: Db,
  teamId: string,
  userId: string,
  actorId: string | null = null,
): Promise<void> {
  // Kept locked (`keep`): a task deleted meanwhile is deleted first and skipped, or waits for this.
  const theirTasks = await keeping(
    db,
    db
      .selectFrom('task_assignees as mine')
      .innerJoin('tasks as t', 't.id', 'mine.task_id')
      .select('t.id')
      .where('mine.user_id', '=', userId)
      .where('t.team_id', '=', teamId),
    't',
  ).execute();
  if (theirTasks.length === 0) return;
  const rows = await db
    .selectFrom('task_assignees')
    .select(['task_id', 'user_id'])
    .where(
      inList(
        db,
        'task_id',
        listParam(
          db,
          theirTasks.map((t) => t.id),
        ),
      ),
    )
    .orderBy('task_id')
    .orderBy('user_id')
    .execute();
  const assignees = new Map<number, string[]>();
  for (const row of rows) {
    const people = assignees.get(row.task_id);
    if (people) people.push(row.user_id);
    else assignees.set(row.task_id, [row.user_id]);
  }
  const entries = [...assignees].map(([taskId, from]): NewActivity => ({
    taskId,
    actorId,
    kind: 'task.updated',
    changes: { assignees: { from, to: from.filter((id) => id !== userId) } },
  }));
  await recordActivities(db, entries);
}
