/**
 * The spreadsheet CSV reader: columns found by name or mapping, every field's values and their
 * problems, lists before tasks, refs, quoting and a byte-order mark, and the files it refuses.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MAX_ROWS, readCsv } from './csv.js';
import { UnreadableFile, type ReadOptions, type SourceItem, type SourceTask } from './source-items.js';

async function* pieces(bytes: Buffer, size = 13): AsyncGenerator<Buffer> {
  for (let start = 0; start < bytes.length; start += size) yield bytes.subarray(start, start + size);
}
async function read(text: string, options: Partial<ReadOptions> = {}): Promise<SourceItem[]> {
  const items: SourceItem[] = [];
  for await (const item of readCsv(pieces(Buffer.from(text)), { fileName: 'tasks.csv', ...options })) items.push(item);
  return items;
}
async function refusal(text: string, options: Partial<ReadOptions> = {}): Promise<string> {
  const error = await read(text, options).then(
    () => assert.fail('the file was read'),
    (thrown: unknown) => thrown,
  );
  assert.ok(error instanceof UnreadableFile, `an UnreadableFile, not ${String(error)}`);
  return error.message;
}
const tasks = (items: SourceItem[]) => items.filter((item): item is SourceTask => item.kind === 'task');
const problems = (items: SourceItem[]) => items.flatMap((item) => (item.kind === 'problem' ? [item] : []));

describe('readCsv', () => {
  test('maps every field, lists before tasks, with the lines of the rows', async () => {
    const text = [
      'Title,Description,Status,Completed,Priority,Due date,Assignees,Labels,List,Ref',
      'Ship it,"The whole thing, at last",In review,yes,High,2026-12-03,"ana@example.com; ben@example.com",Bug;Docs,Roadmap,T-1',
      'Plan,,,,,,,,,',
    ].join('\r\n');
    const items = await read(text);
    assert.deepEqual(items, [
      { kind: 'list', ref: 'csv:list:roadmap', line: 2, name: 'Roadmap', color: null, isArchived: false, members: [] },
      { kind: 'list', ref: 'csv:list:tasks', line: 3, name: 'tasks', color: null, isArchived: false, members: [] },
      {
        kind: 'task',
        ref: 'csv:ref:T-1',
        line: 2,
        title: 'Ship it',
        description: 'The whole thing, at last',
        statusName: 'In review',
        completed: true,
        priority: 'high',
        dueDate: '2026-12-03',
        listRefs: ['csv:list:roadmap'],
        assignees: [
          { email: 'ana@example.com', name: null },
          { email: 'ben@example.com', name: null },
        ],
        labelNames: ['Bug', 'Docs'],
        parentRef: null,
      },
      {
        kind: 'task',
        ref: 'csv:plan#1',
        line: 3,
        title: 'Plan',
        description: null,
        statusName: null,
        completed: false,
        priority: null,
        dueDate: null,
        listRefs: ['csv:list:tasks'],
        assignees: [],
        labelNames: [],
        parentRef: null,
      },
    ]);
  });

  test('a mapping names the columns; headers match field names whatever their case, spaces and underscores', async () => {
    const mapped = await read('Name,Due,DUE_DATE\nA,2026-01-02,2026-05-05\n', {
      columns: { title: 'name', dueDate: 'Due' },
    });
    assert.deepEqual(
      tasks(mapped).map((task) => [task.title, task.dueDate]),
      [['A', '2026-01-02']],
    );
    const named = await read('TITLE,due_date,Assignee emails,Assignees,Id\nA,2026-05-05,a@x.org,Ana,42\n');
    assert.deepEqual(
      tasks(named).map((task) => [task.title, task.dueDate, task.assignees, task.ref]),
      [['A', '2026-05-05', [{ email: 'a@x.org', name: null }], 'csv:ref:42']],
    );
  });

  test("tasklane's own CSV download reads back", async () => {
    const text =
      '\ufeffNumber,Title,Status,Completed,Priority,Due date,Assignees,Assignee emails,Lists,Labels,Parent task id,Created,Updated,Id\r\n' +
      '1,Ship it,Done,yes,urgent,2026-12-03,Ben,ben@example.com,Roadmap,Bug,,2026-11-01T00:00:00.000Z,2026-11-01T00:00:00.000Z,7\r\n';
    const [task] = tasks(await read(text));
    assert.deepEqual(
      [task?.ref, task?.statusName, task?.completed, task?.priority, task?.assignees],
      ['csv:ref:7', 'Done', true, 'urgent', [{ email: 'ben@example.com', name: null }]],
    );
  });

  test("a cell protected from running as a formula ('=, '-, '@ …) reads back without its quote", async () => {
    const items = await read("Title,Labels\n'=SUM(A1),'@home\n'-1 bug,it's\n");
    assert.deepEqual(
      tasks(items).map((task) => [task.title, task.labelNames]),
      [
        ['=SUM(A1)', ['@home']],
        ['-1 bug', ["it's"]],
      ],
    );
  });

  test('values that do not fit are problems of their line, and the field is left empty', async () => {
    const text = [
      'title,completed,priority,dueDate,assignees',
      'A,maybe,critical,3/12/2026,Ana Lopez',
      'B,X,LOW,2026-12-03T23:30:00-05:00,',
      'C,,,2026-02-30,',
    ].join('\n');
    const items = await read(text);
    assert.deepEqual(problems(items), [
      { kind: 'problem', line: 2, message: "Completed is 'maybe', not yes or no; taken as not completed." },
      { kind: 'problem', line: 2, message: "The priority 'critical' is not low, medium, high or urgent; left empty." },
      { kind: 'problem', line: 2, message: "The due date '3/12/2026' is not a date written YYYY-MM-DD; left empty." },
      { kind: 'problem', line: 4, message: "The due date '2026-02-30' is not a date written YYYY-MM-DD; left empty." },
    ]);
    assert.deepEqual(
      tasks(items).map((task) => [task.completed, task.priority, task.dueDate, task.assignees]),
      [
        [false, null, null, [{ email: null, name: 'Ana Lopez' }]],
        [true, 'low', '2026-12-03', []],
        [false, null, null, []],
      ],
    );
  });

  test('a row without a title is a problem and no task; blank rows are skipped silently', async () => {
    const items = await read('Title,Status\n,Doing\n,,\n\nReal,\n');
    assert.deepEqual(problems(items), [{ kind: 'problem', line: 2, message: 'Line 2 has no title; skipped.' }]);
    assert.deepEqual(
      tasks(items).map((task) => [task.title, task.line]),
      [['Real', 5]],
    );
  });

  test('refs: the ref column, else the title and its occurrence; a repeated ref is skipped', async () => {
    const items = await read('Title,Ref\nSame,\nsame,\nOther,R1\nAgain,R1\n');
    assert.deepEqual(
      tasks(items).map((task) => task.ref),
      ['csv:same#1', 'csv:same#2', 'csv:ref:R1'],
    );
    assert.match(problems(items)[0]!.message, /same as line 4's; this row is skipped/);
    const again = await read('Title,Ref\nSame,\nsame,\nOther,R1\nAgain,R1\n');
    assert.deepEqual(
      tasks(again).map((task) => task.ref),
      tasks(items).map((task) => task.ref),
    );
  });

  test('a BOM, quoted commas, quotes and line breaks, and Excel CRLF lines are read as written', async () => {
    const text = '\ufeffTitle,Description\r\n"Fix, then ship","Line one\r\nLine ""two"""\r\nNext,x\r\n';
    const items = await read(text);
    assert.deepEqual(
      tasks(items).map((task) => [task.line, task.title, task.description]),
      [
        [2, 'Fix, then ship', 'Line one\r\nLine "two"'],
        [4, 'Next', 'x'],
      ],
    );
  });

  test('without a file name, rows without a list go to "Imported"', async () => {
    const items = await read('Title\nA\n', { fileName: null });
    assert.deepEqual(
      items.flatMap((item) => (item.kind === 'list' ? [item.name] : [])),
      ['Imported'],
    );
  });

  test('no title column, a mapping to a missing header, an unknown mapped field and an empty file are refused', async () => {
    assert.match(await refusal('Name,Due\nA,2026-01-01\n'), /no title column/);
    assert.match(await refusal('Name\nA\n', { columns: { title: 'Title' } }), /"Title", which the file's header lacks/);
    assert.match(
      await refusal('Title\nA\n', { columns: { title: 'Title', owner: 'Who' } }),
      /"owner", which is not a field/,
    );
    assert.match(await refusal(''), /empty/);
    assert.match(await refusal('Title\n"open\n'), /not a readable CSV file/);
  });

  test(`more than ${MAX_ROWS.toLocaleString('en-US')} rows are refused: split the file`, async () => {
    const text = `Title\n${'t\n'.repeat(MAX_ROWS + 1)}`;
    assert.match(await refusal(text), /split the file/);
  });
});
