/**
 * Reads a spreadsheet's CSV: a header row, then one task a row. The fields: title (required),
 * description, status, completed, priority, dueDate, assignees, labels, list and ref.
 *
 * Which column holds a field: `options.columns` (`{"title": "Name", "dueDate": "Due"}`), else the
 * column whose header is the field's name, case and spaces, `_` and `-` aside ("Due date",
 * "due_date"); a few other names are understood too (ALIASES: "Id" for ref, "Assignee emails"
 * before "Assignees"), so tasklane's own GET /v1/tasks.csv reads back. A mapping to a header the
 * file lacks, an unknown field in the mapping, or no title column refuses the file.
 *
 * Values (trimmed, and without the `'` that keeps a spreadsheet from running a cell as a formula):
 * completed is true for true/yes/y/1/x/done/✓ (any case); priority one of
 * low/medium/high/urgent (any case); dueDate YYYY-MM-DD, or an ISO date-time whose date is taken
 * as written; assignees are emails separated by `,` or `;` (a value without `@` is a person's name,
 * for the plan's list of unknown people); labels separated the same way; list a list's name
 * (rows without one go to a list named after the file, or "Imported"); status a name the team may
 * have (plan.ts matches or makes it: no status items). A value that does not fit is a problem and
 * the field is left empty; a row without a title is a problem and no task.
 *
 * Lists go out before tasks, and a CSV names its lists only row by row: so the rows are read
 * whole first, up to MAX_ROWS (a larger file is refused: split it), then the lists, then tasks.
 *
 * Refs: `csv:ref:<value>` from a ref column, else `csv:<lowercased title>#<n>` (its nth occurrence).
 */
import { PRIORITIES } from '../../contract/enums.js';
import { baseName, csvRows, isBlankRow, isCalendarDate, quoted } from './read-helpers.js';
import {
  UnreadableFile,
  type ReadOptions,
  type SourceItem,
  type SourceList,
  type SourcePerson,
  type SourceProblem,
  type SourceTask,
} from './source-items.js';

export const CSV_FIELDS = [
  'title',
  'description',
  'status',
  'completed',
  'priority',
  'dueDate',
  'assignees',
  'labels',
  'list',
  'ref',
] as const;
type Field = (typeof CSV_FIELDS)[number];

/** Rows read at most: they are held until the lists are known. */
export const MAX_ROWS = 100_000;
/** Header names a field takes without a mapping, best first (normalized: lowercase, no spaces, `_` or `-`). */
const ALIASES: Partial<Record<Field, string[]>> = {
  assignees: ['assigneeemails', 'assignees', 'assignee'],
  labels: ['labels', 'label'],
  ref: ['ref', 'id'],
};
const TRUE = new Set(['true', 'yes', 'y', '1', 'x', 'done', '✓', '✔']);
const FALSE = new Set(['', 'false', 'no', 'n', '0']);
const DEFAULT_LIST = 'Imported';

const normalized = (header: string) => header.toLowerCase().replace(/[\s_-]/g, '');
const split = (value: string) => [
  ...new Set(
    value
      .split(/[,;]/)
      .map((part) => part.trim())
      .filter((part) => part !== ''),
  ),
];

/** Refuses a mapping that names a field there is not. */
function checkMapping(mapping: Record<string, string> | undefined): void {
  const unknown = Object.keys(mapping ?? {}).filter((field) => !(CSV_FIELDS as readonly string[]).includes(field));
  if (unknown.length > 0) {
    throw new UnreadableFile(
      `The column mapping names ${unknown.map((field) => `"${field}"`).join(', ')}, which ${unknown.length === 1 ? 'is not a field' : 'are not fields'}: the fields are ${CSV_FIELDS.join(', ')}.`,
    );
  }
}

/** Which column (index) holds each field, from the header and the mapping; refuses what cannot be read. */
export function columnsOf(header: string[], mapping: Record<string, string> | undefined): Map<Field, number> {
  checkMapping(mapping);
  const columns = new Map<Field, number>();
  const byName = new Map<string, number>();
  header.forEach((name, index) => {
    if (!byName.has(normalized(name))) byName.set(normalized(name), index);
  });
  const exact = new Map<string, number>();
  header.forEach((name, index) => {
    if (!exact.has(name.trim().toLowerCase())) exact.set(name.trim().toLowerCase(), index);
  });
  for (const field of CSV_FIELDS) {
    const mapped = mapping?.[field];
    if (mapped !== undefined) {
      if (typeof mapped !== 'string') {
        throw new UnreadableFile(`The column mapping gives ${field} something other than a column's name.`);
      }
      const index = exact.get(mapped.trim().toLowerCase());
      if (index === undefined) {
        throw new UnreadableFile(
          `The column mapping gives ${field} the column "${mapped}", which the file's header lacks.`,
        );
      }
      columns.set(field, index);
      continue;
    }
    const index = (ALIASES[field] ?? [normalized(field)]).map((name) => byName.get(name)).find((i) => i !== undefined);
    if (index !== undefined) columns.set(field, index);
  }
  if (!columns.has('title')) {
    throw new UnreadableFile(
      'The CSV has no title column: name a column "Title" in its first row, or map one to the title field.',
    );
  }
  return columns;
}

