/**
 * The time as time-based work sees it (due-date reminders: their planning and the scheduled
 * jobs that fire them): the system's clock, shifted by TASKLANE_CLOCK_OFFSET_MS, which the server
 * sets at its start (app.ts). Tests, and an operator rehearsing reminders, move a server's day
 * forward without waiting for it. The offset is the process's, as the variable is. Every other
 * timestamp is the system's own.
 */
export interface Clock {
  now(): Date;
}

let offsetMs = 0;

export const clock: Clock = { now: () => new Date(Date.now() + offsetMs) };

export function setClockOffset(ms: number): void {
  offsetMs = ms;
}
