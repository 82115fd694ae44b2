/** Dates as people read them; the API's calendar dates are YYYY-MM-DD, timestamps ISO 8601. */

/** Today in the browser's time zone, as YYYY-MM-DD. */
export function today(): string {
  const now = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

export function isOverdue(dueDate: string | null, completed: boolean): boolean {
  return dueDate !== null && !completed && dueDate < today();
}

/** "21 Nov 2026, 17:04" in the browser's locale, or "never". */
export function formatTimestamp(iso: string | null): string {
  if (!iso) return 'never';
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** A due date as a person reads it: "1 Dec" this year, "1 Dec 2027" another (the browser's locale). */
export function formatDueDate(date: string): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const local = new Date(year, month - 1, day);
  const sameYear = year === new Date().getFullYear();
  return local.toLocaleDateString(undefined, {
    day: 'numeric',
    month: 'short',
    year: sameYear ? undefined : 'numeric',
  });
}
