/** Export rows (migration 0025): one per request for an export file, read within its requester's team. */
import { sql } from 'kysely';
import type { ExportScope, ExportStatus } from '../contract/index.js';
import type { Db, ExportRow } from '../storage/schema.js';
import type { Counts } from './export-format.js';

export interface ExportRecord {
  id: number;
  teamId: string;
  requestedBy: string;
  scope: ExportScope;
  status: ExportStatus;
  storageKey: string | null;
  size: number | null;
  sha256: string | null;
  counts: Counts | null;
  error: string | null;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
  expiresAt: string | null;
}

function toRecord(row: ExportRow): ExportRecord {
  return {
    id: row.id,
    teamId: row.team_id,
    requestedBy: row.requested_by,
    scope: row.scope,
    status: row.status,
    storageKey: row.storage_key,
    size: row.size === null ? null : Number(row.size),
    sha256: row.sha256,
    counts: row.counts === null ? null : (JSON.parse(row.counts) as Counts),
    error: row.error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at,
    expiresAt: row.expires_at,
  };
}

export async function insertExport(
  db: Db,
  values: { teamId: string; requestedBy: string; scope: ExportScope; now: string },
): Promise<ExportRecord> {
  const row = await db
    .insertInto('exports')
    .values({
      team_id: values.teamId,
      requested_by: values.requestedBy,
      scope: values.scope,
      status: 'pending',
      created_at: values.now,
      updated_at: values.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toRecord(row);
}

/** The export, if `userId` of `teamId` requested it: anyone else's is as missing as one that never was. */
export async function findOwnExport(
  db: Db,
  teamId: string,
  userId: string,
  exportId: number,
): Promise<ExportRecord | undefined> {
  const row = await db
    .selectFrom('exports')
    .selectAll()
    .where('id', '=', exportId)
    .where('team_id', '=', teamId)
    .where('requested_by', '=', userId)
    .executeTakeFirst();
  return row && toRecord(row);
}

/** The person's newest exports in the team, newest first. */
export async function ownExports(db: Db, teamId: string, userId: string, limit: number): Promise<ExportRecord[]> {
  const rows = await db
    .selectFrom('exports')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('requested_by', '=', userId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(toRecord);
}

/** The heartbeat of a row this process holds (waiting or running): `updated_at` moves on while it is not finished. */
export async function touchExport(db: Db, exportId: number, now: string): Promise<void> {
  await db
    .updateTable('exports')
    .set({ updated_at: now })
    .where('id', '=', exportId)
    .where('status', 'in', ['pending', 'running'])
    .execute();
}

/** Running: its file is being written. */
export async function markRunning(db: Db, exportId: number, now: string): Promise<void> {
  await db
    .updateTable('exports')
    .set({ status: 'running', updated_at: now })
    .where('id', '=', exportId)
    .where('status', 'in', ['pending', 'running'])
    .execute();
}

export async function markReady(
  db: Db,
  exportId: number,
  file: { storageKey: string; size: number; sha256: string; counts: Counts; now: string; expiresAt: string },
): Promise<void> {
  await db
    .updateTable('exports')
    .set({
      status: 'ready',
      storage_key: file.storageKey,
      size: file.size,
      sha256: file.sha256,
      counts: JSON.stringify(file.counts),
      updated_at: file.now,
      finished_at: file.now,
      expires_at: file.expiresAt,
    })
    .where('id', '=', exportId)
    .execute();
}

/** Failed, kept as long as a ready one would be, so its requester can read why. */
export async function markFailed(
  db: Db,
  exportId: number,
  error: string,
  now: string,
  expiresAt: string,
): Promise<void> {
  await db
    .updateTable('exports')
    .set({ status: 'failed', error, updated_at: now, finished_at: now, expires_at: expiresAt })
    .where('id', '=', exportId)
    .execute();
}

/**
 * Exports past their expiry, and unfinished ones whose heartbeat stopped before `staleBefore`
 * long ago (a dead process's, which never got an expiry): up to `limit`, with their files' keys.
 */
export async function expiredExports(
  db: Db,
  now: string,
  abandonedBefore: string,
  limit: number,
): Promise<{ id: number; storageKey: string | null }[]> {
  const rows = await db
    .selectFrom('exports')
    .select(['id', 'storage_key'])
    .where((eb) =>
      eb.or([
        eb('expires_at', '<', now),
        eb.and([eb('expires_at', 'is', null), eb('updated_at', '<', abandonedBefore)]),
      ]),
    )
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ id: r.id, storageKey: r.storage_key }));
}

export async function deleteExport(db: Db, exportId: number): Promise<void> {
  await db.deleteFrom('exports').where('id', '=', exportId).execute();
}

/** Whether a row names `key` (the reconciliation of the exports' store). */
export async function namesKey(db: Db, key: string): Promise<boolean> {
  const row = await db
    .selectFrom('exports')
    .select(sql.lit(1).as('one'))
    .where('storage_key', '=', key)
    .executeTakeFirst();
  return row !== undefined;
}
