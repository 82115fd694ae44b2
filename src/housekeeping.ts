/**
 * Every periodic job a server runs, in one list (the scheduler runs them). Each deletes what has
 * expired, which is idempotent: every process on a PostgreSQL database runs the same jobs, and
 * two processes deleting the same rows at once both succeed.
 */
import { pruneEvents } from './changes/outbox.js';
import { pruneExpired } from './http/idempotency-records.js';
import { IDEMPOTENCY_TTL_MS } from './http/idempotency.js';
import { pruneExpiredSessions } from './sessions/sessions.repository.js';
import type { Store } from './storage/database.js';
import type { CounterStore } from './storage/rate-limit-counters.js';
import { pruneDeliveryLog } from './webhooks/delivery/queue.repository.js';
import { pruneMail } from './mail/queue.repository.js';
import { pruneUnsubscribeTokens } from './mail/unsubscribe.repository.js';
import { pruneNotifications } from './notifications/notifications.repository.js';
import type { Job } from './jobs/scheduler.js';
import { reconcileFiles } from './attachments/reconcile.js';
import type { FileStore } from './attachments/storage/file-store.js';
import { deleteExpiredExports } from './exports/expiry.js';
import { dropStaleImports } from './imports/expiry.js';
import { pruneOldCodes, pruneUnusedClients } from './oauth/oauth.service.js';

const MINUTE = 60 * 1000;
const HOUR = 60 * MINUTE;
/** How long each webhook attempt (and a finished delivery) stays in the log. */
export const WEBHOOK_LOG_RETENTION_MS = 30 * 24 * HOUR;
/** How long a mail sent, dropped or failed stays in the queue's log (`admin mail status`). */
export const MAIL_LOG_RETENTION_MS = 30 * 24 * HOUR;

/** Attachments' files, reconciled with their rows (ATTACHMENTS_ORPHAN_GRACE_SECONDS), and export files (exports/export-files.ts). */
export interface AttachmentFiles {
  files: FileStore;
  orphanGraceMs: number;
  exportFiles?: FileStore;
}

/** The jobs for `store`, for the rate-limit counters when rate limiting is on, and for the attachments' files. */
export function housekeepingJobs(
  store: Store,
  rateLimitCounters: CounterStore | null,
  attachments?: AttachmentFiles,
): Job[] {
  const jobs: Job[] = [
    // Often, beside streams resuming from it: the outbox is the table that grows with every change.
    { name: 'pruning old events', everyMs: MINUTE, run: () => pruneEvents(store.db) },
    {
      name: 'pruning expired idempotency records',
      everyMs: HOUR,
      run: () => pruneExpired(store.db, new Date(Date.now() - IDEMPOTENCY_TTL_MS)),
    },
    { name: 'pruning expired sessions', everyMs: HOUR, run: () => pruneExpiredSessions(store.db) },
    {
      name: 'pruning old OAuth codes and unused clients',
      everyMs: HOUR,
      run: async () => {
        await pruneOldCodes(store);
        await pruneUnusedClients(store);
      },
    },
    {
      name: 'pruning the webhook delivery log',
      everyMs: HOUR,
      run: () => pruneDeliveryLog(store.db, WEBHOOK_LOG_RETENTION_MS),
    },
    {
      name: 'pruning the mail log and old unsubscribe links',
      everyMs: HOUR,
      run: async () => {
        await pruneMail(store.db, MAIL_LOG_RETENTION_MS);
        await pruneUnsubscribeTokens(store.db);
      },
    },
    // Read or archived notifications after 90 days, any after a year (NOTIFICATION_RETENTION).
    { name: 'pruning old notifications', everyMs: HOUR, run: () => pruneNotifications(store.db) },
    // Imports (issue 32): uploads a dead process left half-read, plans nobody applied in a week.
    { name: 'dropping stale imports', everyMs: HOUR, run: () => dropStaleImports(store.db) },
  ];
  if (attachments) {
    // Files no row names (a crash between file and row, a deleted task's), once past the grace period.
    jobs.push({
      name: 'deleting orphaned attachment files',
      everyMs: HOUR,
      run: () => reconcileFiles(store.db, attachments.files, attachments.orphanGraceMs),
    });
    const { exportFiles } = attachments;
    // Exports a week after they finished (issue 32), with their files.
    if (exportFiles) {
      jobs.push({
        name: 'deleting expired exports',
        everyMs: HOUR,
        run: () => deleteExpiredExports(store.db, exportFiles),
      });
    }
  }
  if (rateLimitCounters) {
    jobs.push({
      name: 'pruning ended rate-limit windows',
      everyMs: rateLimitCounters.windowMs,
      run: () => rateLimitCounters.prune(),
    });
  }
  return jobs;
}
