/**
 * The orders GET /v1/tasks can sort by (issue 29), as expressions of task `t`. Each is written
 * exactly as its index in migration 0019 is, so both planners walk that index in order and stop
 * at the page's end instead of sorting the team's tasks.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { TaskSortKey } from '../contract/tasks.js';
import { codePointOrder } from './dialect.js';

/** Priorities as numbers that sort as they rank, low (1) to urgent (4); null stays null. */
export const PRIORITY_RANK = (column: string) =>
  `case ${column} when 'low' then 1 when 'medium' then 2 when 'high' then 3 when 'urgent' then 4 end`;

/** The columns (or expressions) each sort orders by. */
export function sortExpression(db: Kysely<any>, key: TaskSortKey): RawBuilder<unknown> {
  switch (key) {
    case 'number':
      return sql.ref('t.number');
    case 'dueDate':
      return sql.ref('t.due_date');
    case 'priority':
      return sql.raw(PRIORITY_RANK('t.priority'));
    case 'updatedAt':
      return sql.ref('t.updated_at');
    case 'createdAt':
      return sql.ref('t.created_at');
    case 'title':
      // Lower-cased (title_search), by code point on both engines, so an order never depends on
      // the PostgreSQL database's collation.
      return codePointOrder(db, 't.title_search');
  }
}
