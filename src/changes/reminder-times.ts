/**
 * When a person is reminded of a due date: `daysBefore` days before it at `time` (HH:MM) in their
 * time zone (dueSoon), and on the day after it at the same time (overdue). Time zones are the
 * IANA names the runtime's ICU knows (Intl), so their rules (summer time) are the runtime's.
 */

export interface ReminderSettings {
  /** An IANA time zone name, as the runtime spells it ("Europe/Berlin", "UTC"). */
  timeZone: string;
  /** 0: on the due day; 1: the day before; … up to 7. */
  daysBefore: number;
  /** HH:MM, in `timeZone`. */
  time: string;
}

/** Until a person chooses: at 9:00 on the due day, in UTC. */
export const DEFAULT_REMINDER_SETTINGS: Readonly<ReminderSettings> = Object.freeze({
  timeZone: 'UTC',
  daysBefore: 0,
  time: '09:00',
});

export const MAX_DAYS_BEFORE = 7;

const formats = new Map<string, Intl.DateTimeFormat>();

function formatIn(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(timeZone, format);
  }
  return format;
}

let knownZones: Map<string, string> | undefined;

/**
 * The zone's name, or undefined for a name the runtime does not know. A name is kept as given
 * ("Asia/Kolkata" stays, though this runtime's ICU calls it "Asia/Calcutta"), in the case the
 * runtime lists it ("utc" → "UTC"), so the name a person chose is the one they see.
 */
export function canonicalTimeZone(name: string): string | undefined {
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
  knownZones ??= new Map(['UTC', ...Intl.supportedValuesOf('timeZone')].map((zone) => [zone.toLowerCase(), zone]));
  const lower = name.toLowerCase();
  return knownZones.get(lower) ?? (resolved.toLowerCase() === lower ? resolved : name);
}

/** How far the zone's wall clock is ahead of UTC at the instant `ms`. */
function offsetAt(ms: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  for (const part of formatIn(timeZone).formatToParts(new Date(ms))) parts[part.type] = Number(part.value);
  const wall = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
  return wall - Math.floor(ms / 1000) * 1000;
}

/**
 * The instant the zone's wall clock reads `time` on `date` (YYYY-MM-DD) plus `dayShift` days. A
 * time the zone skips (the hour clocks jump forward) falls an hour later; one it repeats (the clocks go back), the second.
 */
export function instantOf(date: string, dayShift: number, time: string, timeZone: string): Date {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const [hour, minute] = time.split(':').map(Number) as [number, number];
  const wall = Date.UTC(year, month - 1, day + dayShift, hour, minute);
  // The offset at a guess, then at the instant that guess gives: right on both sides of a change.
  const guess = wall - offsetAt(wall, timeZone);
  return new Date(wall - offsetAt(guess, timeZone));
}

/** When the person is reminded that a task is due soon, and that it is overdue. */
export function reminderTimes(dueDate: string, settings: ReminderSettings): { dueSoon: Date; overdue: Date } {
  return {
    dueSoon: instantOf(dueDate, -settings.daysBefore, settings.time, settings.timeZone),
    overdue: instantOf(dueDate, 1, settings.time, settings.timeZone),
  };
}
