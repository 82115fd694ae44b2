/**
 * The cursor of a sorted GET /v1/tasks: the sort it belongs to and the last task's place in it
 * (its sort value and id), as base64url JSON. It carries the value rather than naming a task, so
 * a page boundary holds when that task is changed or deleted meanwhile: the next page starts
 * right after where the last one ended, neither skipping nor repeating a task that stayed put.
 */
import { MAX_ID, PRIORITIES, TASK_SORTS, type Priority, type TaskSortParam } from '../contract/index.js';
import { invalidInput } from '../http/errors.js';
import { NULLABLE_SORTS, type SortPosition, type TaskSort } from './task-query.js';

export function encodeCursor(sort: TaskSortParam, position: SortPosition): string {
  return Buffer.from(JSON.stringify([sort, position.value, position.id])).toString('base64url');
}

const NOT_A_CURSOR = 'cursor must be a cursor from the Link header of a sorted page of GET /v1/tasks.';
/** NUL or half a surrogate pair: no stored value holds one, and PostgreSQL refuses it as a parameter. */
const UNSTORABLE = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** `sort` (and `cursor`) as the query gives them; a cursor of another sort, or none at all, is a 400. */
export function toSort(sort: TaskSortParam | undefined, cursor: string | undefined): TaskSort | undefined {
  if (sort === undefined) {
    if (cursor !== undefined) throw invalidInput('cursor goes with the sort of the page that gave it: send sort too.');
    return undefined;
  }
  const descending = sort.startsWith('-');
  const key = (descending ? sort.slice(1) : sort) as TaskSort['key'];
  return { key, descending, after: cursor === undefined ? undefined : decode(cursor, sort, key) };
}

function decode(cursor: string, sort: TaskSortParam, key: TaskSort['key']): SortPosition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidInput(NOT_A_CURSOR);
  }
  if (!Array.isArray(parsed) || parsed.length !== 3) throw invalidInput(NOT_A_CURSOR);
  const [from, value, id] = parsed as unknown[];
  if (typeof from !== 'string' || !TASK_SORTS.includes(from as TaskSortParam)) throw invalidInput(NOT_A_CURSOR);
  if (from !== sort) throw invalidInput(`This cursor belongs to sort=${from}; send it with that sort.`);
  if (!Number.isInteger(id) || (id as number) < 1 || (id as number) > MAX_ID) throw invalidInput(NOT_A_CURSOR);
  // The value's type must be the sort's: the database compares it with the column.
  const fits =
    value === null
      ? NULLABLE_SORTS.has(key)
      : key === 'number'
        ? Number.isInteger(value) && Math.abs(value as number) <= MAX_ID
        : key === 'priority'
          ? PRIORITIES.includes(value as Priority)
          : typeof value === 'string' && !UNSTORABLE.test(value);
  if (!fits) throw invalidInput(NOT_A_CURSOR);
  return { value: value as SortPosition['value'], id: id as number };
}
