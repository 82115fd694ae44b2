/**
 * Imports (issue 32; docs/api.md, "Imports"): a file is planned first (plan.ts), applied as
 * batches of scheduled jobs (apply.ts), and can be cancelled while applied, and undone for a day
 * after (undo.ts). The team's owners and admins import; an import is the team's: any of them may
 * read, apply, cancel or undo it.
 */
import type { Caller } from '../caller.js';
import type { Import, ImportList } from '../contract/index.js';
import { conflict, forbidden, invalidInput, notFound } from '../http/errors.js';
import { toId } from '../ids.js';
import { insertJobs } from '../jobs/scheduled-jobs.repository.js';
import { afterCommit, type Store } from '../storage/database.js';
import { managesTeam } from '../team/roles.js';
import { applyJob, emptyResult, finish } from './apply.js';
import * as imports from './imports.repository.js';
import type { ImportRecord } from './imports.repository.js';
import { planImport } from './plan.js';
import { readerFor } from './sources/index.js';
import { UnreadableFile, type ImportSourceName, type ReadOptions } from './sources/source-items.js';
import { MANAGERS_ONLY, undoImport, undoUntil } from './undo.js';

/** GET /v1/imports answers at most this many, newest first. */
export const MAX_LISTED_IMPORTS = 20;

export function presentImport(record: ImportRecord): Import {
  return {
    id: record.id,
    status: record.status === 'planning' ? 'planned' : record.status,
    source: record.source,
    fileName: record.fileName,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    finishedAt: record.finishedAt,
    plan: record.plan,
    progress: { done: record.rowsDone, total: record.rowsTotal },
    result: record.result,
    error: record.error,
    undoUntil: undoUntil(record),
  };
}

function requireManager(caller: Caller): void {
  if (!managesTeam(caller.role)) throw forbidden(MANAGERS_ONLY);
}

async function loadImport(store: Store, caller: Caller, rawId: string): Promise<ImportRecord> {
  requireManager(caller);
  const id = toId(rawId);
  const record = id === null ? undefined : await imports.findImport(store.db, caller.teamId, id);
  if (!record) throw notFound(`Import ${rawId} not found.`);
  return record;
}

export interface Upload {
  source: ImportSourceName;
  options: ReadOptions;
  bytes: () => AsyncIterable<Buffer>;
}

/** Reads the file into a plan: nothing of the team is written. 400 for a file the source cannot read. */
export async function createImport(store: Store, caller: Caller, upload: Upload): Promise<Import> {
  requireManager(caller);
  const importId = await store.transaction(async (trx) => {
    requireManager(caller); // the role as read in this transaction (auth/caller-check.ts)
    return imports.insertImport(trx, {
      teamId: caller.teamId,
      requestedBy: caller.userId,
      source: upload.source,
      fileName: upload.options.fileName,
      now: new Date().toISOString(),
    });
  });
  try {
    const planned = await planImport(
      store,
      caller,
      importId,
      upload.source,
      readerFor(upload.source)(upload.bytes(), upload.options),
    );
    await imports.savePlan(store.db, importId, planned.plan, planned.rows);
  } catch (error) {
    await imports.deleteImport(store.db, importId);
    if (error instanceof UnreadableFile) throw invalidInput(error.message);
    throw error;
  }
  return presentImport((await imports.findImport(store.db, caller.teamId, importId))!);
}

export async function getImport(store: Store, caller: Caller, rawId: string): Promise<Import> {
  return presentImport(await loadImport(store, caller, rawId));
}

export async function listImports(store: Store, caller: Caller): Promise<ImportList> {
  requireManager(caller);
  return (await imports.teamImports(store.db, caller.teamId, MAX_LISTED_IMPORTS)).map(presentImport);
}

/** Starts the apply: its first batch is a job due now (`wakeJobs` looks at once, after commit). */
export async function applyImport(store: Store, caller: Caller, rawId: string, wakeJobs: () => void): Promise<Import> {
  const record = await loadImport(store, caller, rawId);
  return store.transaction(async (trx) => {
    requireManager(caller);
    const locked = (await imports.findImportLocked(trx, caller.teamId, record.id))!;
    if (locked.status !== 'planned') {
      throw conflict(
        `Import ${locked.id} is ${locked.status}; only a planned import can be applied. Upload the file again to apply it again.`,
      );
    }
    const now = new Date();
    await imports.updateImport(trx, locked.id, { status: 'applying', result: emptyResult() }, now.toISOString());
    await insertJobs(trx, [applyJob(locked, now)], now);
    afterCommit(trx, wakeJobs);
    return presentImport({ ...locked, status: 'applying', result: emptyResult(), updatedAt: now.toISOString() });
  });
}

/** Stops an apply at its next batch (what is written stays, and can be undone), or drops a plan. */
export async function cancelImport(store: Store, caller: Caller, rawId: string): Promise<Import> {
  const record = await loadImport(store, caller, rawId);
  return store.transaction(async (trx) => {
    requireManager(caller);
    const locked = (await imports.findImportLocked(trx, caller.teamId, record.id))!;
    if (locked.status !== 'applying' && locked.status !== 'planned') {
      throw conflict(`Import ${locked.id} is ${locked.status}; only a planned or applying import can be cancelled.`);
    }
    const now = new Date().toISOString();
    await finish(trx, locked, locked.result ?? emptyResult(), now, { status: 'cancelled' });
    return presentImport({ ...locked, status: 'cancelled', finishedAt: now, updatedAt: now });
  });
}

export async function undo(store: Store, caller: Caller, rawId: string): Promise<Import> {
  const record = await loadImport(store, caller, rawId);
  return undoImport(store, caller, record, presentImport);
}
