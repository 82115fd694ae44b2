/**
 * A checksum of a table's rows that comes out the same on SQLite and PostgreSQL, whatever order
 * the rows are read in: migrate-data sums it over the rows it reads from the source and again
 * over the rows it reads back from the target, before the target commits.
 */
import { createHash } from 'node:crypto';
import type { CatalogColumn } from './dialect.js';

const MODULUS = 1n << 256n;

/**
 * One value in a form both engines agree on: integers as decimal text whether the driver gave a
 * number, a bigint or a string (pg returns int8 as text), booleans as 1/0, text as itself,
 * binary as hex, a Date as its ISO instant, NULL as null. Each form is tagged, so the text "1"
 * never equals the integer 1.
 */
function canonical(value: unknown, column: CatalogColumn): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return value ? 'i:1' : 'i:0';
  if (typeof value === 'bigint') return `i:${value}`;
  if (column.integer && (typeof value === 'number' || typeof value === 'string')) {
    // SQLite lets an INTEGER column hold text that is not a number; that stays text.
    if (/^-?\d+$/.test(String(value))) return `i:${BigInt(value)}`;
  }
  if (typeof value === 'number') return Number.isInteger(value) ? `i:${value}` : `f:${value}`;
  if (typeof value === 'string') return `s:${value}`;
  if (value instanceof Date) return `s:${value.toISOString()}`;
  if (value instanceof Uint8Array) return `b:${Buffer.from(value).toString('hex')}`;
  return `j:${JSON.stringify(value)}`;
}

/**
 * A running checksum: the sum, modulo 2^256, of the sha256 of each row's canonical form (its
 * columns in name order). A sum does not depend on order (the engines sort text differently),
 * and unlike XOR, a row read twice does not cancel out.
 */
export class TableChecksum {
  private sum = 0n;
  private count = 0;

  constructor(private readonly columns: readonly CatalogColumn[]) {}

  add(row: Record<string, unknown>): void {
    const form = JSON.stringify(this.columns.map((column) => [column.name, canonical(row[column.name], column)]));
    const digest = createHash('sha256').update(form).digest('hex');
    this.sum = (this.sum + BigInt(`0x${digest}`)) % MODULUS;
    this.count++;
  }

  get rows(): number {
    return this.count;
  }

  /** The sum as 64 hex digits. */
  digest(): string {
    return this.sum.toString(16).padStart(64, '0');
  }
}
