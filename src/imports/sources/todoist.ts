/**
 * Reads a Todoist project's CSV export (the project menu's "Export as a template", CSV): a header
 * row (TYPE, CONTENT, DESCRIPTION, PRIORITY, INDENT, AUTHOR, RESPONSIBLE, DATE, DATE_LANG,
 * TIMEZONE, and in newer files IS_COLLAPSED, DURATION, DURATION_UNIT, DEADLINE, DEADLINE_LANG:
 * columns are found by name), then one row per section, task or note; blank rows and the `meta`
 * row (the project's view) are skipped. Read as a stream.
 *
 * The mapping:
 * - the file → one list named after the file (without its extension), or "Todoist"
 *   (`todoist:list:<name>`); Todoist exports open tasks only, so none is completed;
 * - a section → a label named after it, on each task below it (Todoist's sections are the
 *   project's columns or headings, not a workflow: a status of that name would be a guess). Labels
 *   are given by name only (no label items): plan.ts matches them to the team's or makes them;
 * - a task → a task; `@name` words of its CONTENT are Todoist's labels: they become labels and
 *   leave the title; PRIORITY 1 (p1, highest) → urgent, 2 → high, 3 → medium, 4 or empty → none;
 *   INDENT 2, 3, … → a subtask of the nearest task above with a smaller indent; RESPONSIBLE
 *   `Alice Smith (12345678)` → an assignee by name; DATE → the due date when it is a date
 *   (YYYY-MM-DD, a time after it allowed), else a problem (Todoist's "every day", "Dec 3" …); with
 *   no DATE, DEADLINE when it is one;
 * - a note → a comment on the task above it, by AUTHOR.
 *
 * Refs: the CSV has no ids, so a task's is `todoist:<section>/<content>#<n>` (its nth occurrence
 * in that section): re-importing the same file updates, but a task whose title was edited in
 * Todoist comes in as a new one; a note's is its task's and `/note#<n>` (its nth note). The
 * counts of occurrences hold one entry per distinct title (Todoist's projects are small).
 */
import { baseName, csvRows, isBlankRow, isCalendarDate, quoted } from './read-helpers.js';
import { UnreadableFile, type ReadOptions, type SourceItem, type SourcePerson } from './source-items.js';

const PRIORITY: Record<string, string | null> = { '1': 'urgent', '2': 'high', '3': 'medium', '4': null, '': null };
/** A label word: `@` at the start or after a space, then anything but spaces. */
const LABEL = /(^|\s)@([^\s@]+)/g;

/** `Alice Smith (12345678)` → Alice Smith; empty → null. */
export function todoistPerson(value: string): SourcePerson | null {
  const name = value.replace(/\s*\(\d+\)\s*$/, '').trim();
  return name === '' ? null : { email: null, name };
}

/** A Todoist date as YYYY-MM-DD, or null when it is not one. */
function dateOf(value: string): string | null {
  const day = /^\d{4}-\d{2}-\d{2}(?=$|[T ])/.exec(value.trim())?.[0];
  return day !== undefined && isCalendarDate(day) ? day : null;
}

/** A Todoist CSV's items: the list, then tasks and their notes as the rows come. */
export async function* readTodoist(bytes: AsyncIterable<Buffer>, options: ReadOptions): AsyncGenerator<SourceItem> {
  const listName = baseName(options.fileName) ?? 'Todoist';
  const listRef = `todoist:list:${listName}`;
  let columns: Map<string, number> | null = null;
  let section: string | null = null;
  /** The open parents: each task's indent and ref (null: a task that was skipped). */
  const parents: { indent: number; ref: string | null }[] = [];
  let lastTask: string | null = null;
  let notesOfLast = 0;
  const occurrences = new Map<string, number>();

  for await (const { cells, line } of csvRows(bytes, 'Todoist CSV export')) {
    if (columns === null) {
      columns = new Map(cells.map((name, index) => [name.trim().toUpperCase(), index]));
      if (!columns.has('TYPE') || !columns.has('CONTENT')) {
        throw new UnreadableFile(
          "The file is not a Todoist CSV export: its first row has no TYPE and CONTENT columns (Todoist's Export as a template writes them).",
        );
      }
      yield { kind: 'list', ref: listRef, line: 1, name: listName, color: null, isArchived: false, members: [] };
      continue;
    }
    if (isBlankRow(cells)) continue;
    const cell = (name: string) => {
      const index = columns!.get(name);
      return index === undefined ? '' : (cells[index] ?? '');
    };
    const type = cell('TYPE').trim();
    const content = cell('CONTENT');

    if (type === 'meta') continue;
    if (type === 'section') {
      section = content.trim() || null;
      parents.length = 0;
      lastTask = null;
      continue;
    }
    if (type === 'note') {
      if (lastTask === null) {
        yield { kind: 'problem', line, message: 'A note with no task above it is not imported.' };
      } else if (content.trim() !== '') {
        yield {
          kind: 'comment',
          ref: `${lastTask}/note#${++notesOfLast}`,
          line,
          taskRef: lastTask,
          author: todoistPerson(cell('AUTHOR')),
          body: content,
        };
      }
      continue;
    }
    if (type !== 'task') {
      yield {
        kind: 'problem',
        line,
        message: `A row of type ${quoted(type)} is not a task, section or note; skipped.`,
      };
      continue;
    }

    const indentText = cell('INDENT').trim();
    let indent = indentText === '' ? 1 : Number(indentText);
    if (!Number.isInteger(indent) || indent < 1) {
      yield { kind: 'problem', line, message: `The indent ${quoted(indentText)} is not 1, 2, 3 …; taken as 1.` };
      indent = 1;
    }
    while (parents.length > 0 && parents[parents.length - 1]!.indent >= indent) parents.pop();
    const parentRef = parents[parents.length - 1]?.ref ?? null;

    if (content.trim() === '') {
      yield { kind: 'problem', line, message: `Line ${line} is a task with no content; skipped.` };
      parents.push({ indent, ref: null });
      lastTask = null;
      continue;
    }
    const key = `${section ?? ''}/${content}`;
    const occurrence = (occurrences.get(key) ?? 0) + 1;
    occurrences.set(key, occurrence);
    const ref = `todoist:${key}#${occurrence}`;
    parents.push({ indent, ref });
    lastTask = ref;
    notesOfLast = 0;

    const labels = [...content.matchAll(LABEL)].map((match) => match[2]!);
    const title = labels.length === 0 ? content : content.replace(LABEL, '$1').replace(/\s+/g, ' ').trim() || content;
    const priorityText = cell('PRIORITY').trim();
    const priority = PRIORITY[priorityText];
    if (priority === undefined) {
      yield { kind: 'problem', line, message: `The priority ${quoted(priorityText)} is not 1 to 4; left empty.` };
    }
    const date = cell('DATE').trim();
    const deadline = cell('DEADLINE').trim();
    let dueDate = dateOf(date === '' ? deadline : date);
    if (date !== '' && dueDate === null) {
      yield { kind: 'problem', line, message: `The due date ${quoted(date)} is not a date; left empty.` };
      dueDate = null;
    }
    const responsible = todoistPerson(cell('RESPONSIBLE'));
    yield {
      kind: 'task',
      ref,
      line,
      title,
      description: cell('DESCRIPTION') || null,
      statusName: null,
      completed: false,
      priority: priority ?? null,
      dueDate,
      listRefs: [listRef],
      assignees: responsible ? [responsible] : [],
      labelNames: [...new Set([...(section === null ? [] : [section]), ...labels])],
      parentRef,
    };
  }
  if (columns === null) throw new UnreadableFile('The file is not a Todoist CSV export: it is empty.');
}
