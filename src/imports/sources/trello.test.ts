/**
 * The Trello board export's reader: the board as a list, columns as statuses, labels and their
 * colours, cards, checklist items as subtasks, comments, the order of kinds, and refusals.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readTrello, trelloColor } from './trello.js';
import { UnreadableFile, type SourceItem } from './source-items.js';

async function* pieces(bytes: Buffer, size = 64): AsyncGenerator<Buffer> {
  for (let start = 0; start < bytes.length; start += size) yield bytes.subarray(start, start + size);
}
async function read(file: Buffer | object): Promise<SourceItem[]> {
  const bytes = Buffer.isBuffer(file) ? file : Buffer.from(JSON.stringify(file, null, 2));
  const items: SourceItem[] = [];
  for await (const item of readTrello(pieces(bytes), { fileName: 'board.json' })) items.push(item);
  return items;
}
async function refusal(file: Buffer): Promise<string> {
  const error = await read(file).then(
    () => assert.fail('the file was read'),
    (thrown: unknown) => thrown,
  );
  assert.ok(error instanceof UnreadableFile, `an UnreadableFile, not ${String(error)}`);
  return error.message;
}

const card = (fields: object) => ({
  id: 'c1',
  name: 'Order valves',
  desc: 'Two of them, DN50',
  idList: 'l-todo',
  closed: false,
  due: '2026-12-03T23:30:00.000Z',
  dueComplete: false,
  idLabels: ['lb-green', 'lb-plain'],
  idMembers: ['m-alice'],
  idChecklists: ['ck1'],
  pos: 16384,
  ...fields,
});
/** A board as Trello's "Export as JSON" writes it (the fields read, and a few that are not). */
const board = () => ({
  id: 'b1',
  name: ' Plant works ',
  desc: 'The plant',
  closed: false,
  url: 'https://trello.com/b/qBtTwPDN/plant-works',
  prefs: { background: 'blue' },
  lists: [
    { id: 'l-todo', name: 'To Do', closed: false, pos: 1 },
    { id: 'l-done', name: 'Done ✅', closed: false, pos: 2 },
    { id: 'l-todo2', name: 'to do', closed: true, pos: 3 },
  ],
  labels: [
    { id: 'lb-green', idBoard: 'b1', name: 'Urgent', color: 'green_dark' },
    { id: 'lb-plain', idBoard: 'b1', name: '', color: 'sky' },
    { id: 'lb-none', idBoard: 'b1', name: '', color: null },
    { id: 'lb-black', idBoard: 'b1', name: 'Blocked', color: 'black' },
  ],
  members: [
    { id: 'm-alice', fullName: 'Alice Smith', username: 'alice' },
    { id: 'm-bob', fullName: '', username: 'bob' },
  ],
  cards: [
    card({}),
    card({
      id: 'c2',
      name: 'Check the flange',
      desc: '',
      idList: 'l-done',
      due: null,
      idLabels: [],
      idMembers: ['m-bob', 'm-gone'],
      idChecklists: [],
    }),
    card({ id: 'c3', name: 'Old idea', closed: true }),
    card({ id: 'c4', name: 'Moved to archive column', idList: 'l-todo2', due: null, dueComplete: true }),
  ],
  checklists: [
    {
      id: 'ck1',
      idCard: 'c1',
      name: 'Steps',
      checkItems: [
        { id: 'i1', name: 'Measure', state: 'complete', pos: 1 },
        { id: 'i2', name: 'Buy', state: 'incomplete', pos: 2 },
      ],
    },
    { id: 'ck3', idCard: 'c3', name: 'Of the archived card', checkItems: [{ id: 'i3', name: 'x', state: 'complete' }] },
  ],
  actions: [
    {
      id: 'a3',
      type: 'commentCard',
      date: '2026-11-02T10:00:00.000Z',
      data: { text: 'Ordered.', card: { id: 'c1' } },
      memberCreator: { fullName: 'Alice Smith', username: 'alice' },
    },
    { id: 'a2', type: 'updateCard', date: '2026-11-01T12:00:00.000Z', data: { card: { id: 'c1' } } },
    {
      id: 'a1',
      type: 'commentCard',
      date: '2026-11-01T10:00:00.000Z',
      data: { text: 'Which size?', card: { id: 'c1' } },
      memberCreator: { fullName: '', username: 'bob' },
    },
    {
      id: 'a0',
      type: 'commentCard',
      date: '2026-10-01T10:00:00.000Z',
      data: { text: 'On the archived card', card: { id: 'c3' } },
      memberCreator: { fullName: 'Alice Smith', username: 'alice' },
    },
  ],
});

