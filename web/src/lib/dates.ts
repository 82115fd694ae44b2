/**
 * Dates as people read them, one way everywhere: the day and the month's short name, with the
 * year only when it is not this year ("27 Nov", "27 Nov 2025"; in the browser's locale, so
 * "Nov 27" in the US), and a time after it where there is one ("27 Nov, 17:04"). The API's
 * calendar dates are YYYY-MM-DD, its timestamps ISO 8601. `now` and `locale` are for tests.
 */

/** Today in the browser's time zone, as YYYY-MM-DD. */
export function today(): string {
  const now = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

export function isOverdue(dueDate: string | null, completed: boolean): boolean {
  return dueDate !== null && !completed && dueDate < today();
}

/** The options of the one format: the year only when `date` is not in `now`'s year. */
const dateParts = (date: Date, now: number): Intl.DateTimeFormatOptions => ({
  day: 'numeric',
  month: 'short',
  year: date.getFullYear() === new Date(now).getFullYear() ? undefined : 'numeric',
});

/** A moment's day: "27 Nov", or "27 Nov 2025" in another year. */
export function formatDate(date: Date, now = Date.now(), locale?: string): string {
  return date.toLocaleDateString(locale, dateParts(date, now));
}

/** A moment with its time: "27 Nov, 17:04", or "27 Nov 2025, 17:04"; null is "never". */
export function formatTimestamp(iso: string | null, now = Date.now(), locale?: string): string {
  if (!iso) return 'never';
  const date = new Date(iso);
  return date.toLocaleString(locale, { ...dateParts(date, now), hour: 'numeric', minute: '2-digit' });
}

/** A due date (YYYY-MM-DD, a day in no time zone): "1 Dec", or "1 Dec 2027" in another year. */
export function formatDueDate(date: string, now = Date.now(), locale?: string): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return formatDate(new Date(year, month - 1, day), now, locale);
}
