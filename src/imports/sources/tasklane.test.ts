/**
 * The tasklane export's reader: every field of every kind, refs, the lines of problems, and the
 * files it refuses (not gzip, another version, cut short, damaged).
 */
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, test } from 'node:test';
import { createGzip, gzipSync } from 'node:zlib';
import { readTasklane } from './tasklane.js';
import { UnreadableFile, type SourceItem } from './source-items.js';

const TEAM = '6f1c2a3e-0000-4000-8000-000000000001';
const OLIVIA = { id: 'u-olivia', name: 'Olivia', email: 'olivia@example.com' };
const BEN = { id: 'u-ben', name: 'Ben', email: 'ben@example.com' };

/** The bytes in small pieces, so lines and gzip members cross chunks. */
async function* pieces(bytes: Buffer, size = 7): AsyncGenerator<Buffer> {
  for (let start = 0; start < bytes.length; start += size) yield bytes.subarray(start, start + size);
}
const gzipped = (lines: object[]) => gzipSync(lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
async function read(bytes: Buffer): Promise<SourceItem[]> {
  const items: SourceItem[] = [];
  for await (const item of readTasklane(pieces(bytes), { fileName: 'tasklane-export-2026-11-29.jsonl.gz' })) {
    items.push(item);
  }
  return items;
}
const header = (fields: object = {}) => ({
  type: 'tasklane.export',
  version: 1,
  exportedAt: '2026-11-29T06:30:00.000Z',
  scope: 'team',
  team: { id: TEAM, name: 'Acme' },
  exportedBy: OLIVIA,
  ...fields,
});
const task = (fields: object) => ({
  type: 'task',
  id: 7,
  number: 1,
  title: 'Ship it',
  description: 'The **whole** thing',
  priority: 'high',
  dueDate: '2026-12-03',
  parentId: null,
  parent: null,
  isCompleted: false,
  taskStatusId: 1,
  status: { id: 1, name: 'To do', color: '#aabbcc', isCompleted: false },
  assignees: [BEN],
  taskLists: [{ id: 3, name: 'Roadmap' }],
  labels: [{ id: 5, name: 'Bug', color: 'Red' }],
  subtaskCount: 0,
  attachmentCount: 0,
  createdBy: OLIVIA,
  createdAt: '2026-11-01T00:00:00.000Z',
  updatedAt: '2026-11-01T00:00:00.000Z',
  ...fields,
});
/** A whole export: header, members, one of each kind, two activity entries and an attachment. */
const exportLines = (): object[] => [
  header(),
  { type: 'member', ...OLIVIA, role: 'owner' },
  { type: 'member', ...BEN, role: 'member' },
  { type: 'status', id: 1, name: 'To do', color: '#aabbcc', isDefault: true, isCompleted: false, order: 0 },
  { type: 'status', id: 2, name: ' Done ', color: '#0a0', isDefault: false, isCompleted: true, order: 1 },
  { type: 'label', id: 5, name: 'Bug', color: 'Red' },
  {
    type: 'list',
    id: 3,
    name: 'Roadmap',
    color: 'Blue',
    isArchived: true,
    sharedWithTeam: false,
    memberIds: ['u-ben', 'u-olivia'],
  },
  task({}),
  task({
    id: 8,
    number: 2,
    title: 'Write the notes',
    description: null,
    priority: null,
    dueDate: null,
    parentId: 7,
    parent: { id: 7, number: 1, title: 'Ship it' },
    isCompleted: true,
    status: { id: 2, name: 'Done', color: null, isCompleted: true },
    assignees: [],
    labels: [],
  }),
  { type: 'comment', id: 2, taskId: 7, author: OLIVIA, body: 'Soon', createdAt: 'x', updatedAt: 'x' },
  { type: 'activity', id: 11, taskId: 7, actor: OLIVIA, kind: 'task.created', changes: {}, createdAt: 'x' },
  { type: 'activity', id: 12, taskId: 8, actor: OLIVIA, kind: 'task.created', changes: {}, createdAt: 'x' },
  { type: 'attachment', id: 4, taskId: 7, name: 'plan.pdf', size: 3, contentType: 'application/pdf' },
  { type: 'attachmentData', attachmentId: 4, seq: 0, data: 'YWJj' },
  {
    type: 'end',
    counts: {
      member: 2,
      status: 2,
      label: 1,
      list: 1,
      task: 2,
      comment: 1,
      activity: 2,
      attachment: 1,
      attachmentData: 1,
    },
  },
];

async function refusal(bytes: Buffer): Promise<string> {
  const error = await read(bytes).then(
    () => assert.fail('the file was read'),
    (thrown: unknown) => thrown,
  );
  assert.ok(error instanceof UnreadableFile, `an UnreadableFile, not ${String(error)}`);
  return error.message;
}

describe('readTasklane', () => {
  test('maps every kind and field, with refs of the exported team and the lines of the decompressed file', async () => {
    const items = await read(gzipped(exportLines()));
    assert.deepEqual(items, [
      { kind: 'status', ref: `${TEAM}:status:1`, line: 4, name: 'To do', color: '#aabbcc', isCompleted: false },
      { kind: 'status', ref: `${TEAM}:status:2`, line: 5, name: 'Done', color: '#00aa00', isCompleted: true },
      { kind: 'label', ref: `${TEAM}:label:5`, line: 6, name: 'Bug', color: 'Red' },
      {
        kind: 'list',
        ref: `${TEAM}:list:3`,
        line: 7,
        name: 'Roadmap',
        color: 'Blue',
        isArchived: true,
        members: [
          { email: 'ben@example.com', name: 'Ben' },
          { email: 'olivia@example.com', name: 'Olivia' },
        ],
      },
      {
        kind: 'task',
        ref: `${TEAM}:task:7`,
        line: 8,
        title: 'Ship it',
        description: 'The **whole** thing',
        statusName: 'To do',
        completed: false,
        priority: 'high',
        dueDate: '2026-12-03',
        listRefs: [`${TEAM}:list:3`],
        assignees: [{ email: 'ben@example.com', name: 'Ben' }],
        labelNames: ['Bug'],
        parentRef: null,
      },
      {
        kind: 'task',
        ref: `${TEAM}:task:8`,
        line: 9,
        title: 'Write the notes',
        description: null,
        statusName: 'Done',
        completed: true,
        priority: null,
        dueDate: null,
        listRefs: [`${TEAM}:list:3`],
        assignees: [],
        labelNames: [],
        parentRef: `${TEAM}:task:7`,
      },
      {
        kind: 'comment',
        ref: `${TEAM}:comment:2`,
        line: 10,
        taskRef: `${TEAM}:task:7`,
        author: { email: 'olivia@example.com', name: 'Olivia' },
        body: 'Soon',
      },
      {
        kind: 'problem',
        line: 11,
        message: '2 activity entries are not imported: the importing server records its own history.',
      },
      { kind: 'problem', line: 13, message: '1 attachment is not imported by this version.' },
    ]);
  });

  test('the same file read twice gives the same refs', async () => {
    const file = gzipped(exportLines());
    const refs = (items: SourceItem[]) => items.map((item) => ('ref' in item ? item.ref : null));
    assert.deepEqual(refs(await read(file)), refs(await read(file)));
  });

  test('a subtask whose parent the file does not hold (a readable export) is a task of its own, and a problem says so', async () => {
    const lines = exportLines();
    lines[8] = task({ id: 8, parentId: 6, parent: null });
    const items = await read(gzipped(lines));
    const orphan = items.find((item) => item.kind === 'task' && item.ref === `${TEAM}:task:8`);
    assert.equal(orphan?.kind === 'task' && orphan.parentRef, null);
    assert.ok(
      items.some(
        (item) => item.kind === 'problem' && item.line === 9 && /parent task is not in the file/.test(item.message),
      ),
    );
  });

  test('values out of their sets are left empty: a priority, a date, a colour', async () => {
    const lines = exportLines();
    lines[5] = { type: 'label', id: 5, name: 'Bug', color: 'Mauve' };
    lines[7] = task({ priority: 'extreme', dueDate: '2026-02-30' });
    const items = await read(gzipped(lines));
    const label = items.find((item) => item.kind === 'label');
    const first = items.find((item) => item.kind === 'task');
    assert.equal(label?.kind === 'label' && label.color, null);
    assert.equal(first?.kind === 'task' && first.priority, null);
    assert.equal(first?.kind === 'task' && first.dueDate, null);
  });

  test('a file that is not gzip is refused', async () => {
    assert.match(await refusal(Buffer.from('{"type":"tasklane.export","version":1}\n')), /not gzip-compressed/);
    assert.match(await refusal(Buffer.alloc(0)), /not gzip-compressed/);
  });

  test('a gzip file whose first line is not the header is refused', async () => {
    assert.match(await refusal(gzipSync('hello,world\n')), /first line is not a "tasklane.export" header/);
    assert.match(await refusal(gzipSync('')), /empty|first line/);
  });

  test('a version other than 1 is refused, naming both', async () => {
    const lines = exportLines();
    lines[0] = header({ version: 2 });
    assert.match(await refusal(gzipped(lines)), /version 2, which this server does not read: it reads version 1/);
  });

  test('a file without its end line was cut short, and is refused', async () => {
    assert.match(await refusal(gzipped(exportLines().slice(0, -1))), /was cut short/);
  });

  test('a gzip stream cut in the middle was cut short too', async () => {
    const whole = gzipped(exportLines());
    assert.match(await refusal(whole.subarray(0, whole.length - 20)), /cut short/);
  });

  test('a line that is not JSON, or counts that differ from the end line, are a damaged file', async () => {
    const text = exportLines().map((line) => JSON.stringify(line));
    text[5] = '{"type":"label",';
    assert.match(await refusal(gzipSync(`${text.join('\n')}\n`)), /line 6 is not JSON/);
    const lines = exportLines();
    lines.splice(9, 1); // the comment, which the end line still counts
    assert.match(await refusal(gzipped(lines)), /counts 1 comment lines, but the file has 0/);
  });

  test('the file is read as items are taken: the first task comes before most of the bytes are read', async () => {
    const lines = [
      header(),
      ...Array.from({ length: 5000 }, (_, i) => task({ id: i + 1, description: `${i}`.repeat(300) })),
    ];
    const file = gzipped(lines);
    let read = 0;
    async function* counted(): AsyncGenerator<Buffer> {
      for await (const piece of pieces(file, 1024)) {
        read += piece.length;
        yield piece;
      }
    }
    for await (const item of readTasklane(counted(), { fileName: null })) {
      assert.equal(item.kind, 'task');
      break;
    }
    assert.ok(read < file.length / 2, `${read} of ${file.length} bytes read for the first task`);
  });

  test('a big export (20,000 tasks) is read as a stream, all of it', async () => {
    const TASKS = 20_000;
    async function* lines(): AsyncGenerator<string> {
      yield `${JSON.stringify(header())}\n`;
      yield `${JSON.stringify({ type: 'status', id: 1, name: 'To do', color: null, isCompleted: false })}\n`;
      for (let from = 1; from <= TASKS; from += 500) {
        let text = '';
        for (let id = from; id < from + 500; id++) {
          text += `${JSON.stringify(task({ id, number: id, title: `Task ${id}`, description: 'x'.repeat(200) }))}\n`;
        }
        yield text;
      }
      const counts = { member: 0, status: 1, label: 0, list: 0, task: TASKS, comment: 0, activity: 0, attachment: 0 };
      yield `${JSON.stringify({ type: 'end', counts: { ...counts, attachmentData: 0 } })}\n`;
    }
    const bytes = Readable.from(lines()).pipe(createGzip());
    let tasks = 0;
    let lastLine = 0;
    for await (const item of readTasklane(bytes, { fileName: null })) {
      if (item.kind === 'task') {
        tasks++;
        lastLine = item.line;
      }
    }
    assert.equal(tasks, TASKS);
    assert.equal(lastLine, TASKS + 2);
  });
});