describe('readTrello', () => {
  test('maps the board, columns, labels, cards, checklist items and comments, each kind before the next', async () => {
    const items = await read(board());
    assert.deepEqual(items, [
      { kind: 'status', ref: 'trello:list:l-todo', line: 1, name: 'To Do', color: null, isCompleted: false },
      { kind: 'status', ref: 'trello:list:l-done', line: 2, name: 'Done ✅', color: null, isCompleted: true },
      { kind: 'label', ref: 'trello:label:lb-green', line: 1, name: 'Urgent', color: 'Green' },
      { kind: 'label', ref: 'trello:label:lb-plain', line: 2, name: 'Sky', color: 'Sky' },
      { kind: 'label', ref: 'trello:label:lb-none', line: 3, name: 'Unnamed label', color: null },
      { kind: 'label', ref: 'trello:label:lb-black', line: 4, name: 'Blocked', color: 'Gray' },
      {
        kind: 'list',
        ref: 'trello:board:b1',
        line: 1,
        name: 'Plant works',
        color: null,
        isArchived: false,
        members: [],
      },
      {
        kind: 'task',
        ref: 'trello:card:c1',
        line: 1,
        title: 'Order valves',
        description: 'Two of them, DN50',
        statusName: 'To Do',
        completed: false,
        priority: null,
        dueDate: '2026-12-03',
        listRefs: ['trello:board:b1'],
        assignees: [{ email: null, name: 'Alice Smith' }],
        labelNames: ['Urgent', 'Sky'],
        parentRef: null,
      },
      {
        kind: 'task',
        ref: 'trello:card:c2',
        line: 2,
        title: 'Check the flange',
        description: null,
        statusName: 'Done ✅',
        completed: true,
        priority: null,
        dueDate: null,
        listRefs: ['trello:board:b1'],
        assignees: [{ email: null, name: 'bob' }],
        labelNames: [],
        parentRef: null,
      },
      { kind: 'problem', line: 3, message: "The archived card 'Old idea' is not imported." },
      {
        kind: 'task',
        ref: 'trello:card:c4',
        line: 4,
        title: 'Moved to archive column',
        description: 'Two of them, DN50',
        statusName: 'To Do',
        completed: true,
        priority: null,
        dueDate: null,
        listRefs: ['trello:board:b1'],
        assignees: [{ email: null, name: 'Alice Smith' }],
        labelNames: ['Urgent', 'Sky'],
        parentRef: null,
      },
      {
        kind: 'task',
        ref: 'trello:checkItem:i1',
        line: 1,
        title: 'Measure',
        description: null,
        statusName: null,
        completed: true,
        priority: null,
        dueDate: null,
        listRefs: ['trello:board:b1'],
        assignees: [],
        labelNames: [],
        parentRef: 'trello:card:c1',
      },
      {
        kind: 'task',
        ref: 'trello:checkItem:i2',
        line: 1,
        title: 'Buy',
        description: null,
        statusName: null,
        completed: false,
        priority: null,
        dueDate: null,
        listRefs: ['trello:board:b1'],
        assignees: [],
        labelNames: [],
        parentRef: 'trello:card:c1',
      },
      {
        kind: 'comment',
        ref: 'trello:comment:a1',
        line: 3,
        taskRef: 'trello:card:c1',
        author: { email: null, name: 'bob' },
        body: 'Which size?',
      },
      {
        kind: 'comment',
        ref: 'trello:comment:a3',
        line: 1,
        taskRef: 'trello:card:c1',
        author: { email: null, name: 'Alice Smith' },
        body: 'Ordered.',
      },
    ]);
  });

  test('trello colours map to the nearest list colour, shades to their base', () => {
    assert.equal(trelloColor('green'), 'Green');
    assert.equal(trelloColor('sky_light'), 'Sky');
    assert.equal(trelloColor('pink_dark'), 'Pink');
    assert.equal(trelloColor('black'), 'Gray');
    assert.equal(trelloColor('lime'), 'Lime');
    assert.equal(trelloColor(null), null);
    assert.equal(trelloColor('chartreuse'), null);
  });

  test('a column is a completed status when named Done, Complete, Completed or Finished, in any case', async () => {
    const names = ['DONE', 'complete', 'Completed', 'finished', 'Doing', 'Not done', 'Donegal'];
    const items = await read({ ...board(), lists: names.map((name, i) => ({ id: `l${i}`, name, closed: false })) });
    const completed = items.flatMap((item) => (item.kind === 'status' && item.isCompleted ? [item.name] : []));
    assert.deepEqual(completed, ['DONE', 'complete', 'Completed', 'finished']);
  });

  test('the same file read twice gives the same refs', async () => {
    const refs = (items: SourceItem[]) => items.map((item) => ('ref' in item ? item.ref : null));
    assert.deepEqual(refs(await read(board())), refs(await read(board())));
  });

  test('an archived board is an archived list; a nameless board and card get a fallback and a problem', async () => {
    const items = await read({ ...board(), name: '', closed: true, cards: [card({ name: '  ' })] });
    const list = items.find((item) => item.kind === 'list');
    assert.equal(list?.kind === 'list' && list.name, 'Trello board');
    assert.equal(list?.kind === 'list' && list.isArchived, true);
    assert.ok(items.some((item) => item.kind === 'problem' && item.line === 1 && /no name/.test(item.message)));
    assert.ok(!items.some((item) => item.kind === 'task'), 'nor its checklist items');
  });

  test('an export holding 1,000 actions says older comments may be missing', async () => {
    const actions = Array.from({ length: 1000 }, (_, i) => ({ id: `a${i}`, type: 'updateCard', data: {} }));
    const items = await read({ ...board(), actions });
    assert.match((items.at(-1) as { message: string }).message, /latest 1,000 actions/);
  });

  test('a file that is not JSON, or JSON without lists and cards, is refused', async () => {
    assert.match(await refusal(Buffer.from('TYPE,CONTENT\ntask,x\n')), /not JSON/);
    assert.match(await refusal(Buffer.from('[1,2,3]')), /no lists and cards/);
    assert.match(await refusal(Buffer.from('{"name":"x","lists":{}}')), /no lists and cards/);
  });

  test('fields of the wrong type are taken as missing, never a crash', async () => {
    const items = await read({
      id: 5,
      name: ['x'],
      lists: [null, 3, { id: 'l', name: 7 }],
      labels: 'none',
      cards: [{ id: 'c', name: 'Only a name', idLabels: 'x', idMembers: [null], due: 'soon' }],
      checklists: [{ idCard: 'c', checkItems: [{ name: 'Item', state: 'complete' }, 'x'] }],
      actions: [{ type: 'commentCard', data: { text: 'Hi', card: { id: 'c' } } }],
    });
    assert.deepEqual(
      items.map((item) => item.kind),
      ['status', 'list', 'problem', 'task', 'task', 'comment'],
    );
    assert.deepEqual(items[2], { kind: 'problem', line: 1, message: "The due date 'soon' is not a date; left empty." });
  });
});
