/**
 * Reads a Trello board's JSON export (the board menu's "Print, export and share → Export as
 * JSON"): one JSON document, read whole (it is one value; refused over 100 MiB).
 *
 * The mapping:
 * - the board → one list (`trello:board:<id>`), archived when the board is closed, no members
 *   (Trello's export has no emails to match people by);
 * - each Trello list (a column) → a status of that name (`trello:list:<id>`), archived columns
 *   too (their cards still point at them); a status is completed when its column is named like
 *   Done, Complete(d) or Finished. Two columns of the same name are one status (the first's ref);
 * - each label → a label, its Trello colour the nearest of LIST_COLORS (black → Gray, the _dark
 *   and _light shades as their base); a label without a name is named after its colour ("Green");
 * - each card → a task of the board's list, in its column's status, completed when its due date is
 *   marked complete or its column is a completed one; due = the date of `due` in UTC; members →
 *   assignees by name only; an archived (closed) card is not imported (a problem says so), nor
 *   its checklists and comments;
 * - each checklist item → a subtask of its card (`trello:checkItem:<id>`), completed when
 *   checked (the checklists' own names are not kept);
 * - each `commentCard` action → a comment, oldest first (Trello lists actions newest first).
 *
 * `line` is an object's 1-based position in its array of the file (a checklist item's: its
 * checklist's). Items go out by kind: statuses, labels, the list, cards, checklist items, comments.
 */
import type { ListColor } from '../../contract/enums.js';
import { quoted, wholeFile } from './read-helpers.js';
import {
  UnreadableFile,
  type ReadOptions,
  type SourceComment,
  type SourceItem,
  type SourceLabel,
  type SourcePerson,
  type SourceProblem,
  type SourceStatus,
  type SourceTask,
} from './source-items.js';

const MAX_BYTES = 100 * 1024 * 1024;
/** Trello's JSON export holds at most this many of the board's latest actions. */
const EXPORTED_ACTIONS = 1000;

const COLORS: Record<string, ListColor> = {
  green: 'Green',
  yellow: 'Yellow',
  orange: 'Orange',
  red: 'Red',
  purple: 'Purple',
  blue: 'Blue',
  sky: 'Sky',
  lime: 'Lime',
  pink: 'Pink',
  black: 'Gray',
};
const DONE_COLUMN = /^(done|complete|completed|finished)\b/i;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const objects = (value: unknown): Json[] => (Array.isArray(value) ? value.filter(isObject) : []);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const ids = (value: unknown): string[] => (Array.isArray(value) ? value.filter((id) => typeof id === 'string') : []);

/** A Trello colour as one of LIST_COLORS, or null (no colour, or one Trello adds later). */
export function trelloColor(color: unknown): ListColor | null {
  if (typeof color !== 'string') return null;
  return COLORS[color.replace(/_(dark|light)$/, '')] ?? null;
}

/** The document, refused unless it is JSON with a board's lists and cards. */
async function board(bytes: AsyncIterable<Buffer>): Promise<Json> {
  const file = await wholeFile(
    bytes,
    MAX_BYTES,
    'The Trello export is larger than 100 MiB, more than an import reads: export fewer cards (archive old ones first).',
  );
  let value: unknown;
  try {
    value = JSON.parse(file.toString('utf8'));
  } catch {
    throw new UnreadableFile(
      "The file is not a Trello board export: it is not JSON (Trello's Export as JSON writes it).",
    );
  }
  if (!isObject(value) || !Array.isArray(value.lists) || !Array.isArray(value.cards)) {
    throw new UnreadableFile(
      "The file is not a Trello board export: it has no lists and cards (Trello's board menu, Export as JSON, writes one).",
    );
  }
  return value;
}

