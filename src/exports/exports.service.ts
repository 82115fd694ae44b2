/**
 * Team exports (issue 32; docs/api.md, "Exports"). Owners and admins export the whole team
 * (`team`); a member exports what they may read (`readable`). An export is its requester's alone:
 * anyone else's answers 404, as a missing one does. Access is checked again on every read and
 * download, with the role of that request: a requester who left the team is refused by
 * authentication, and one who is no longer an owner or admin may not read a `team` export (403).
 */
import type { Readable } from 'node:stream';
import type { Caller } from '../caller.js';
import type { Export, ExportList, ExportScope } from '../contract/index.js';
import { FileMissing } from '../attachments/storage/file-store.js';
import { conflict, forbidden, notFound } from '../http/errors.js';
import { toId } from '../ids.js';
import type { Store } from '../storage/database.js';
import { managesTeam } from '../team/roles.js';
import { lockMember } from '../team/teams.repository.js';
import { exportFileName } from './export-format.js';
import { INTERRUPTED_AFTER_MS, type ExportFiles, type ExportRunner } from './export-runner.js';
import * as exports from './exports.repository.js';
import type { ExportRecord } from './exports.repository.js';

/** GET /v1/exports answers at most this many, newest first. */
export const MAX_LISTED_EXPORTS = 20;

const INTERRUPTED = 'The export was interrupted; start another.';

/** Pending or running, with a heartbeat too old: its process died (export-runner.ts). */
function interrupted(record: ExportRecord, now = Date.now()): boolean {
  return (
    (record.status === 'pending' || record.status === 'running') &&
    now - Date.parse(record.updatedAt) > INTERRUPTED_AFTER_MS
  );
}

export function presentExport(record: ExportRecord): Export {
  const base = { id: record.id, scope: record.scope, createdAt: record.createdAt };
  if (interrupted(record)) return { ...base, status: 'failed', error: INTERRUPTED };
  if (record.status === 'ready') {
    return {
      ...base,
      status: 'ready',
      finishedAt: record.finishedAt!,
      size: record.size!,
      sha256: record.sha256!,
      counts: record.counts!,
      expiresAt: record.expiresAt!,
    };
  }
  if (record.status === 'failed') {
    return { ...base, status: 'failed', finishedAt: record.finishedAt!, error: record.error ?? INTERRUPTED };
  }
  return { ...base, status: record.status };
}

const scopeOf = (caller: Caller): ExportScope => (managesTeam(caller.role) ? 'team' : 'readable');

/** The caller's own export, if they may still read it. */
async function loadOwnExport(store: Store, caller: Caller, rawId: string): Promise<ExportRecord> {
  const id = toId(rawId);
  const record = id === null ? undefined : await exports.findOwnExport(store.db, caller.teamId, caller.userId, id);
  if (!record) throw notFound(`Export ${rawId} not found.`);
  if (record.scope === 'team' && !managesTeam(caller.role)) {
    throw forbidden("This export holds the whole team; only the team's owners and admins may read it.");
  }
  return record;
}

/**
 * Accepts an export: its row is committed first, then this process writes the file in the
 * background. One unfinished export per person at a time (409 otherwise), so that nobody can
 * queue a server's worth of them.
 */
export async function startExport(store: Store, caller: Caller, runner: ExportRunner): Promise<Export> {
  const record = await store.transaction(async (trx) => {
    // Two starts at once: the second waits here, then sees the first's row.
    await lockMember(trx, caller.teamId, caller.userId, 'change');
    const [newest] = await exports.ownExports(trx, caller.teamId, caller.userId, 1);
    if (newest && (newest.status === 'pending' || newest.status === 'running') && !interrupted(newest)) {
      throw conflict(`Your export ${newest.id} is still being written; wait until it is ready.`);
    }
    // The role as read in this transaction (auth/caller-check.ts).
    return exports.insertExport(trx, {
      teamId: caller.teamId,
      requestedBy: caller.userId,
      scope: scopeOf(caller),
      now: new Date().toISOString(),
    });
  });
  runner.start(record);
  return presentExport(record);
}

export async function getExport(store: Store, caller: Caller, rawId: string): Promise<Export> {
  return presentExport(await loadOwnExport(store, caller, rawId));
}

/** The caller's own exports in this team, newest first, at most MAX_LISTED_EXPORTS. */
export async function listExports(store: Store, caller: Caller): Promise<ExportList> {
  const records = await exports.ownExports(store.db, caller.teamId, caller.userId, MAX_LISTED_EXPORTS);
  return records.filter((record) => record.scope === 'readable' || managesTeam(caller.role)).map(presentExport);
}

/** The ready export's file, access checked now; 409 while it is not ready. */
export async function openExportFile(
  store: Store,
  caller: Caller,
  rawId: string,
  files: ExportFiles,
): Promise<{ name: string; size: number; sha256: string; content: Readable }> {
  const record = await loadOwnExport(store, caller, rawId);
  const shown = presentExport(record);
  if (shown.status !== 'ready') {
    throw conflict(
      shown.status === 'failed'
        ? `Export ${record.id} failed; start another.`
        : `Export ${record.id} is not ready yet.`,
    );
  }
  try {
    const content = await files.exports.get(record.storageKey!);
    return { name: exportFileName(record.createdAt), size: record.size!, sha256: record.sha256!, content };
  } catch (error) {
    // Expired and deleted between the read of its row and now, or lost from the store.
    if (error instanceof FileMissing) throw notFound(`Export ${rawId} not found.`);
    throw error;
  }
}
