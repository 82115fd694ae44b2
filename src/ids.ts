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
  return byCodePoint(a.name, b.name) || byCodePoint(a.id, b.id);
}

/**
 * Compares strings by code point, as the databases do (SQLite's binary collation, PostgreSQL's
 * "C"). JavaScript's `<` compares UTF-16 code units, which puts a character above U+FFFF (a
 * surrogate pair, 0xD800–0xDFFF) before one in U+E000–U+FFFF; this moves surrogates above them.
 */
export function byCodePoint(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

const codePointRank = (unit: number): number =>
  unit >= 0xd800 && unit <= 0xdfff ? unit + 0x2000 : unit >= 0xe000 ? unit - 0x800 : unit;
