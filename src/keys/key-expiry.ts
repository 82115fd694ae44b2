/**
 * Optional key expiry, as the CLI (`--expires-in-days`, `--expires-at`) and the web app
 * (`expiresInDays`, `expiresAt`) ask for it. Stored as an ISO timestamp in UTC, so stored
 * values compare as text in SQL on both stores.
 */

import { MAX_EXPIRY_DAYS } from '../contract/keys.js';

export { MAX_EXPIRY_DAYS };
const DAY_MS = 86_400_000;
/** A date with a time and an explicit zone: `2026-12-31T23:59:59Z`, `…+02:00`, fractions allowed. */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** Date.parse rolls 2026-02-30 over into March; a typo like that must be refused instead. */
function isCalendarDay(text: string): boolean {
  const [year, month, day] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** A request for expiry that cannot be honoured; `message` names the option or field. */
export class ExpiryError extends Error {}

export interface ExpiryRequest {
  expiresAt?: string;
  expiresInDays?: string | number;
}

/** The names the caller used, for messages. */
export interface ExpiryNames {
  expiresAt: string;
  expiresInDays: string;
}

/** The expiry to store (ISO, UTC), or null for a key that never expires. */
export function resolveExpiry(request: ExpiryRequest, names: ExpiryNames, now = Date.now()): string | null {
  const { expiresAt, expiresInDays } = request;
  if (expiresAt !== undefined && expiresInDays !== undefined) {
    throw new ExpiryError(`Give ${names.expiresAt} or ${names.expiresInDays}, not both.`);
  }
  if (expiresInDays !== undefined) {
    const days = String(expiresInDays);
    if (!/^\d+$/.test(days) || Number(days) < 1 || Number(days) > MAX_EXPIRY_DAYS) {
      throw new ExpiryError(`${names.expiresInDays} must be a whole number of days from 1 to ${MAX_EXPIRY_DAYS}.`);
    }
    return new Date(now + Number(days) * DAY_MS).toISOString();
  }
  if (expiresAt !== undefined) {
    const at = ISO_DATE_TIME.test(expiresAt) && isCalendarDay(expiresAt) ? Date.parse(expiresAt) : NaN;
    if (Number.isNaN(at)) {
      throw new ExpiryError(`${names.expiresAt} must be a date and time with a zone, such as 2026-12-31T23:59:59Z.`);
    }
    if (at <= now) throw new ExpiryError(`${names.expiresAt} must be in the future.`);
    if (at > now + MAX_EXPIRY_DAYS * DAY_MS) {
      throw new ExpiryError(`${names.expiresAt} must be at most ${MAX_EXPIRY_DAYS} days from now.`);
    }
    return new Date(at).toISOString();
  }
  return null;
}
