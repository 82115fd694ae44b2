/**
 * Which tasks carry which labels (task_labels, migration 0017): the reads that nest a task's
 * labels in its answers, the writes of a task's set, and what a label's change does to its tasks.
 */
import { sql } from 'kysely';
import type { Label } from '../contract/labels.js';
import { codePointOrder, inList, listParam, listValues, lockRows, type ListParam } from '../storage/dialect.js';
import { prepared } from '../storage/prepared.js';
import type { Db } from '../storage/schema.js';
import { byLabelName } from './labels.repository.js';

const labelsJoined = (db: Db) => db.selectFrom('task_labels as tl').innerJoin('labels as lb', 'lb.id', 'tl.label_id');

/** One task's labels (unordered), for a query that nests them (the detail). */
export const labelsOfTask = (db: Db, taskId: number) =>
  labelsJoined(db).select(['lb.id', 'lb.name', 'lb.color']).where('tl.task_id', '=', taskId);

/** The labels of the outer query's task `t`, by name then id: a page's rows nest them (`include=labels`). */
export const labelsOfRow = (db: Db) =>
  labelsJoined(db)
    .select(['lb.id', 'lb.name', 'lb.color'])
    .where('tl.task_id', '=', sql.ref<number>('t.id'))
    .orderBy(codePointOrder(db, 'lb.name_key'))
    .orderBy('lb.id');

/** Each task's labels, by name, for a page read row by row (PostgreSQL). */
export async function labelsOf(db: Db, taskIds: number[]): Promise<Map<number, Label[]>> {
  const groups = new Map<number, Label[]>();
  if (taskIds.length === 0) return groups;
  const rows = await labelsJoined(db)
    .select(['tl.task_id', 'lb.id', 'lb.name', 'lb.color'])
    .where(inList(db, 'tl.task_id', listParam(db, taskIds)))
    .execute();
  for (const { task_id, ...label } of rows) groups.set(task_id, [...(groups.get(task_id) ?? []), label]);
  for (const labels of groups.values()) labels.sort(byLabelName);
  return groups;
}

/** The ids of tasks carrying any of the labels: the label filter of GET /v1/tasks. */
export const tasksWithAnyLabel = (db: Db, labelIds: readonly number[]) =>
  db.selectFrom('task_labels').select('task_id').where('label_id', 'in', labelIds);

const insertTaskLabels = prepared((db, p: { taskId: number; labelIds: ListParam }) =>
  db
    .insertInto('task_labels')
    .columns(['task_id', 'label_id'])
    .expression(
      db
        .selectFrom(listValues(db, p.labelIds))
        .select((eb) => [
          eb.cast(eb.val(p.taskId), 'integer').as('task_id'),
          eb.cast(sql.ref('v.value'), 'integer').as('label_id'),
        ]),
    ),
);

const deleteTaskLabels = prepared((db, p: { taskId: number }) =>
  db.deleteFrom('task_labels').where('task_id', '=', p.taskId),
);

export async function addTaskLabels(db: Db, taskId: number, labelIds: readonly number[]): Promise<void> {
  if (labelIds.length > 0) await insertTaskLabels(db, { taskId, labelIds: listParam(db, labelIds) });
}

/** Replaces the task's labels with these. */
export async function replaceTaskLabels(db: Db, taskId: number, labelIds: readonly number[]): Promise<void> {
  await deleteTaskLabels(db, { taskId });
  await addTaskLabels(db, taskId, labelIds);
}

/**
 * Fixes the set of tasks carrying the label until the transaction ends: its tasks are locked
 * against every other writer, and the label against task writers' `keep` (no task takes it on).
 * Tasks first: a task writer locks its task, then keeps the labels it gives, so taking the label
 * first could wait on a writer that waits on it (a deadlock). Tasks that took the label on
 * between the two locks (their writers have committed) are locked after.
 * Returns their ids, in order.
 */
export async function holdTasksOf(trx: Db, labelId: number): Promise<number[]> {
  const tasks = trx
    .selectFrom('tasks')
    .select('id')
    .where('id', 'in', trx.selectFrom('task_labels').select('task_id').where('label_id', '=', labelId))
    .orderBy('id');
  await lockRows(trx, tasks, 'change');
  await lockRows(trx, trx.selectFrom('labels').select('id').where('id', '=', labelId), 'delete');
  await lockRows(trx, tasks, 'change');
  return (await tasks.execute()).map((row) => row.id);
}

/**
 * A new version for every task carrying the label: its name and colour are part of each task's
 * answer, so an ETag read before must no longer match. `touched`: the task itself changed (the
 * label came off it), so its updatedAt moves too.
 */
export async function bumpTaskVersions(trx: Db, labelId: number, touched: boolean): Promise<void> {
  await trx
    .updateTable('tasks')
    .set((eb) => ({
      ...(touched && { updated_at: new Date().toISOString() }),
      version: eb('version', '+', 1),
    }))
    .where('id', 'in', trx.selectFrom('task_labels').select('task_id').where('label_id', '=', labelId))
    .execute();
}
