/**
 * One transaction around a whole request, so that an idempotent POST commits its change and its
 * saved response together, or neither.
 *
 * The request opens the transaction (`openRequestTransaction`) and hands its route the store
 * `storeInTransaction` makes of it, as `request.store`: there `store.db` is the open transaction
 * and `store.transaction(work)` runs `work` in a savepoint of it (so a service that throws still
 * undoes its own changes). Once the transaction has ended it is the plain store again.
 */
import { sql } from 'kysely';
import type { Store } from '../storage/database.js';
import type { Db } from '../storage/schema.js';

export interface RequestTransaction {
  readonly trx: Db;
  /** True until commit or rollback; afterwards the wrapper falls back to the plain store. */
  readonly open: boolean;
  /** Commits (running the afterCommit callbacks); rejects if the commit failed. */
  commit(): Promise<void>;
  /** Rolls back; never rejects. */
  rollback(): Promise<void>;
}

class Rollback extends Error {}

/** Begins a transaction that stays open until `commit()` or `rollback()` is called. */
export function openRequestTransaction(store: Store): Promise<RequestTransaction> {
  return new Promise((resolveOpen, rejectOpen) => {
    let decide!: (commit: boolean) => void;
    const decision = new Promise<boolean>((resolve) => (decide = resolve));
    let trx: Db | undefined;
    let open = false;
    const finished = store.transaction(async (transaction) => {
      trx = transaction;
      open = true;
      resolveOpen(handle);
      if (!(await decision)) throw new Rollback();
    });
    const end = (commit: boolean) => {
      open = false;
      decide(commit);
      return finished;
    };
    const handle: RequestTransaction = {
      get trx() {
        return trx!;
      },
      get open() {
        return open;
      },
      commit: () => end(true),
      rollback: () => end(false).catch(() => {}),
    };
    // A transaction that could not begin (the database is unavailable) fails the request.
    finished.catch((error: unknown) => {
      if (trx === undefined) rejectOpen(error);
    });
  });
}

let savepoints = 0;

/** Runs `work` in a savepoint of `trx`: its changes are undone if it throws, as a transaction's would be. */
async function inSavepoint<T>(trx: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  const name = sql.raw(`request_sp_${++savepoints}`);
  await sql`savepoint ${name}`.execute(trx);
  let result: T;
  try {
    result = await work(trx);
  } catch (error) {
    await sql`rollback to savepoint ${name}`.execute(trx);
    throw error;
  }
  await sql`release savepoint ${name}`.execute(trx);
  return result;
}

/** The store a keyed request's route is given (as `request.store`): its transaction while it is open. */
export function storeInTransaction(store: Store, transaction: RequestTransaction): Store {
  return {
    ...store,
    get db() {
      return transaction.open ? transaction.trx : store.db;
    },
    transaction: (work) => (transaction.open ? inSavepoint(transaction.trx, work) : store.transaction(work)),
  };
}
