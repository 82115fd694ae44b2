/**
 * How long ago something happened, as a timeline says it: "just now", "5 minutes ago",
 * "yesterday", "3 days ago", then the date ("5 Dec", "5 Dec 2025"). Pure: the moment to
 * compare with is given, so tests pin it; the exact time goes in the element's title.
 */

import { formatDate } from '../lib/dates';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

// The app's sentences are English, so their times are too ("3 minutes ago" beside "Ada moved this").
const ago = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

/**
 * `iso` relative to `now` (ms since the epoch). Past a week the date is shown, in `locale`
 * (the browser's by default): the year only when it is not this year's.
 */
export function relativeTime(iso: string, now: number, locale?: string): string {
  const then = Date.parse(iso);
  const elapsed = now - then;
  // A clock a little ahead of the browser's still reads "just now", not "in 3 seconds".
  if (elapsed < MINUTE) return 'just now';
  if (elapsed < HOUR) return ago.format(-Math.floor(elapsed / MINUTE), 'minute');
  if (elapsed < DAY) return ago.format(-Math.floor(elapsed / HOUR), 'hour');
  if (elapsed < 7 * DAY) return ago.format(-Math.floor(elapsed / DAY), 'day');
  return formatDate(new Date(then), now, locale);
}
