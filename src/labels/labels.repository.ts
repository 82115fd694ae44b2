/**
 * A team's labels (migration 0017). snake_case stops here: a label as the API shows it. A name is
 * unique in its team ignoring case, held by the unique index on `name_key` (the name in lower
 * case); names are ordered by it, then by id, compared by code point on both engines.
 */
import type { Label } from '../contract/labels.js';
import { byCodePoint } from '../ids.js';
import { codePointOrder, inList, keeping, listParam, lockRows } from '../storage/dialect.js';
import type { Db, LabelRow } from '../storage/schema.js';

export type { Label };

/** The name as the unique index compares it. */
export const nameKey = (name: string): string => name.toLowerCase();

/** Labels by name ignoring case, then id: the order of every answer that holds labels. */
export function byLabelName(a: Label, b: Label): number {
  return byCodePoint(nameKey(a.name), nameKey(b.name)) || a.id - b.id;
}

/** Labels as a task's activity records them: id and name as they are at the change. */
export const asNamed = (labels: readonly Label[]) => labels.map(({ id, name }) => ({ id, name }));

const rowToLabel = (row: Pick<LabelRow, 'id' | 'name' | 'color'>): Label => ({
  id: row.id,
  name: row.name,
  color: row.color,
});

export async function listLabels(db: Db, teamId: string): Promise<Label[]> {
  const rows = await db
    .selectFrom('labels')
    .select(['id', 'name', 'color'])
    .where('team_id', '=', teamId)
    .orderBy(codePointOrder(db, 'name_key'))
    .orderBy('id')
    .execute();
  return rows.map(rowToLabel);
}

/** The team's label, or undefined (missing, or another team's). */
export async function findLabel(db: Db, teamId: string, labelId: number): Promise<Label | undefined> {
  const row = await db
    .selectFrom('labels')
    .select(['id', 'name', 'color'])
    .where('team_id', '=', teamId)
    .where('id', '=', labelId)
    .executeTakeFirst();
  return row && rowToLabel(row);
}

/**
 * Locks every label of the team until the transaction ends, then reads them. Every label writer
 * starts here, so one team's label writers run one at a time: each sees the names and the count
 * the one before committed. Task writers' `keep` locks (`keptLabels`) do not wait for it.
 */
export async function lockTeamLabels(trx: Db, teamId: string): Promise<Label[]> {
  await lockRows(trx, trx.selectFrom('labels').select('id').where('team_id', '=', teamId).orderBy('id'), 'change');
  return listLabels(trx, teamId);
}

/**
 * The team's labels among `labelIds`, kept (`keep`) until the transaction ends: a deletion of
 * one waits for the task writer that read it, or comes first and the writer finds it gone.
 */
export async function keptLabels(trx: Db, teamId: string, labelIds: readonly number[]): Promise<Map<number, Label>> {
  if (labelIds.length === 0) return new Map();
  const rows = await keeping(
    trx,
    trx
      .selectFrom('labels')
      .select(['id', 'name', 'color'])
      .where('team_id', '=', teamId)
      .where(inList(trx, 'id', listParam(trx, labelIds))),
  ).execute();
  return new Map(rows.map((row) => [row.id, rowToLabel(row)]));
}

export async function insertLabel(trx: Db, teamId: string, label: Omit<Label, 'id'>): Promise<Label> {
  const row = await trx
    .insertInto('labels')
    .values({
      team_id: teamId,
      name: label.name,
      name_key: nameKey(label.name),
      color: label.color,
      created_at: new Date().toISOString(),
    })
    .returning(['id', 'name', 'color'])
    .executeTakeFirstOrThrow();
  return rowToLabel(row);
}

/** Writes the name and colour given; returns the label as it now is. */
export async function updateLabelRow(trx: Db, labelId: number, changes: Partial<Omit<Label, 'id'>>): Promise<Label> {
  const row = await trx
    .updateTable('labels')
    .set({
      ...(changes.name !== undefined && { name: changes.name, name_key: nameKey(changes.name) }),
      ...(changes.color !== undefined && { color: changes.color }),
    })
    .where('id', '=', labelId)
    .returning(['id', 'name', 'color'])
    .executeTakeFirstOrThrow();
  return rowToLabel(row);
}

/** Deletes the label; the database takes it off its tasks (task_labels cascades). */
export async function deleteLabelRow(trx: Db, labelId: number): Promise<void> {
  await trx.deleteFrom('labels').where('id', '=', labelId).execute();
}
