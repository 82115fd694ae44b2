/**
 * Produces accepted exports in the background of the process that accepted them: each one's file
 * is written from a read snapshot of its own (storage/snapshot.ts: a read-only connection, so on
 * SQLite a long export never holds the write lock) into the exports' file store, then its row is
 * marked ready (or failed, with why). At most MAX_RUNNING at once per process; the rest wait,
 * pending. Every row this process holds, waiting or running, gets a heartbeat (`updated_at`)
 * every HEARTBEAT_MS: a row whose heartbeat stopped belongs to a process that died, and reads as
 * failed (exports.service.ts). Closing stops the running ones at their next line and marks them
 * failed; they are never left half-written under a ready row.
 */
import type { FileStore } from '../attachments/storage/file-store.js';
import { newFileKey } from '../attachments/storage/disk-store.js';
import type { JobLog } from '../jobs/scheduler.js';
import type { Store } from '../storage/database.js';
import { readSnapshot } from '../storage/snapshot.js';
import { noCounts } from './export-format.js';
import { exportStream, ExportStopped } from './export-writer.js';
import { markFailed, markReady, markRunning, touchExport, type ExportRecord } from './exports.repository.js';

const MAX_RUNNING = 2;
export const HEARTBEAT_MS = 15_000;
/** A pending or running export whose heartbeat is older than this was interrupted. */
export const INTERRUPTED_AFTER_MS = 60_000;
/** How long a finished export (its file, or why it failed) is kept. */
export const EXPORT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/** No export file is larger: a limit the store's put() needs, far beyond any team. */
const MAX_EXPORT_BYTES = Number.MAX_SAFE_INTEGER;

export interface ExportFiles {
  /** Where attachments' bytes are read from. */
  attachments: FileStore;
  /** Where export files are written (export-files.ts). */
  exports: FileStore;
}

export class ExportRunner {
  private readonly waiting: ExportRecord[] = [];
  private readonly held = new Set<number>();
  private readonly running = new Set<Promise<void>>();
  private heartbeat: NodeJS.Timeout | undefined;
  private closing = false;

  constructor(
    private readonly store: Store,
    private readonly databaseUrl: string,
    private readonly files: ExportFiles,
    private readonly log: JobLog,
  ) {}

  /** Takes a committed export row: it runs now, or once one of the running ones ends. */
  start(record: ExportRecord): void {
    if (this.closing) return;
    this.held.add(record.id);
    this.waiting.push(record);
    this.heartbeat ??= setInterval(() => void this.beat(), HEARTBEAT_MS).unref();
    this.next();
  }

  private next(): void {
    while (this.running.size < MAX_RUNNING && this.waiting.length > 0) {
      const record = this.waiting.shift()!;
      const run: Promise<void> = this.run(record).finally(() => {
        this.running.delete(run);
        this.held.delete(record.id);
        if (this.held.size === 0 && this.heartbeat) {
          clearInterval(this.heartbeat);
          this.heartbeat = undefined;
        }
        this.next();
      });
      this.running.add(run);
    }
  }

  private async beat(): Promise<void> {
    const now = new Date().toISOString();
    for (const id of this.held) await touchExport(this.store.db, id, now).catch(() => undefined);
  }

  private async run(record: ExportRecord): Promise<void> {
    const key = newFileKey();
    const now = () => new Date().toISOString();
    const expiry = () => new Date(Date.now() + EXPORT_RETENTION_MS).toISOString();
    try {
      await markRunning(this.store.db, record.id, now());
      const counts = noCounts();
      const subject = { teamId: record.teamId, userId: record.requestedBy, scope: record.scope, exportedAt: now() };
      const stored = await readSnapshot(this.databaseUrl, (snapshot) =>
        this.files.exports.put(
          key,
          exportStream(snapshot.db, this.files.attachments, subject, counts, () => this.closing),
          MAX_EXPORT_BYTES,
        ),
      );
      await markReady(this.store.db, record.id, {
        storageKey: key,
        size: stored.size,
        sha256: stored.sha256,
        counts,
        now: now(),
        expiresAt: expiry(),
      });
    } catch (error) {
      await this.files.exports.delete(key).catch(() => undefined);
      const stopped = error instanceof ExportStopped;
      if (!stopped) this.log.warn({ err: error, exportId: record.id }, 'an export failed');
      const message = stopped
        ? 'The server stopped before the export was finished; start another.'
        : 'The export could not be written; start another, and if it fails again tell your administrator (the server log says why).';
      await markFailed(this.store.db, record.id, message, now(), expiry()).catch(() => undefined);
    }
  }

  /** Stops the running exports at their next line (marked failed) and drops the waiting ones. */
  async close(): Promise<void> {
    this.closing = true;
    const now = new Date().toISOString();
    const expiresAt = new Date(Date.now() + EXPORT_RETENTION_MS).toISOString();
    for (const record of this.waiting.splice(0)) {
      await markFailed(
        this.store.db,
        record.id,
        'The server stopped before the export began; start another.',
        now,
        expiresAt,
      ).catch(() => undefined);
    }
    await Promise.allSettled([...this.running]);
    if (this.heartbeat) clearInterval(this.heartbeat);
  }
}
