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

/**
 * People sort by name, then id, compared by code point: the same order on every store,
 * whatever collation a PostgreSQL database was created with.
 */
export function byNameThenId(a: { name: string; id: string }, b: { name: string; id: string }): number {
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
