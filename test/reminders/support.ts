/**
 * What the reminder suites share: a due date far enough ahead that no real clock reaches it
 * during a run, and servers whose clock (TASKLANE_CLOCK_OFFSET_MS) reads a chosen instant at
 * their start, with the scheduled jobs on and looking often.
 */
import type { Actor } from '../factories.js';
import { Client, expectStatus, startTestServer, type TestServer } from '../harness.js';

const DAY = 24 * 60 * 60 * 1000;

/** A date (YYYY-MM-DD, UTC) `days` after today. */
export function dayAhead(days: number): string {
  return new Date(Date.now() + days * DAY).toISOString().slice(0, 10);
}

/** The instant `time` (HH:MM:SS, UTC) on `date` plus `shiftDays`. */
export function utc(date: string, time: string, shiftDays = 0): Date {
  return new Date(Date.parse(`${date}T${time}Z`) + shiftDays * DAY);
}

/** The environment of a server whose clock reads `instant` now (null: the real time). */
export function clockAt(instant: Date | null): Record<string, string> {
  return {
    SCHEDULED_JOBS: 'on',
    JOBS_POLL_MS: '100',
    TASKLANE_CLOCK_OFFSET_MS: instant === null ? '0' : String(instant.getTime() - Date.now()),
  };
}

/** A server on the database `url` whose clock reads `instant` (null: the real time). */
export function startAt(url: string, instant: Date | null, env: Record<string, string> = {}): Promise<TestServer> {
  return startTestServer({ DATABASE_URL: url, ...clockAt(instant), ...env });
}

/** The actor's client on another server (a restart on the same database listens on a new port). */
export const on = (server: TestServer, actor: Actor): Client => new Client(server.url, actor.key);

export interface Notice {
  id: number;
  kind: string;
  task: { id: number };
  actor: unknown;
  late: boolean;
}

/** The actor's notifications about the task, newest first. */
export async function noticesAbout(api: Client, taskId: number): Promise<Notice[]> {
  const page = expectStatus(await api.get('/v1/notifications?limit=200'), 200) as { items: Notice[] };
  return page.items.filter((item) => item.task.id === taskId);
}

export async function kindsAbout(api: Client, taskId: number): Promise<string[]> {
  return (await noticesAbout(api, taskId)).map((item) => item.kind);
}
