/**
 * Writes one export: the lines of docs/export-format.md, produced page by page from a read
 * snapshot (`exportLines`, an async generator: a line is made only when the gzip stream asks for
 * more, so backpressure reaches the reads), gzip'd, into `out`. Memory stays flat: at most a page
 * of ids, a page of tasks' details, a page of rows (tasks' comments, activity or attachments), or
 * one attachment chunk is held at a time.
 *
 * The objects are the API's shapes, made by its presenters, without the `version` the API keeps
 * for ETags. A `readable` export shows each task as GET /v1/tasks/{id} shows it to the reader (the
 * lists they may see, the parent they may read); a `team` export shows every list and link.
 */
import { createHash } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import { Readable as ReadableStream, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { Caller } from '../caller.js';
import { listsVisibleTo, peopleByIds, wholeActivityOfTasks } from '../activity/activity.repository.js';
import { namedIn, presentEntry } from '../activity/activity.presenter.js';
import { attachmentsOfTasks } from '../attachments/attachments.repository.js';
import { presentAttachment } from '../attachments/attachments.presenter.js';
import { FileMissing, type FileStore } from '../attachments/storage/file-store.js';
import { commentsOfTasks } from '../comments/comments.repository.js';
import { presentComment } from '../comments/comments.presenter.js';
import { listLabels } from '../labels/labels.repository.js';
import { findList, memberIdsOfList } from '../lists/lists.repository.js';
import { presentList } from '../lists/lists.presenter.js';
import type { TaskRowKey } from '../storage/dialect.js';
import type { Db } from '../storage/schema.js';
import { listStatuses } from '../statuses/statuses.repository.js';
import { findDetails } from '../tasks/tasks.repository.js';
import { presentDetail } from '../tasks/tasks.presenter.js';
import {
  ATTACHMENT_CHUNK_BYTES,
  FORMAT_TYPE,
  FORMAT_VERSION,
  noCounts,
  type CountedType,
  type Counts,
  type ExportLine,
} from './export-format.js';
import {
  listIdsPage,
  listNames,
  membersPage,
  PAGE_ROWS,
  person,
  taskIdsPage,
  teamName,
  wholeTaskLinks,
  type ExportReader,
} from './export-source.repository.js';

export interface ExportSubject extends ExportReader {
  exportedAt: string;
}

/** What a finished file is. */
export interface WrittenExport {
  bytes: number;
  sha256: string;
  counts: Counts;
}

/** Activity entries read at once: each may hold two descriptions of up to 100,000 characters. */
const ACTIVITY_PAGE_ROWS = 50;

/** Thrown when the export is stopped (the server closing) before it is whole. */
export class ExportStopped extends Error {}

/** Drops the ETag's version: the API's response schemas leave it out. */
function withoutVersion<T extends { version: number }>(value: T): Omit<T, 'version'> {
  const rest: Partial<T> = { ...value };
  delete rest.version;
  return rest as Omit<T, 'version'>;
}

/** The reads as the repositories take a caller: only the team and the user are read. */
const readerAsCaller = (reader: ExportReader): Caller => ({
  userId: reader.userId ?? '',
  teamId: reader.teamId,
  role: null,
  credential: { kind: 'key', id: 'export' },
});

/** Every accessible task's id, in id-ordered pages: each pass over the tasks (tasks, comments, …) starts here. */
async function* taskIdPages(db: Db, reader: ExportReader): AsyncGenerator<number[]> {
  for (let after = 0; ;) {
    const ids = await taskIdsPage(db, reader, after);
    if (ids.length === 0) return;
    yield ids;
    after = ids[ids.length - 1]!;
  }
}

/**
 * The rows of every accessible task (comments, activity, attachments) in task id then row id
 * order, read for a page of task ids at a time, `read` after read (keyset on (task_id, id)): a
 * statement per read's worth of rows, where reading each task's own took at least one a task,
 * however few rows it had. A task with more rows than one read holds continues in the next.
 */
async function* rowsOfTasks<R extends TaskRowKey>(
  db: Db,
  reader: ExportReader,
  read: (taskIds: number[], after: TaskRowKey) => Promise<R[]>,
): AsyncGenerator<R[]> {
  for await (const ids of taskIdPages(db, reader)) {
    for (let after: TaskRowKey = { taskId: 0, id: 0 }; ;) {
      const rows = await read(ids, after);
      if (rows.length === 0) break;
      yield rows;
      const last = rows[rows.length - 1]!;
      after = { taskId: last.taskId, id: last.id };
    }
  }
}

/** An attachment's bytes as base64 chunks of ATTACHMENT_CHUNK_BYTES. */
async function* chunksOf(stream: Readable): AsyncGenerator<string> {
  let pending: Buffer[] = [];
  let size = 0;
  for await (const piece of stream as AsyncIterable<Buffer>) {
    let rest = piece;
    while (size + rest.length >= ATTACHMENT_CHUNK_BYTES) {
      const take = ATTACHMENT_CHUNK_BYTES - size;
      pending.push(rest.subarray(0, take));
      yield Buffer.concat(pending).toString('base64');
      pending = [];
      size = 0;
      rest = rest.subarray(take);
    }
    if (rest.length > 0) {
      pending.push(rest);
      size += rest.length;
    }
  }
  if (size > 0) yield Buffer.concat(pending).toString('base64');
}

/** The lines of one export, header to `end`; `counts` fills as they go. */
export async function* exportLines(
  db: Db,
  files: FileStore,
  subject: ExportSubject,
  counts: Counts = noCounts(),
  stopped: () => boolean = () => false,
): AsyncGenerator<ExportLine> {
  const caller = readerAsCaller(subject);
  const team = await teamName(db, subject.teamId);
  const exporter = subject.userId === null ? null : await person(db, subject.userId);
  if (team === undefined || exporter === undefined) throw new Error('the team or the exporting person is gone');
  if (subject.scope === 'readable' && exporter === null) throw new Error('a readable export is of a person');
  yield {
    type: FORMAT_TYPE,
    version: FORMAT_VERSION,
    exportedAt: subject.exportedAt,
    scope: subject.scope,
    team: { id: subject.teamId, name: team },
    exportedBy: exporter,
  };
  const counted = <L extends ExportLine & { type: CountedType }>(line: L): L => {
    if (stopped()) throw new ExportStopped('the export was stopped');
    counts[line.type]++;
    return line;
  };

  for (let after = ''; ;) {
    const members = await membersPage(db, subject.teamId, after);
    if (members.length === 0) break;
    for (const member of members) yield counted({ type: 'member', ...member });
    after = members[members.length - 1]!.id;
  }
  for (const status of await listStatuses(db, subject.teamId)) yield counted({ type: 'status', ...status });
  for (const label of await listLabels(db, subject.teamId)) yield counted({ type: 'label', ...label });
  for (let after = 0; ;) {
    const ids = await listIdsPage(db, subject, after);
    if (ids.length === 0) break;
    for (const id of ids) {
      const list = await findList(db, subject.teamId, id);
      if (!list) continue;
      const memberIds = (await memberIdsOfList(db, id)).sort();
      yield counted({ type: 'list', ...withoutVersion(presentList(list)), memberIds });
    }
    after = ids[ids.length - 1]!;
  }

  for await (const ids of taskIdPages(db, subject)) {
    const links = subject.scope === 'team' ? await wholeTaskLinks(db, ids) : undefined;
    // The details of the page at once (`findDetails`: what `findDetail`, GET /v1/tasks/{id}'s
    // read, makes of each, in a few statements a page instead of one a task), so that a `readable`
    // export shows each task as GET /v1/tasks/{id} shows it to the reader.
    const details = await findDetails(db, caller, ids);
    for (const id of ids) {
      const found = details.get(id);
      if (!found) continue;
      const whole = links?.get(id);
      const parts = whole ? { ...found.parts, ...whole } : found.parts;
      yield counted({ type: 'task', ...withoutVersion(presentDetail(found, parts)) });
    }
  }

  const comments = rowsOfTasks(db, subject, (ids, after) => commentsOfTasks(db, ids, after, PAGE_ROWS));
  for await (const records of comments) {
    for (const comment of records) yield counted({ type: 'comment', ...withoutVersion(presentComment(comment)) });
  }

  // Whole entries, never a page's shortened descriptions; a few at a time, as each may be large.
  const activity = rowsOfTasks(db, subject, (ids, after) => wholeActivityOfTasks(db, ids, after, ACTIVITY_PAGE_ROWS));
  for await (const records of activity) {
    const { userIds, listIds } = namedIn(records);
    const people = await peopleByIds(db, userIds);
    const lists =
      subject.scope === 'team' ? await listNames(db, listIds) : await listsVisibleTo(db, subject.userId ?? '', listIds);
    for (const record of records) yield counted({ type: 'activity', ...presentEntry(record, people, lists) });
  }

  const attachments = rowsOfTasks(db, subject, (ids, after) => attachmentsOfTasks(db, ids, after, PAGE_ROWS));
  for await (const records of attachments) {
    for (const attachment of records) {
      let content: Readable;
      try {
        content = await files.get(attachment.storageKey);
      } catch (error) {
        // Deleted since the snapshot was taken (or lost from the store): it is left out whole.
        if (error instanceof FileMissing) continue;
        throw error;
      }
      yield counted({ type: 'attachment', ...presentAttachment(attachment) });
      let seq = 0;
      for await (const data of chunksOf(content)) {
        yield counted({ type: 'attachmentData', attachmentId: attachment.id, seq: seq++, data });
      }
    }
  }

  yield { type: 'end', counts: { ...counts } };
}

/** Counts and hashes the bytes that pass. */
class Measure extends Transform {
  bytes = 0;
  private readonly hash = createHash('sha256');
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    this.hash.update(chunk);
    done(null, chunk);
  }
  digest(): string {
    return this.hash.digest('hex');
  }
}

/** The export's gzip'd bytes as a stream, pulled line by line from the reads as it is consumed. */
export function exportStream(
  db: Db,
  files: FileStore,
  subject: ExportSubject,
  counts: Counts,
  stopped?: () => boolean,
): Readable {
  async function* text(): AsyncGenerator<string> {
    for await (const line of exportLines(db, files, subject, counts, stopped)) yield `${JSON.stringify(line)}\n`;
  }
  const gzip = createGzip();
  // Readable.from pulls the next line only when gzip asks for more: backpressure to the reads.
  pipeline(ReadableStream.from(text(), { objectMode: false }), gzip).catch((error: unknown) =>
    gzip.destroy(error as Error),
  );
  return gzip;
}

/** Writes the whole export into `out` (a file): its size, SHA-256 and counts. */
export async function writeExport(
  db: Db,
  files: FileStore,
  subject: ExportSubject,
  out: Writable,
): Promise<WrittenExport> {
  const counts = noCounts();
  const measure = new Measure();
  await pipeline(exportStream(db, files, subject, counts), measure, out);
  return { bytes: measure.bytes, sha256: measure.digest(), counts };
}
