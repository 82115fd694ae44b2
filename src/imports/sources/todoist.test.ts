/**
 * The Todoist CSV reader: the file as one list, sections as labels, @labels, priorities, indents as
 * subtasks, notes as comments, dates and their problems, refs, and refusals.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readTodoist, todoistPerson } from './todoist.js';
import { UnreadableFile, type ReadOptions, type SourceItem, type SourceTask } from './source-items.js';

async function* pieces(bytes: Buffer, size = 11): AsyncGenerator<Buffer> {
  for (let start = 0; start < bytes.length; start += size) yield bytes.subarray(start, start + size);
}
async function read(text: string, options: ReadOptions = { fileName: 'Plant works.csv' }): Promise<SourceItem[]> {
  const items: SourceItem[] = [];
  for await (const item of readTodoist(pieces(Buffer.from(text)), options)) items.push(item);
  return items;
}
const tasks = (items: SourceItem[]) => items.filter((item): item is SourceTask => item.kind === 'task');

const HEADER =
  'TYPE,CONTENT,DESCRIPTION,PRIORITY,INDENT,AUTHOR,RESPONSIBLE,DATE,DATE_LANG,TIMEZONE,DURATION,DURATION_UNIT,DEADLINE,DEADLINE_LANG';
/** A project as Todoist's "Export as a template" writes it: CRLF lines, quoted where needed. */
const EXPORT = [
  HEADER,
  'meta,view_style=board,,,,,,,,,,,,',
  ',,,,,,,,,,,,,',
  'task,Inbox chore,,4,1,Alice Smith (12345678),,,,,,,,',
  ',,,,,,,,,,,,,',
  'section,Doing,,,,,,,,,,,,',
  'task,Order valves @shop @urgent-ish,"Two of them, DN50\nand gaskets",1,1,Alice Smith (12345678),Bob (87654321),2026-12-03,en,Europe/Berlin,,,,',
  'task,Measure,,2,2,Alice Smith (12345678),,every day,en,Europe/Berlin,,,,',
  'task,Deep,,3,3,,,,,,,,,',
  'note,"Call the vendor, first",,,,Bob (87654321),,2026-11-02T10:00:00Z,,,,,,',
  'task,Check the flange,,,1,,,Dec 3,en,UTC,,,2026-12-20,en',
  'task,Check the flange,,4,1,,,,,,,,2026-12-21,en',
].join('\r\n');

