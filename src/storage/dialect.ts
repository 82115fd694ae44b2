/**
 * Every difference between SQLite and PostgreSQL that the rest of tasklane must know about.
 * Callers never branch on the engine; they ask this module.
 */
import type { ColumnDefinitionBuilder, CreateTableBuilder } from 'kysely';

export type DialectName = 'sqlite' | 'postgres';

/** Adds an auto-incrementing integer primary key named `id`. */
export function withSerialId<T extends string>(
  table: CreateTableBuilder<T, never>,
  dialect: DialectName,
): CreateTableBuilder<T, 'id'> {
  return dialect === 'postgres'
    ? table.addColumn('id', 'serial', (col: ColumnDefinitionBuilder) => col.primaryKey())
    : table.addColumn('id', 'integer', (col: ColumnDefinitionBuilder) => col.primaryKey().autoIncrement());
}

/** PostgreSQL's int4 range; ids beyond it cannot exist, so lookups skip the query. */
export const MAX_ID = 2_147_483_647;