/** A Trello board export's items. */
export async function* readTrello(bytes: AsyncIterable<Buffer>, _options: ReadOptions): AsyncGenerator<SourceItem> {
  const doc = await board(bytes);
  const boardRef = `trello:board:${text(doc.id)}`;

  // Columns → statuses, one per name.
  const statuses = new Map<string, SourceStatus>();
  const columnStatus = new Map<string, SourceStatus>();
  objects(doc.lists).forEach((column, index) => {
    const name = text(column.name).trim() || 'Untitled';
    const key = name.toLowerCase();
    let status = statuses.get(key);
    if (!status) {
      status = {
        kind: 'status',
        ref: `trello:list:${text(column.id)}`,
        line: index + 1,
        name,
        color: null,
        isCompleted: DONE_COLUMN.test(name),
      };
      statuses.set(key, status);
    }
    columnStatus.set(text(column.id), status);
  });
  yield* statuses.values();

  // Labels, one per name.
  const labels = new Map<string, SourceLabel>();
  const labelName = new Map<string, string>();
  objects(doc.labels).forEach((label, index) => {
    const color = trelloColor(label.color);
    const name = text(label.name).trim() || color || 'Unnamed label';
    const key = name.toLowerCase();
    if (!labels.has(key)) {
      labels.set(key, { kind: 'label', ref: `trello:label:${text(label.id)}`, line: index + 1, name, color });
    }
    labelName.set(text(label.id), labels.get(key)!.name);
  });
  yield* labels.values();

  yield {
    kind: 'list',
    ref: boardRef,
    line: 1,
    name: text(doc.name).trim() || 'Trello board',
    color: null,
    isArchived: doc.closed === true,
    members: [],
  };

  const people = new Map<string, SourcePerson>();
  for (const member of objects(doc.members)) {
    people.set(text(member.id), { email: null, name: text(member.fullName) || text(member.username) || null });
  }

  const cards = new Set<string>();
  for (const [index, card] of objects(doc.cards).entries()) yield* cardItems(card, index + 1);

  function* cardItems(card: Json, line: number): Generator<SourceTask | SourceProblem> {
    const title = text(card.name);
    if (card.closed === true) {
      yield { kind: 'problem', line, message: `The archived card ${quoted(title)} is not imported.` };
      return;
    }
    if (title.trim() === '') {
      yield { kind: 'problem', line, message: `Card ${line} has no name; skipped.` };
      return;
    }
    const status = columnStatus.get(text(card.idList)) ?? null;
    const due = dueDate(card.due);
    if (due === undefined) {
      yield { kind: 'problem', line, message: `The due date ${quoted(String(card.due))} is not a date; left empty.` };
    }
    cards.add(text(card.id));
    yield {
      kind: 'task',
      ref: `trello:card:${text(card.id)}`,
      line,
      title,
      description: text(card.desc) || null,
      statusName: status?.name ?? null,
      completed: card.dueComplete === true || status?.isCompleted === true,
      priority: null,
      dueDate: due ?? null,
      listRefs: [boardRef],
      assignees: ids(card.idMembers).flatMap((id) => people.get(id) ?? []),
      labelNames: [...new Set(ids(card.idLabels).flatMap((id) => labelName.get(id) ?? []))],
      parentRef: null,
    };
  }

  for (const [index, checklist] of objects(doc.checklists).entries()) {
    const cardId = text(checklist.idCard);
    if (!cards.has(cardId)) continue; // its card is archived (said above) or not in the file
    for (const item of objects(checklist.checkItems)) {
      const title = text(item.name);
      if (title.trim() === '') continue;
      yield {
        kind: 'task',
        ref: `trello:checkItem:${text(item.id)}`,
        line: index + 1,
        title,
        description: null,
        statusName: null,
        completed: item.state === 'complete',
        priority: null,
        dueDate: dueDate(item.due) ?? null,
        listRefs: [boardRef],
        assignees: people.has(text(item.idMember)) ? [people.get(text(item.idMember))!] : [],
        labelNames: [],
        parentRef: `trello:card:${cardId}`,
      };
    }
  }

  const actions = objects(doc.actions);
  const comments: { date: string; comment: SourceComment }[] = [];
  actions.forEach((action, index) => {
    if (action.type !== 'commentCard' || !isObject(action.data)) return;
    const card = isObject(action.data.card) ? text(action.data.card.id) : '';
    const body = text(action.data.text);
    if (!cards.has(card) || body.trim() === '') return;
    const creator = isObject(action.memberCreator) ? action.memberCreator : {};
    comments.push({
      date: text(action.date),
      comment: {
        kind: 'comment',
        ref: `trello:comment:${text(action.id)}`,
        line: index + 1,
        taskRef: `trello:card:${card}`,
        author: { email: null, name: text(creator.fullName) || text(creator.username) || null },
        body,
      },
    });
  });
  // Oldest first; ISO dates sort as text, and the sort is stable for equal ones.
  comments.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  for (const { comment } of comments) yield comment;
  if (actions.length >= EXPORTED_ACTIONS) {
    yield {
      kind: 'problem',
      line: actions.length,
      message: `Trello's export holds only the board's latest ${EXPORTED_ACTIONS.toLocaleString('en-US')} actions: older comments are not in the file.`,
    };
  }
}

/** The date part (UTC) of a Trello due date; null without one, undefined for one that is no date. */
function dueDate(due: unknown): string | null | undefined {
  if (due === null || due === undefined || due === '') return null;
  const time = typeof due === 'string' ? Date.parse(due) : NaN;
  return Number.isNaN(time) ? undefined : new Date(time).toISOString().slice(0, 10);
}
