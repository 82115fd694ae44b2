/**
 * Imports (migration 0026): the import rows, what each file said (`import_rows`), and the source
 * refs of what imports made or matched (`import_objects`). Read within the team.
 */
import type { ImportKind, ImportPlan, ImportResult, ImportStatus } from '../contract/index.js';
import { lockRows } from '../storage/dialect.js';
import type { Db, ImportsTable } from '../storage/schema.js';
import type { Selectable } from 'kysely';
import type { ImportSourceName, SourceItem } from './sources/source-items.js';

export interface ImportRecord {
  id: number;
  teamId: string;
  requestedBy: string;
  source: ImportSourceName;
  fileName: string | null;
  status: ImportStatus | 'planning';
  plan: ImportPlan;
  rowsTotal: number;
  rowsDone: number;
  result: ImportResult | null;
  error: string | null;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
}

function toRecord(row: Selectable<ImportsTable>): ImportRecord {
  return {
    id: row.id,
    teamId: row.team_id,
    requestedBy: row.requested_by,
    source: row.source as ImportSourceName,
    fileName: row.file_name,
    status: row.status,
    plan: JSON.parse(row.plan) as ImportPlan,
    rowsTotal: Number(row.rows_total),
    rowsDone: Number(row.rows_done),
    result: row.result === null ? null : (JSON.parse(row.result) as ImportResult),
    error: row.error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at,
  };
}

export async function insertImport(
  db: Db,
  values: { teamId: string; requestedBy: string; source: ImportSourceName; fileName: string | null; now: string },
): Promise<number> {
  const row = await db
    .insertInto('imports')
    .values({
      team_id: values.teamId,
      requested_by: values.requestedBy,
      source: values.source,
      file_name: values.fileName,
      // Until its plan is saved: the upload is still being read (imports.service.ts).
      status: 'planning',
      plan: '{}',
      rows_total: 0,
      rows_done: 0,
      created_at: values.now,
      updated_at: values.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function savePlan(db: Db, importId: number, plan: ImportPlan, rowsTotal: number): Promise<void> {
  await db
    .updateTable('imports')
    .set({ status: 'planned', plan: JSON.stringify(plan), rows_total: rowsTotal })
    .where('id', '=', importId)
    .execute();
}

export async function insertRows(
  db: Db,
  importId: number,
  firstSeq: number,
  items: readonly SourceItem[],
): Promise<void> {
  if (items.length === 0) return;
  await db
    .insertInto('import_rows')
    .values(items.map((item, index) => ({ import_id: importId, seq: firstSeq + index, item: JSON.stringify(item) })))
    .execute();
}

/** The rows after `afterSeq`, at most `limit`, in order. */
export async function rowsAfter(
  db: Db,
  importId: number,
  afterSeq: number,
  limit: number,
): Promise<{ seq: number; item: SourceItem }[]> {
  const rows = await db
    .selectFrom('import_rows')
    .select(['seq', 'item'])
    .where('import_id', '=', importId)
    .where('seq', '>', afterSeq)
    .orderBy('seq')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ seq: Number(row.seq), item: JSON.parse(row.item) as SourceItem }));
}

/** An import whose file could not be read: it, and its rows, go. */
export async function deleteImport(db: Db, importId: number): Promise<void> {
  await db.deleteFrom('imports').where('id', '=', importId).execute();
}

export async function deleteRows(db: Db, importId: number): Promise<void> {
  await db.deleteFrom('import_rows').where('import_id', '=', importId).execute();
}

export async function findImport(db: Db, teamId: string, importId: number): Promise<ImportRecord | undefined> {
  const row = await db
    .selectFrom('imports')
    .selectAll()
    .where('id', '=', importId)
    .where('team_id', '=', teamId)
    .where('status', '<>', 'planning')
    .executeTakeFirst();
  return row && toRecord(row);
}

/** The import under its row lock: applies, cancels and undos of one import queue on it. */
export async function findImportLocked(trx: Db, teamId: string, importId: number): Promise<ImportRecord | undefined> {
  await lockRows(
    trx,
    trx.selectFrom('imports').select('id').where('id', '=', importId).where('team_id', '=', teamId),
    'change',
  );
  return findImport(trx, teamId, importId);
}

/** The team's imports, newest first. */
export async function teamImports(db: Db, teamId: string, limit: number): Promise<ImportRecord[]> {
  const rows = await db
    .selectFrom('imports')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('status', '<>', 'planning')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(toRecord);
}

export async function updateImport(
  db: Db,
  importId: number,
  changes: Partial<{
    status: ImportStatus;
    rowsDone: number;
    result: ImportResult;
    error: string | null;
    finishedAt: string | null;
  }>,
  now: string,
): Promise<void> {
  await db
    .updateTable('imports')
    .set({
      ...(changes.status !== undefined && { status: changes.status }),
      ...(changes.rowsDone !== undefined && { rows_done: changes.rowsDone }),
      ...(changes.result !== undefined && { result: JSON.stringify(changes.result) }),
      ...(changes.error !== undefined && { error: changes.error }),
      ...(changes.finishedAt !== undefined && { finished_at: changes.finishedAt }),
      updated_at: now,
    })
    .where('id', '=', importId)
    .execute();
}

export interface ImportedObject {
  ref: string;
  kind: ImportKind;
  objectId: number;
  createdByImport: number | null;
  version: number | null;
  sourceHash: string;
}

/** What the refs became in the team, by ref (refs never imported are absent). */
export async function objectsOfRefs(
  db: Db,
  teamId: string,
  refs: readonly string[],
): Promise<Map<string, ImportedObject>> {
  if (refs.length === 0) return new Map();
  const rows = await db
    .selectFrom('import_objects')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('ref', 'in', [...new Set(refs)])
    .execute();
  return new Map(
    rows.map((row) => [
      row.ref,
      {
        ref: row.ref,
        kind: row.kind,
        objectId: Number(row.object_id),
        createdByImport: row.created_by_import === null ? null : Number(row.created_by_import),
        version: row.version === null ? null : Number(row.version),
        sourceHash: row.source_hash,
      },
    ]),
  );
}

/** Records (or moves) a ref to what it became; `createdByImport` is kept from the first import that made it. */
export async function saveObject(db: Db, teamId: string, object: ImportedObject): Promise<void> {
  await db
    .insertInto('import_objects')
    .values({
      team_id: teamId,
      ref: object.ref,
      kind: object.kind,
      object_id: object.objectId,
      created_by_import: object.createdByImport,
      version: object.version,
      source_hash: object.sourceHash,
    })
    .onConflict((conflict) =>
      conflict.columns(['team_id', 'ref']).doUpdateSet({
        kind: object.kind,
        object_id: object.objectId,
        created_by_import: object.createdByImport,
        version: object.version,
        source_hash: object.sourceHash,
      }),
    )
    .execute();
}

/** What the import created, newest first (subtasks before their parents, comments before tasks). */
export async function objectsCreatedBy(db: Db, teamId: string, importId: number): Promise<ImportedObject[]> {
  const rows = await db
    .selectFrom('import_objects')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('created_by_import', '=', importId)
    .execute();
  return rows.map((row) => ({
    ref: row.ref,
    kind: row.kind,
    objectId: Number(row.object_id),
    createdByImport: importId,
    version: row.version === null ? null : Number(row.version),
    sourceHash: row.source_hash,
  }));
}

export async function forgetObjects(db: Db, teamId: string, refs: readonly string[]): Promise<void> {
  if (refs.length === 0) return;
  await db.deleteFrom('import_objects').where('team_id', '=', teamId).where('ref', 'in', refs).execute();
}
