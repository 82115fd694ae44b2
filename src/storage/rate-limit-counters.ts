/**
 * Request counters for rate limiting, in fixed windows that start at a bucket's first hit.
 * SQLite serves one process, so its counters live in that process's memory; on PostgreSQL every
 * process counts in one table, so a limit is shared rather than multiplied by the processes.
 * Ended windows are deleted by `prune`, which a housekeeping job runs once a window (jobs/).
 */
import { sql } from 'kysely';
import type { Store } from './database.js';

/** A bucket's current window: the hits counted in it so far, and how long until it ends. */
export interface WindowCount {
  hits: number;
  msLeft: number;
}

export interface CounterStore {
  /** How long a window lasts. */
  readonly windowMs: number;
  /** Counts one hit for `bucket` and returns its window (a new window when the last one ended). */
  hit(bucket: string): Promise<WindowCount>;
  /** Takes back one hit counted in the bucket's current window (a reservation that was not needed). */
  refund(bucket: string): Promise<void>;
  /**
   * Deletes the windows that have ended, so what is kept follows recent clients only. Idempotent:
   * every process on a PostgreSQL database runs it.
   */
  prune(): Promise<void>;
}

/** Counters for `windowMs`-long windows kept where the store's processes can all see them. */
export function openCounterStore(store: Store, windowMs: number): CounterStore {
  return store.dialect === 'postgres' ? new PostgresCounters(store, windowMs) : new MemoryCounters(windowMs);
}

/** One process's counters. */
export class MemoryCounters implements CounterStore {
  private readonly windows = new Map<string, { start: number; hits: number }>();

  constructor(readonly windowMs: number) {}

  async hit(bucket: string): Promise<WindowCount> {
    const now = Date.now();
    let window = this.windows.get(bucket);
    if (!window || now - window.start >= this.windowMs) {
      window = { start: now, hits: 0 };
      this.windows.set(bucket, window);
    }
    window.hits += 1;
    return { hits: window.hits, msLeft: window.start + this.windowMs - now };
  }

  async refund(bucket: string): Promise<void> {
    const window = this.windows.get(bucket);
    if (window && Date.now() - window.start < this.windowMs && window.hits > 0) window.hits -= 1;
  }

  async prune(): Promise<void> {
    const now = Date.now();
    for (const [bucket, window] of this.windows) {
      if (now - window.start >= this.windowMs) this.windows.delete(bucket);
    }
  }
}

/**
 * One row per bucket in the UNLOGGED `rate_limit_counters` table (a crash may forget counts, which
 * only forgives a minute of requests). Each hit is one atomic upsert, so concurrent hits from any
 * number of processes are all counted; the database's clock decides windows, so processes whose
 * clocks differ still agree.
 */
export class PostgresCounters implements CounterStore {
  constructor(
    private readonly store: Store,
    readonly windowMs: number,
  ) {}

  async hit(bucket: string): Promise<WindowCount> {
    const window = this.interval();
    const { rows } = await sql<{ hits: number; ms_left: number }>`
      insert into rate_limit_counters as c (bucket, window_start, hits) values (${bucket}, now(), 1)
      on conflict (bucket) do update set
        window_start = case when c.window_start <= now() - ${window} then now() else c.window_start end,
        hits = case when c.window_start <= now() - ${window} then 1 else c.hits + 1 end
      returning hits, (extract(epoch from window_start + ${window} - now()) * 1000)::float8 as ms_left
    `.execute(this.store.db);
    return { hits: rows[0]!.hits, msLeft: rows[0]!.ms_left };
  }

  async refund(bucket: string): Promise<void> {
    const window = this.interval();
    await sql`
      update rate_limit_counters set hits = greatest(hits - 1, 0)
      where bucket = ${bucket} and window_start > now() - ${window}
    `.execute(this.store.db);
  }

  async prune(): Promise<void> {
    await sql`delete from rate_limit_counters where window_start <= now() - ${this.interval()}`.execute(this.store.db);
  }

  /** The window length as an SQL interval literal (a number from the configuration, never user input). */
  private interval() {
    return sql`make_interval(secs => ${sql.lit(this.windowMs / 1000)})`;
  }
}
