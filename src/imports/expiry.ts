/**
 * The housekeeping job of imports: an upload still being planned a day later belongs to a process
 * that died reading it, and goes with its rows; a plan nobody applied for PLAN_RETENTION_MS is
 * cancelled, and its rows (what the file said) are deleted. Undone, applied and cancelled imports
 * stay, their plans and results read in Settings; their rows were deleted when they ended.
 * Idempotent: two processes doing it at once both succeed.
 */
import type { Db } from '../storage/schema.js';

const DAY = 24 * 60 * 60 * 1000;
/** An upload being read for longer than this was abandoned. */
const PLANNING_GRACE_MS = DAY;
/** How long a plan waits to be applied. */
export const PLAN_RETENTION_MS = 7 * DAY;

/** Returns how many imports it dropped or cancelled. */
export async function dropStaleImports(db: Db, now = new Date()): Promise<number> {
  const abandoned = await db
    .deleteFrom('imports')
    .where('status', '=', 'planning')
    .where('created_at', '<', new Date(now.getTime() - PLANNING_GRACE_MS).toISOString())
    .executeTakeFirst();
  const stale = await db
    .selectFrom('imports')
    .select('id')
    .where('status', '=', 'planned')
    .where('updated_at', '<', new Date(now.getTime() - PLAN_RETENTION_MS).toISOString())
    .execute();
  for (const { id } of stale) {
    await db.transaction().execute(async (trx) => {
      const at = now.toISOString();
      const cancelled = await trx
        .updateTable('imports')
        .set({ status: 'cancelled', error: 'Nobody applied the plan for 7 days.', finished_at: at, updated_at: at })
        .where('id', '=', id)
        .where('status', '=', 'planned')
        .executeTakeFirst();
      if (cancelled.numUpdatedRows > 0n) await trx.deleteFrom('import_rows').where('import_id', '=', id).execute();
    });
  }
  return Number(abandoned.numDeletedRows) + stale.length;
}
