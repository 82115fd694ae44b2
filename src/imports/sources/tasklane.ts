/**
 * Reads tasklane's own export (docs/export-format.md): gzip'd JSON Lines, read as a stream (the
 * gunzip stream, split into lines here), so memory holds one line at a time, plus the team's
 * members (id → email and name), which is bounded by the team, not by the file.
 *
 * Refs are `<team id>:<kind>:<id>` (the exported team's id and the object's own): the same across
 * exports of the same team, so importing a newer export updates what the first one made.
 *
 * What is not imported, said once each at the end as a problem: activity (the importing server
 * writes its own history) and attachments (not by this version). A file that is not gzip, whose
 * first line is not a version-1 header, or that lacks the closing `end` line (cut short) is refused.
 */
import { createGunzip } from 'node:zlib';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
import { LIST_COLORS, PRIORITIES } from '../../contract/enums.js';
import { FORMAT_TYPE, LINE_TYPES } from '../../exports/export-format.js';
import { isCalendarDate } from './read-helpers.js';
import {
  UnreadableFile,
  type ReadOptions,
  type SourceItem,
  type SourcePerson,
  type SourceTask,
} from './source-items.js';

/** The version this reader reads (the writer's FORMAT_VERSION may move on; this one moves with the reader). */
const FORMAT_VERSION = 1;
/** Longest line read: a task with a 100,000-character description and an attachment chunk fit many times. */
const MAX_LINE_BYTES = 16 * 1024 * 1024;
const GZIP_MAGIC = [0x1f, 0x8b];

const NOT_GZIP = 'The file is not a tasklane export: it is not gzip-compressed (a tasklane export ends in .jsonl.gz).';
const CUT_SHORT =
  'The tasklane export was cut short: it lacks its closing "end" line. Download or export it again, whole.';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const idOf = (value: unknown): string | null =>
  typeof value === 'number' || (typeof value === 'string' && value !== '') ? String(value) : null;
const array = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** The bytes, refused unless they start as gzip does; an empty file is no gzip either. */
async function* gzipBytes(bytes: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let head = Buffer.alloc(0);
  let checked = false;
  for await (const chunk of bytes) {
    if (checked) {
      yield chunk;
      continue;
    }
    head = Buffer.concat([head, chunk]);
    if (head.length < GZIP_MAGIC.length) continue;
    if (head[0] !== GZIP_MAGIC[0] || head[1] !== GZIP_MAGIC[1]) throw new UnreadableFile(NOT_GZIP);
    checked = true;
    yield head;
  }
  if (!checked) throw new UnreadableFile(NOT_GZIP);
}

/** The decompressed text's lines, without their `\n`, one at a time. */
async function* lines(bytes: AsyncIterable<Buffer>): AsyncGenerator<string> {
  const gunzip = createGunzip();
  const feeding = pipeline(Readable.from(gzipBytes(bytes), { objectMode: false }), gunzip).catch(() => {});
  const decoder = new StringDecoder('utf8');
  let pending = '';
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      // Only the new text is searched, so a long line read in many chunks costs its length once.
      const piece = decoder.write(chunk);
      let start = 0;
      for (let end = piece.indexOf('\n'); end !== -1; end = piece.indexOf('\n', start)) {
        yield pending + piece.slice(start, end);
        pending = '';
        start = end + 1;
      }
      pending += piece.slice(start);
      if (pending.length > MAX_LINE_BYTES) {
        throw new UnreadableFile('The file is not a tasklane export: it has a line longer than any export writes.');
      }
    }
  } catch (error) {
    if (error instanceof UnreadableFile) throw error;
    const code = (error as { code?: unknown }).code;
    if (code === 'Z_BUF_ERROR') throw new UnreadableFile(CUT_SHORT);
    if (typeof code === 'string' && code.startsWith('Z_')) {
      throw new UnreadableFile('The file is not a tasklane export: its gzip data is damaged.');
    }
    throw error;
  } finally {
    gunzip.destroy();
    await feeding;
  }
  pending += decoder.end();
  if (pending !== '') yield pending;
}

