/**
 * The orders GET /v1/tasks can sort by (issue 29), as expressions of task `t`. Each is written
 * exactly as its index in migration 0019 is, so both planners walk that index in order and stop
 * at the page's end instead of sorting the team's tasks. Priority is not ordered by value
 * (text would sort high before low): task-query.ts reads it a value at a time.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { TaskSortKey } from '../contract/enums.js';
import { codePointOrder } from './dialect.js';

/** The columns (or expressions) each sort orders by. */
export function sortExpression(db: Kysely<any>, key: TaskSortKey): RawBuilder<unknown> {
  switch (key) {
    case 'number':
      return sql.ref('t.number');
    case 'dueDate':
      return sql.ref('t.due_date');
    case 'priority':
      // Read a value at a time, in rank order (task-query.ts, pageParts).
      return sql.ref('t.priority');
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
