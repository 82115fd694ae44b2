import { MAX_ID } from './storage/dialect.js';

/**
 * A numeric id from a path or body, or null when it is too large to exist
 * (such an id is simply not found; asking the database would overflow its integer type).
 */
export function toId(raw: string | number): number | null {
  const id = typeof raw === 'number' ? raw : Number(raw);
  return Number.isSafeInteger(id) && id >= 1 && id <= MAX_ID ? id : null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}