/** The header's team id, or the refusal of a file that is not a version-1 export. */
function teamIdOf(first: string | undefined): string {
  let header: unknown;
  try {
    header = first === undefined ? undefined : JSON.parse(first);
  } catch {
    header = undefined;
  }
  if (!isObject(header) || header.type !== FORMAT_TYPE) {
    throw new UnreadableFile(`The file is not a tasklane export: its first line is not a "${FORMAT_TYPE}" header.`);
  }
  if (header.version !== FORMAT_VERSION) {
    throw new UnreadableFile(
      `The file is a tasklane export of version ${JSON.stringify(header.version)}, which this server does not read: it reads version ${FORMAT_VERSION}.`,
    );
  }
  const teamId = isObject(header.team) ? idOf(header.team.id) : null;
  if (teamId === null) throw new UnreadableFile('The file is not a tasklane export: its header names no team.');
  return teamId;
}

const listColor = (value: unknown): string | null =>
  typeof value === 'string' && (LIST_COLORS as readonly string[]).includes(value) ? value : null;
/** '#RRGGBB' (a '#RGB' the API also takes, written out), or null. */
function statusColor(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  if (/^#[0-9a-fA-F]{6}$/.test(value)) return value;
  return /^#[0-9a-fA-F]{3}$/.test(value) ? `#${[...value.slice(1)].map((digit) => digit + digit).join('')}` : null;
}
const person = (value: unknown): SourcePerson | null =>
  isObject(value) ? { email: text(value.email), name: text(value.name) } : null;

/** A tasklane export's items, in the file's order (which is the order items go in). */
export async function* readTasklane(bytes: AsyncIterable<Buffer>, _options: ReadOptions): AsyncGenerator<SourceItem> {
  const members = new Map<string, SourcePerson>();
  const counts = new Map<string, number>(LINE_TYPES.map((type) => [type, 0]));
  const firstLine = new Map<string, number>();
  let teamId: string | null = null;
  let ended = false;
  let line = 0;
  const ref = (kind: string, id: unknown) => `${teamId}:${kind}:${idOf(id)}`;

  for await (const raw of lines(bytes)) {
    line++;
    if (teamId === null) {
      teamId = teamIdOf(raw);
      continue;
    }
    if (raw.trim() === '') continue;
    if (ended) throw new UnreadableFile(`The tasklane export has lines after its "end" line (line ${line}).`);
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      throw new UnreadableFile(`The tasklane export is damaged: line ${line} is not JSON.`);
    }
    if (!isObject(value)) throw new UnreadableFile(`The tasklane export is damaged: line ${line} is not an object.`);
    const type = value.type;
    if (typeof type === 'string' && counts.has(type)) {
      counts.set(type, counts.get(type)! + 1);
      if (!firstLine.has(type)) firstLine.set(type, line);
    }
    switch (type) {
      case 'member': {
        const id = idOf(value.id);
        if (id !== null) members.set(id, { email: text(value.email), name: text(value.name) });
        break;
      }
      case 'status':
        yield {
          kind: 'status',
          ref: ref('status', value.id),
          line,
          name: text(value.name)?.trim() || `Status ${idOf(value.id)}`,
          color: statusColor(value.color),
          isCompleted: value.isCompleted === true,
        };
        break;
      case 'label':
        yield {
          kind: 'label',
          ref: ref('label', value.id),
          line,
          name: text(value.name)?.trim() || `Label ${idOf(value.id)}`,
          color: listColor(value.color),
        };
        break;
      case 'list':
        yield {
          kind: 'list',
          ref: ref('list', value.id),
          line,
          name: text(value.name)?.trim() || `List ${idOf(value.id)}`,
          color: listColor(value.color),
          isArchived: value.isArchived === true,
          // A member id the file does not name (never written so) says nothing of the person: left out.
          members: array(value.memberIds).flatMap((id) => members.get(String(id)) ?? []),
        };
        break;
      case 'task':
        yield* task(value, line, ref);
        break;
      case 'comment': {
        const body = text(value.body);
        if (body === null || idOf(value.taskId) === null) {
          yield { kind: 'problem', line, message: `Comment ${idOf(value.id)} has no task or no text; skipped.` };
          break;
        }
        yield {
          kind: 'comment',
          ref: ref('comment', value.id),
          line,
          taskRef: ref('task', value.taskId),
          author: person(value.author),
          body,
        };
        break;
      }
      case 'end':
        ended = true;
        checkCounts(value.counts, counts);
        break;
      // activity, attachment, attachmentData: counted above, said once below; unknown types: ignored
      // (version 1 may gain fields, and a reader ignores what it does not know).
    }
  }
  if (teamId === null) throw new UnreadableFile('The file is not a tasklane export: it is empty.');
  if (!ended) throw new UnreadableFile(CUT_SHORT);

  const activity = counts.get('activity')!;
  if (activity > 0) {
    yield {
      kind: 'problem',
      line: firstLine.get('activity')!,
      message: `${activity.toLocaleString('en-US')} activity ${activity === 1 ? 'entry is' : 'entries are'} not imported: the importing server records its own history.`,
    };
  }
  const attachments = counts.get('attachment')!;
  if (attachments > 0) {
    yield {
      kind: 'problem',
      line: firstLine.get('attachment')!,
      message: `${attachments.toLocaleString('en-US')} ${attachments === 1 ? 'attachment is' : 'attachments are'} not imported by this version.`,
    };
  }
}

