/**
 * Queries on idempotency records (migration 0008). Every function that reserves or saves takes the
 * request's own transaction, so a record becomes visible to other requests only together with the
 * change it describes and its saved response.
 */
import { isLockTimeout, withLockTimeout, type DialectName } from '../storage/dialect.js';
import type { Db } from '../storage/schema.js';

/** Whose key it is: the credential (`key:<id>` or `session:<id>`), its team, and the key's HMAC. */
export interface RecordScope {
  credential: string;
  teamId: string;
  keyHash: string;
}

export type Reservation =
  | { kind: 'reserved' }
  /** The key was used before (within its lifetime): what was asked then, and the sealed answer. */
  | { kind: 'used'; fingerprint: string; response: string | null }
  /** PostgreSQL: another transaction holds the key for longer than we wait. */
  | { kind: 'busy' };

/** How long a retry waits for a concurrent request with the same key to finish (PostgreSQL). */
export const CONCURRENT_WAIT_MS = 5_000;

/**
 * Reserves the key inside `trx`, or reports the record that already holds it. A record created
 * before `expiredBefore` no longer counts: it is replaced. In PostgreSQL the insert of a key that
 * a concurrent, uncommitted transaction has just inserted waits for that transaction to end (a
 * unique-index wait), then either conflicts with its committed record or, if it rolled back,
 * succeeds. In SQLite `begin immediate` already serialized the two transactions.
 */
export async function reserve(
  trx: Db,
  dialect: DialectName,
  scope: RecordScope,
  fingerprint: string,
  now: Date,
  expiredBefore: Date,
): Promise<Reservation> {
  let inserted: { created_at: string } | undefined;
  try {
    // Bound the wait on a concurrent holder of the key, for these statements only.
    inserted = await withLockTimeout(trx, dialect, CONCURRENT_WAIT_MS, async () => {
      await trx
        .deleteFrom('idempotency_keys')
        .where('credential', '=', scope.credential)
        .where('team_id', '=', scope.teamId)
        .where('key_hash', '=', scope.keyHash)
        .where('created_at', '<', expiredBefore.toISOString())
        .execute();
      return trx
        .insertInto('idempotency_keys')
        .values({
          credential: scope.credential,
          team_id: scope.teamId,
          key_hash: scope.keyHash,
          fingerprint,
          response: null,
          created_at: now.toISOString(),
        })
        .onConflict((conflict) => conflict.columns(['credential', 'team_id', 'key_hash']).doNothing())
        .returning('created_at')
        .executeTakeFirst();
    });
  } catch (error) {
    if (isLockTimeout(error)) return { kind: 'busy' };
    throw error;
  }
  if (inserted) return { kind: 'reserved' };

  const existing = await trx
    .selectFrom('idempotency_keys')
    .select(['fingerprint', 'response'])
    .where('credential', '=', scope.credential)
    .where('team_id', '=', scope.teamId)
    .where('key_hash', '=', scope.keyHash)
    .executeTakeFirst();
  // Gone between the conflict and this read (another process pruned it as it expired): retry later.
  if (!existing) return { kind: 'busy' };
  return { kind: 'used', fingerprint: existing.fingerprint, response: existing.response };
}

/** Stores the sealed response on the record reserved in the same transaction. */
export async function saveResponse(trx: Db, scope: RecordScope, sealed: string): Promise<void> {
  await trx
    .updateTable('idempotency_keys')
    .set({ response: sealed })
    .where('credential', '=', scope.credential)
    .where('team_id', '=', scope.teamId)
    .where('key_hash', '=', scope.keyHash)
    .execute();
}

/** Records deleted per statement when pruning: short statements, never a long lock or a timeout. */
const PRUNE_BATCH = 1_000;

/** Deletes every record created before `expiredBefore`, in batches; returns how many. */
export async function pruneExpired(db: Db, expiredBefore: Date): Promise<number> {
  let total = 0;
  for (;;) {
    const result = await db
      .deleteFrom('idempotency_keys')
      .where(({ eb, refTuple, selectFrom }) =>
        eb(
          refTuple('credential', 'team_id', 'key_hash'),
          'in',
          selectFrom('idempotency_keys')
            .select(['credential', 'team_id', 'key_hash'])
            .where('created_at', '<', expiredBefore.toISOString())
            .limit(PRUNE_BATCH)
            .$asTuple('credential', 'team_id', 'key_hash'),
        ),
      )
      .executeTakeFirst();
    const deleted = Number(result.numDeletedRows);
    total += deleted;
    if (deleted < PRUNE_BATCH) return total;
  }
}