describe('readTodoist', () => {
  test('maps the file, sections, tasks, subtasks and notes', async () => {
    const items = await read(EXPORT);
    assert.deepEqual(items[0], {
      kind: 'list',
      ref: 'todoist:list:Plant works',
      line: 1,
      name: 'Plant works',
      color: null,
      isArchived: false,
      members: [],
    });
    const base = { kind: 'task', description: null, statusName: null, completed: false, priority: null };
    const listRefs = ['todoist:list:Plant works'];
    assert.deepEqual(items.slice(1), [
      {
        ...base,
        ref: 'todoist:/Inbox chore#1',
        line: 4,
        title: 'Inbox chore',
        dueDate: null,
        listRefs,
        assignees: [],
        labelNames: [],
        parentRef: null,
      },
      {
        ...base,
        ref: 'todoist:Doing/Order valves @shop @urgent-ish#1',
        line: 7,
        title: 'Order valves',
        description: 'Two of them, DN50\nand gaskets',
        priority: 'urgent',
        dueDate: '2026-12-03',
        listRefs,
        assignees: [{ email: null, name: 'Bob' }],
        labelNames: ['Doing', 'shop', 'urgent-ish'],
        parentRef: null,
      },
      { kind: 'problem', line: 9, message: "The due date 'every day' is not a date; left empty." },
      {
        ...base,
        ref: 'todoist:Doing/Measure#1',
        line: 9,
        title: 'Measure',
        priority: 'high',
        dueDate: null,
        listRefs,
        assignees: [],
        labelNames: ['Doing'],
        parentRef: 'todoist:Doing/Order valves @shop @urgent-ish#1',
      },
      {
        ...base,
        ref: 'todoist:Doing/Deep#1',
        line: 10,
        title: 'Deep',
        priority: 'medium',
        dueDate: null,
        listRefs,
        assignees: [],
        labelNames: ['Doing'],
        parentRef: 'todoist:Doing/Measure#1',
      },
      {
        kind: 'comment',
        ref: 'todoist:Doing/Deep#1/note#1',
        line: 11,
        taskRef: 'todoist:Doing/Deep#1',
        author: { email: null, name: 'Bob' },
        body: 'Call the vendor, first',
      },
      { kind: 'problem', line: 12, message: "The due date 'Dec 3' is not a date; left empty." },
      {
        ...base,
        ref: 'todoist:Doing/Check the flange#1',
        line: 12,
        title: 'Check the flange',
        dueDate: null,
        listRefs,
        assignees: [],
        labelNames: ['Doing'],
        parentRef: null,
      },
      {
        ...base,
        ref: 'todoist:Doing/Check the flange#2',
        line: 13,
        title: 'Check the flange',
        dueDate: '2026-12-21',
        listRefs,
        assignees: [],
        labelNames: ['Doing'],
        parentRef: null,
      },
    ]);
  });

  test('the same file read twice gives the same refs', async () => {
    const refs = (items: SourceItem[]) => items.map((item) => ('ref' in item ? item.ref : null));
    assert.deepEqual(refs(await read(EXPORT)), refs(await read(EXPORT)));
  });

  test('the list is named after the file without its folders and extension, or Todoist', async () => {
    const name = async (fileName: string | null) => {
      const [list] = await read(`${HEADER}\n`, { fileName });
      return list?.kind === 'list' ? list.name : undefined;
    };
    assert.equal(await name('C:\\Users\\me\\Q3 plan.csv'), 'Q3 plan');
    assert.equal(await name('/tmp/export.v2.csv'), 'export.v2');
    assert.equal(await name(null), 'Todoist');
    assert.equal(await name('.csv'), 'Todoist');
  });

  test('a new section ends the subtasks of the one before', async () => {
    const items = await read(`TYPE,CONTENT,INDENT\ntask,A,1\nsection,Next\ntask,B,2\n`);
    assert.deepEqual(
      tasks(items).map((task) => [task.title, task.parentRef]),
      [
        ['A', null],
        ['B', null],
      ],
    );
  });

  test('priorities outside 1 to 4, bad indents, unknown types, orphan notes and empty tasks are problems with their lines', async () => {
    const items = await read(
      [
        'TYPE,CONTENT,PRIORITY,INDENT',
        'note,Nobody above',
        'task,A,9,x',
        'task,,1,1',
        'note,On nothing',
        'project,X',
      ].join('\n'),
    );
    assert.deepEqual(
      items.filter((item) => item.kind === 'problem'),
      [
        { kind: 'problem', line: 2, message: 'A note with no task above it is not imported.' },
        { kind: 'problem', line: 3, message: "The indent 'x' is not 1, 2, 3 …; taken as 1." },
        { kind: 'problem', line: 3, message: "The priority '9' is not 1 to 4; left empty." },
        { kind: 'problem', line: 4, message: 'Line 4 is a task with no content; skipped.' },
        { kind: 'problem', line: 5, message: 'A note with no task above it is not imported.' },
        { kind: 'problem', line: 6, message: "A row of type 'project' is not a task, section or note; skipped." },
      ],
    );
  });

  test('a byte-order mark and quoted line breaks keep the line numbers right', async () => {
    const items = await read(`\ufeffTYPE,CONTENT,DESCRIPTION\ntask,"Two\nlines",x\ntask,After,"a ""quote"""\n`);
    assert.deepEqual(
      tasks(items).map((task) => [task.line, task.title, task.description]),
      [
        [2, 'Two\nlines', 'x'],
        [4, 'After', 'a "quote"'],
      ],
    );
  });

  test('a person is their name without the Todoist id', () => {
    assert.deepEqual(todoistPerson('Alice Smith (12345678)'), { email: null, name: 'Alice Smith' });
    assert.deepEqual(todoistPerson('alice'), { email: null, name: 'alice' });
    assert.equal(todoistPerson(' '), null);
  });

  test('a file without TYPE and CONTENT columns, an empty file and broken quoting are refused', async () => {
    const refusal = async (text: string) => {
      const error = await read(text).then(
        () => assert.fail('the file was read'),
        (thrown: unknown) => thrown,
      );
      assert.ok(error instanceof UnreadableFile, `an UnreadableFile, not ${String(error)}`);
      return error.message;
    };
    assert.match(await refusal('Title,Due\nx,y\n'), /no TYPE and CONTENT columns/);
    assert.match(await refusal(''), /empty/);
    assert.match(await refusal('TYPE,CONTENT\ntask,"never closed\n'), /not a readable Todoist CSV export/);
  });
});