/** A task line's item, or the problem of one without a title. */
function* task(value: Json, line: number, ref: (kind: string, id: unknown) => string): Generator<SourceItem> {
  const title = text(value.title);
  if (title === null || title.trim() === '') {
    yield { kind: 'problem', line, message: `Task ${idOf(value.id)} has no title; skipped.` };
    return;
  }
  const status = isObject(value.status) ? text(value.status.name)?.trim() || null : null;
  const priority = typeof value.priority === 'string' && (PRIORITIES as readonly string[]).includes(value.priority);
  const dueDate = typeof value.dueDate === 'string' && isCalendarDate(value.dueDate) ? value.dueDate : null;
  // A subtask's parent is exported exactly when `parent` is shown (scope `readable` hides those the
  // exporter may not read): without it, the subtask comes in as a task of its own.
  const parentShown = idOf(value.parentId) !== null && isObject(value.parent);
  if (idOf(value.parentId) !== null && !parentShown) {
    yield {
      kind: 'problem',
      line,
      message: `Task ${idOf(value.id)}'s parent task is not in the file; it is imported as a task of its own.`,
    };
  }
  const item: SourceTask = {
    kind: 'task',
    ref: ref('task', value.id),
    line,
    title,
    description: text(value.description),
    statusName: status,
    completed: value.isCompleted === true,
    priority: priority ? (value.priority as string) : null,
    dueDate,
    listRefs: array(value.taskLists).flatMap((list) =>
      isObject(list) && idOf(list.id) !== null ? [ref('list', list.id)] : [],
    ),
    assignees: array(value.assignees).flatMap((assignee) => person(assignee) ?? []),
    labelNames: array(value.labels).flatMap((label) => {
      const name = isObject(label) ? text(label.name)?.trim() : undefined;
      return name ? [name] : [];
    }),
    parentRef: parentShown ? ref('task', value.parentId) : null,
  };
  yield item;
}

/** Refuses a file whose lines are not those its `end` line counts (lost or repeated lines). */
function checkCounts(written: unknown, read: Map<string, number>): void {
  if (!isObject(written)) throw new UnreadableFile('The tasklane export is damaged: its "end" line has no counts.');
  for (const [type, count] of read) {
    const expected = written[type];
    if (typeof expected === 'number' && expected !== count) {
      throw new UnreadableFile(
        `The tasklane export is damaged: its "end" line counts ${expected} ${type} lines, but the file has ${count}.`,
      );
    }
  }
}