/**
 * A cell without the `'` a CSV writer puts before one a spreadsheet would run as a formula
 * (tasklane's own GET /v1/tasks.csv does, tasks/tasks-csv.ts), so such a value reads back as it was.
 */
const unprotected = (value: string): string => (/^'[=+\-@\t\r]/.test(value) ? value.slice(1) : value);

/** The date of a cell, or undefined when it is not one. */
function dueDateOf(value: string): string | null | undefined {
  if (value === '') return null;
  if (isCalendarDate(value)) return value;
  const day = value.slice(0, 10);
  const isoDateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/.test(value);
  return isoDateTime && isCalendarDate(day) && !Number.isNaN(Date.parse(value)) ? day : undefined;
}

/** A spreadsheet CSV's items: its lists, then its tasks (and their problems) in row order. */
export async function* readCsv(bytes: AsyncIterable<Buffer>, options: ReadOptions): AsyncGenerator<SourceItem> {
  // A mapping's unknown fields are refused before a byte is read.
  checkMapping(options.columns);
  const defaultList = baseName(options.fileName) ?? DEFAULT_LIST;
  let columns: Map<Field, number> | null = null;
  const lists = new Map<string, SourceList>();
  const rows: (SourceTask | SourceProblem)[] = [];
  const occurrences = new Map<string, number>();
  const refs = new Map<string, number>();

  for await (const { cells, line } of csvRows(bytes, 'CSV file')) {
    if (columns === null) {
      columns = columnsOf(cells, options.columns);
      continue;
    }
    if (isBlankRow(cells)) continue;
    if (rows.length >= MAX_ROWS) {
      throw new UnreadableFile(
        `The CSV has more than ${MAX_ROWS.toLocaleString('en-US')} rows, more than one import reads: split the file.`,
      );
    }
    const cell = (field: Field) => {
      const index = columns!.get(field);
      return index === undefined ? '' : unprotected((cells[index] ?? '').trim());
    };
    const problem = (message: string) => rows.push({ kind: 'problem', line, message });

    const title = cell('title');
    if (title === '') {
      problem(`Line ${line} has no title; skipped.`);
      continue;
    }
    let ref: string;
    const refValue = cell('ref');
    if (refValue !== '') {
      ref = `csv:ref:${refValue}`;
      const earlier = refs.get(ref);
      if (earlier !== undefined) {
        problem(`The ref ${quoted(refValue)} is the same as line ${earlier}'s; this row is skipped.`);
        continue;
      }
      refs.set(ref, line);
    } else {
      const key = title.toLowerCase();
      const occurrence = (occurrences.get(key) ?? 0) + 1;
      occurrences.set(key, occurrence);
      ref = `csv:${key}#${occurrence}`;
    }

    const completedText = cell('completed');
    const completed = TRUE.has(completedText.toLowerCase());
    if (!completed && !FALSE.has(completedText.toLowerCase())) {
      problem(`Completed is ${quoted(completedText)}, not yes or no; taken as not completed.`);
    }
    const priorityText = cell('priority').toLowerCase();
    const priority = (PRIORITIES as readonly string[]).includes(priorityText) ? priorityText : null;
    if (priority === null && priorityText !== '') {
      problem(`The priority ${quoted(cell('priority'))} is not low, medium, high or urgent; left empty.`);
    }
    let dueDate = dueDateOf(cell('dueDate'));
    if (dueDate === undefined) {
      problem(`The due date ${quoted(cell('dueDate'))} is not a date written YYYY-MM-DD; left empty.`);
      dueDate = null;
    }
    const listName = cell('list') || defaultList;
    const listRef = `csv:list:${listName.toLowerCase()}`;
    if (!lists.has(listRef)) {
      lists.set(listRef, {
        kind: 'list',
        ref: listRef,
        line,
        name: listName,
        color: null,
        isArchived: false,
        members: [],
      });
    }
    rows.push({
      kind: 'task',
      ref,
      line,
      title,
      description: cell('description') || null,
      statusName: cell('status') || null,
      completed,
      priority,
      dueDate,
      listRefs: [listRef],
      assignees: split(cell('assignees')).map((person): SourcePerson =>
        person.includes('@') ? { email: person, name: null } : { email: null, name: person },
      ),
      labelNames: split(cell('labels')),
      parentRef: null,
    });
  }
  if (columns === null) throw new UnreadableFile('The CSV is empty: it has no header row.');
  yield* lists.values();
  yield* rows;
}
