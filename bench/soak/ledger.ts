/**
 * What the soak saw: every request's outcome with its time, and the fault windows. Whether an
 * outcome broke a promise is decided at the end, once each window's end is known: 503 and 429
 * (and connection errors, whose outcome is unknown) are allowed only for requests that overlap a
 * fault window; any other answer than the one expected is a finding wherever it happens.
 */

/** Milliseconds since the soak's clock started (a monotonic clock). */
export type Ms = number;

const started = performance.now();
export const now = (): Ms => performance.now() - started;
export const seconds = (at: Ms): string => `${(at / 1000).toFixed(1)} s`;

export type Op =
  | 'create'
  | 'patch'
  | 'patch if-match'
  | 'detail read'
  | 'list read'
  | 'sign-in'
  | 'session read'
  | 'sign-out'
  | 'bad: 400 body'
  | 'bad: 404 id'
  | 'bad: 401 key'
  | 'stream open';

export const OPS: Op[] = [
  'create',
  'patch',
  'patch if-match',
  'detail read',
  'list read',
  'sign-in',
  'session read',
  'sign-out',
  'bad: 400 body',
  'bad: 404 id',
  'bad: 401 key',
  'stream open',
];

export interface Entry {
  op: Op;
  /** The process label the request went to. */
  member: string;
  expected: number;
  /** The status, or `connection error (<code>)` when no answer came. */
  outcome: number | string;
  sentAt: Ms;
  doneAt: Ms;
}

/** Statuses a fault may cause; anything else unexpected is a finding even during a fault. */
export const FAULT_STATUSES = new Set([503, 429]);

export interface FaultWindow {
  name: string;
  start: Ms;
  /** When the affected part answered again; the window closes `margin` later. */
  recovered?: Ms;
  end?: Ms;
}

export class Ledger {
  readonly entries: Entry[] = [];
  readonly windows: FaultWindow[] = [];
  /** Events of the run, in order: faults, recoveries, phases. */
  readonly timeline: { at: Ms; what: string }[] = [];
  /** Findings noticed while running (a stale read, a malformed error body…). */
  readonly findings: { at: Ms; what: string }[] = [];

  record(entry: Entry): void {
    this.entries.push(entry);
  }

  note(what: string): void {
    const at = now();
    this.timeline.push({ at, what });
    console.error(`soak ${seconds(at)}: ${what}`);
  }

  finding(what: string): void {
    const at = now();
    this.findings.push({ at, what });
    console.error(`soak ${seconds(at)}: FINDING ${what}`);
  }

  openWindow(name: string): FaultWindow {
    const window: FaultWindow = { name, start: now() };
    this.windows.push(window);
    return window;
  }

  closeWindow(window: FaultWindow, recovered: Ms, marginMs: number): void {
    window.recovered = recovered;
    window.end = recovered + marginMs;
  }

  /** Whether [sentAt, doneAt] overlaps a fault window (one still open counts as open-ended). */
  inFault(sentAt: Ms, doneAt: Ms): boolean {
    return this.windows.some((w) => doneAt >= w.start && sentAt <= (w.end ?? Infinity));
  }

  /** An unexpected outcome a fault explains: 503/429/no answer, overlapping a fault window. */
  excused(entry: Entry): boolean {
    const faultLike = typeof entry.outcome === 'string' || FAULT_STATUSES.has(entry.outcome);
    return faultLike && this.inFault(entry.sentAt, entry.doneAt);
  }
}

/** Whether an answer's body is exactly `{"error": "<non-empty message>"}` (every 4xx must be). */
export function isErrorBody(text: string): boolean {
  try {
    const body = JSON.parse(text) as unknown;
    return (
      body !== null &&
      typeof body === 'object' &&
      !Array.isArray(body) &&
      Object.keys(body).length === 1 &&
      typeof (body as { error?: unknown }).error === 'string' &&
      (body as { error: string }).error.length > 0
    );
  } catch {
    return false;
  }
}
