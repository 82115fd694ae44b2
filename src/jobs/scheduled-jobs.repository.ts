/**
 * The durable scheduler's table (migration 0023): work planned for a time, run once. A job is
 * claimed by one UPDATE that leases it to a process (`claim`, `claimed_until`), as the webhook
 * and mail queues lease theirs; the claim's holder then deletes it in the same transaction as the
 * work it does (job-runner.ts), so the work is done exactly once: a process that dies before its
 * COMMIT leaves the job in place, and once the lease has passed another process runs it.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../storage/schema.js';

export interface NewJob {
  kind: string;
  teamId: string;
  taskId: number | null;
  userId: string | null;
  /** JSON-able: what the job's kind needs beyond the team, task and person. */
  data: unknown;
  runAt: Date;
}

export interface ScheduledJob {
  id: number;
  kind: string;
  teamId: string;
  taskId: number | null;
  userId: string | null;
  data: unknown;
  runAt: string;
  attempts: number;
}

/** A claimed job: its row, and the claim that lets its holder (alone) run it. */
export interface ClaimedJob extends ScheduledJob {
  claim: string;
}

export async function insertJobs(db: Db, jobs: readonly NewJob[], now: Date): Promise<void> {
  if (jobs.length === 0) return;
  const createdAt = now.toISOString();
  await db
    .insertInto('scheduled_jobs')
    .values(
      jobs.map((job) => ({
        kind: job.kind,
        team_id: job.teamId,
        task_id: job.taskId,
        user_id: job.userId,
        data: JSON.stringify(job.data),
        run_at: job.runAt.toISOString(),
        created_at: createdAt,
      })),
    )
    .execute();
}

const free = (now: string) => sql<boolean>`(claimed_until is null or claimed_until <= ${now})`;

/**
 * Leases up to `limit` due jobs, earliest first, until `until`. The conditions are repeated on
 * the updated row itself: on PostgreSQL a second process whose subquery picked the same rows
 * waits for the first one's commit and then finds them leased.
 */
export async function claimDueJobs(db: Db, now: Date, until: Date, limit: number): Promise<ClaimedJob[]> {
  const at = now.toISOString();
  const claim = randomUUID();
  const rows = await db
    .updateTable('scheduled_jobs')
    .set((eb) => ({ claim, claimed_until: until.toISOString(), attempts: eb('attempts', '+', 1) }))
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('scheduled_jobs')
        .select('id')
        .where('run_at', '<=', at)
        .where(free(at))
        .orderBy('run_at')
        .limit(limit),
    )
    .where('run_at', '<=', at)
    .where(free(at))
    .returning(['id', 'kind', 'team_id', 'task_id', 'user_id', 'data', 'run_at', 'attempts'])
    .execute();
  return rows
    .map((row) => ({
      id: row.id,
      kind: row.kind,
      teamId: row.team_id,
      taskId: row.task_id,
      userId: row.user_id,
      data: JSON.parse(row.data) as unknown,
      runAt: row.run_at,
      attempts: row.attempts,
      claim,
    }))
    .sort((a, b) => a.runAt.localeCompare(b.runAt) || a.id - b.id);
}

/**
 * Takes the claimed job off the table, in the transaction of its work: true while the claim
 * holds; false once it has passed to another process (or the job was cancelled meanwhile).
 */
export async function takeClaimedJob(db: Db, job: ClaimedJob): Promise<boolean> {
  const taken = await db
    .deleteFrom('scheduled_jobs')
    .where('id', '=', job.id)
    .where('claim', '=', job.claim)
    .returning('id')
    .executeTakeFirst();
  return taken !== undefined;
}

/** The work failed: the job stays, leased until `retryAt` (then due again), with the reason. */
export async function recordJobFailure(db: Db, job: ClaimedJob, reason: string, retryAt: Date): Promise<void> {
  await db
    .updateTable('scheduled_jobs')
    .set({ claimed_until: retryAt.toISOString(), last_error: reason })
    .where('id', '=', job.id)
    .where('claim', '=', job.claim)
    .execute();
}

/** Gives a claim back unrun (the process is closing). */
export async function releaseJob(db: Db, job: ClaimedJob): Promise<void> {
  await db
    .updateTable('scheduled_jobs')
    .set((eb) => ({ claim: null, claimed_until: null, attempts: eb('attempts', '-', 1) }))
    .where('id', '=', job.id)
    .where('claim', '=', job.claim)
    .execute();
}

/** When the next unclaimed job is due, if any (a lease that runs out is found by the next poll). */
export async function nextJobDue(db: Db): Promise<string | null> {
  const row = await db
    .selectFrom('scheduled_jobs')
    .select('run_at')
    .where('claimed_until', 'is', null)
    .orderBy('run_at')
    .limit(1)
    .executeTakeFirst();
  return row?.run_at ?? null;
}

/** What `tasklane admin jobs status` shows: the jobs by kind, how many are due, and the failing ones. */
export async function jobsStatus(db: Db, now: Date, recentFailures: number) {
  const at = now.toISOString();
  const kinds = await db
    .selectFrom('scheduled_jobs')
    .select((eb) => [
      'kind',
      eb.fn.countAll<number | string>().as('planned'),
      eb.fn.sum<number | string>(sql`case when run_at <= ${at} then 1 else 0 end`).as('due'),
      eb.fn.sum<number | string>(sql`case when last_error is not null then 1 else 0 end`).as('failing'),
      eb.fn.min('run_at').as('next_run_at'),
    ])
    .groupBy('kind')
    .orderBy('kind')
    .execute();
  const failures = await db
    .selectFrom('scheduled_jobs')
    .select(['id', 'kind', 'run_at', 'attempts', 'last_error', 'claimed_until'])
    .where('last_error', 'is not', null)
    .orderBy('run_at', 'desc')
    .limit(recentFailures)
    .execute();
  return {
    kinds: kinds.map((row) => ({
      kind: row.kind,
      planned: Number(row.planned),
      due: Number(row.due ?? 0),
      failing: Number(row.failing ?? 0),
      nextRunAt: row.next_run_at as string,
    })),
    failing: failures.map((row) => ({
      id: row.id,
      kind: row.kind,
      runAt: row.run_at,
      attempts: row.attempts,
      retryAt: row.claimed_until,
      error: row.last_error!,
    })),
  };
}
