/**
 * Applies a planned import (issue 32): its rows, in order, in batches, each batch one scheduled job
 * (`import.apply`, jobs/job-runner.ts) run in one transaction, by whichever process claims it; the
 * batch plans the next, so an apply survives the process that started it. Every object is written
 * through its service, as the person who applied the import (a caller whose credential is
 * `import`: no notifications, changes/… as any change otherwise: events, activity, webhooks), so
 * the import is authorized and recorded exactly as the same changes made by hand would be.
 *
 * Each row is decided again against the team as it is now (matching.ts), inside a savepoint: a row
 * the service refuses (its list archived since the plan, say) is rolled back alone and reported
 * with its line, and the batch goes on. After each batch the importer hears `import.progress`.
 * A cancel is seen by the next batch, which stops there; an undo (undo.ts) takes back what it made.
 */
import { sql } from 'kysely';
import type { Caller } from '../caller.js';
import {
  LIST_COLORS,
  MAX_LISTED_PROBLEMS,
  PRIORITIES,
  type ImportAction,
  type ImportResult,
  type UpdateTaskBody,
} from '../contract/index.js';
import { MAX_COMMENT_LENGTH } from '../contract/comments.js';
import { MAX_LABEL_NAME_LENGTH } from '../contract/labels.js';
import { MAX_LIST_NAME_LENGTH } from '../contract/lists.js';
import { MAX_STATUS_NAME_LENGTH } from '../contract/statuses.js';
import { MAX_DESCRIPTION_LENGTH, MAX_TITLE_LENGTH } from '../contract/tasks.js';
import { recordEvent, usersAudience } from '../changes/outbox.js';
import { createComment } from '../comments/comments.service.js';
import { AppError } from '../http/errors.js';
import type { JobHandler } from '../jobs/job-runner.js';
import { insertJobs, type NewJob } from '../jobs/scheduled-jobs.repository.js';
import { createLabelAs } from '../labels/labels.service.js';
import { addMember, createList, setArchived } from '../lists/lists.service.js';
import { createStatusAs } from '../statuses/statuses.service.js';
import type { Store } from '../storage/database.js';
import { isPostgres } from '../storage/dialect.js';
import type { Db } from '../storage/schema.js';
import { createTask, updateTask } from '../tasks/tasks.service.js';
import { findMembership } from '../team/teams.repository.js';
import { managesTeam } from '../team/roles.js';
import {
  deleteRows,
  findImportLocked,
  objectsOfRefs,
  rowsAfter,
  saveObject,
  updateImport,
  type ImportRecord,
} from './imports.repository.js';
import { actionFor, sourceHash, stillThere, TeamIndex, type ObjectItem } from './matching.js';
import { describe } from './plan.js';
import type { SourceComment, SourceList, SourceTask } from './sources/source-items.js';

export const APPLY_JOB = 'import.apply';
/** Rows per batch: one transaction each, short enough not to hold SQLite's writer for long. */
export const APPLY_BATCH = 100;
/**
 * Tries of one batch before the import stops as failed: a batch fails only on a fault (a refused
 * row is skipped, not a failure), and a fault that outlasts the runner's growing delays (about
 * half an hour by then) is not one that waiting cures.
 */
export const MAX_BATCH_TRIES = 6;
export const GAVE_UP_MESSAGE =
  `A batch of rows failed ${MAX_BATCH_TRIES} times on a fault of the server, not of the file; the import stopped. ` +
  "What it wrote stays, and can be undone; the server's log says what failed.";

export const emptyResult = (): ImportResult => ({
  create: 0,
  update: 0,
  match: 0,
  unchanged: 0,
  skip: 0,
  problems: [],
  problemCount: 0,
});

export const applyJob = (record: Pick<ImportRecord, 'id' | 'teamId' | 'requestedBy'>, now: Date): NewJob => ({
  kind: APPLY_JOB,
  teamId: record.teamId,
  taskId: null,
  userId: record.requestedBy,
  data: { importId: record.id },
  runAt: now,
});

/** A Store whose transactions are `trx` itself: the services' own transactions become the batch's. */
const within = (trx: Db, dialect: Store['dialect']): Store => ({
  db: trx,
  dialect,
  transaction: (work) => work(trx),
  close: async () => undefined,
});

/** The person who applied the import, as the services' caller; their role as it is now. */
export const importerCaller = (
  record: Pick<ImportRecord, 'id' | 'teamId' | 'requestedBy'>,
  role: Caller['role'],
): Caller => ({
  userId: record.requestedBy,
  teamId: record.teamId,
  role,
  credential: { kind: 'import', id: String(record.id) },
});

export const applyImportBatch: JobHandler = async (trx, job) => {
  const { importId } = job.data as { importId: number };
  const record = await findImportLocked(trx, job.teamId, importId);
  if (!record || record.status !== 'applying') return; // cancelled, or gone with its team
  const now = new Date().toISOString();
  if (job.attempts > MAX_BATCH_TRIES) {
    await finish(trx, record, record.result ?? emptyResult(), now, { status: 'failed', error: GAVE_UP_MESSAGE });
    return;
  }
  const role = (await findMembership(trx, record.teamId, record.requestedBy)) ?? null;
  if (!managesTeam(role)) {
    await finish(trx, record, record.result ?? emptyResult(), now, {
      status: 'failed',
      error: 'The person who applied the import is no longer an owner or admin of the team; it stopped.',
    });
    return;
  }
  const store = within(trx, isPostgres(trx) ? 'postgres' : 'sqlite');
  const caller = importerCaller(record, role);
  const index = await TeamIndex.load(store, caller);
  const result = record.result ?? emptyResult();
  const rows = await rowsAfter(trx, record.id, record.rowsDone, APPLY_BATCH);
  for (const { item } of rows) {
    if (item.kind === 'problem') continue;
    await sql`savepoint import_row`.execute(trx);
    try {
      const action = await applyItem(store, caller, record, index, item);
      result[action] += 1;
      await sql`release savepoint import_row`.execute(trx);
    } catch (error) {
      await sql`rollback to savepoint import_row`.execute(trx);
      if (!(error instanceof AppError)) throw error; // a fault, not a refusal: the batch is tried again
      result.skip += 1;
      result.problemCount += 1;
      if (result.problems.length < MAX_LISTED_PROBLEMS)
        result.problems.push({ line: item.line, message: error.message });
    }
  }
  const rowsDone = record.rowsDone + rows.length;
  if (rowsDone >= record.rowsTotal) {
    await archiveLists(store, caller, record);
    await finish(trx, { ...record, rowsDone }, result, now, { status: 'applied' });
    return;
  }
  await updateImport(trx, record.id, { rowsDone, result }, now);
  await insertJobs(trx, [applyJob(record, new Date())], new Date());
  await progressEvent(trx, record);
};

export async function finish(
  trx: Db,
  record: ImportRecord,
  result: ImportResult,
  now: string,
  end: { status: 'applied' | 'cancelled' | 'failed'; error?: string },
): Promise<void> {
  await updateImport(
    trx,
    record.id,
    { status: end.status, rowsDone: record.rowsDone, result, error: end.error ?? null, finishedAt: now },
    now,
  );
  await deleteRows(trx, record.id);
  await progressEvent(trx, record);
}

export const progressEvent = (trx: Db, record: Pick<ImportRecord, 'id' | 'teamId' | 'requestedBy'>) =>
  recordEvent(trx, {
    teamId: record.teamId,
    type: 'import.progress',
    data: { importId: record.id },
    audience: usersAudience([record.requestedBy]),
  });

/** Writes one item; answers what it did (matching.ts decides). */
async function applyItem(
  store: Store,
  caller: Caller,
  record: ImportRecord,
  index: TeamIndex,
  item: ObjectItem,
): Promise<ImportAction> {
  const trx = store.db;
  const known = (await objectsOfRefs(trx, record.teamId, [item.ref])).get(item.ref);
  const exists = known !== undefined && (await stillThere(trx, record.teamId, [known])).has(item.ref);
  const action = actionFor(item, { object: known, exists }, index);
  if (action === 'unchanged') return action;
  const remember = (objectId: number, version: number | null) =>
    saveObject(trx, record.teamId, {
      ref: item.ref,
      kind: item.kind,
      objectId,
      createdByImport: action === 'create' ? record.id : (known?.createdByImport ?? null),
      version,
      sourceHash: sourceHash(item),
    });

  switch (item.kind) {
    case 'status': {
      const status =
        index.status(item.name) ??
        (await createStatusAs(store, caller, {
          name: item.name.slice(0, MAX_STATUS_NAME_LENGTH),
          isCompleted: item.isCompleted,
          ...(item.color && /^#[0-9a-fA-F]{6}$/.test(item.color) && { color: item.color }),
        }));
      index.addStatus(status);
      await remember(status.id, null);
      return action;
    }
    case 'label': {
      const label =
        index.label(item.name) ??
        (await createLabelAs(store, caller, {
          name: item.name.slice(0, MAX_LABEL_NAME_LENGTH),
          ...(listColor(item.color) && { color: listColor(item.color)! }),
        }));
      index.addLabel(label);
      await remember(label.id, null);
      return action;
    }
    case 'list': {
      const matched = index.list(item.name);
      if (matched !== undefined) {
        await remember(matched, null);
        return action;
      }
      const list = await createList(store, caller, {
        name: item.name.slice(0, MAX_LIST_NAME_LENGTH),
        ...(listColor(item.color) && { color: listColor(item.color)! }),
      });
      for (const person of item.members) {
        const member = index.member(person);
        if (member && member.id !== caller.userId) await addMember(store, caller, String(list.id), member.id);
      }
      index.addList(list.name, list.id);
      await remember(list.id, await versionOf(trx, 'task_lists', list.id));
      return action;
    }
    case 'task':
      return applyTask(store, caller, index, item, action, known?.objectId, remember);
    case 'comment':
      return applyComment(store, caller, record, index, item, remember);
  }
}

async function applyTask(
  store: Store,
  caller: Caller,
  index: TeamIndex,
  task: SourceTask,
  action: ImportAction,
  existingId: number | undefined,
  remember: (objectId: number, version: number | null) => Promise<void>,
): Promise<ImportAction> {
  const refs = await objectsOfRefs(store.db, caller.teamId, [
    ...task.listRefs,
    ...(task.parentRef ? [task.parentRef] : []),
  ]);
  const status = (task.statusName !== null && index.status(task.statusName)) || index.fallbackStatus(task.completed);
  const fields = {
    title: task.title.slice(0, MAX_TITLE_LENGTH),
    description: task.description?.slice(0, MAX_DESCRIPTION_LENGTH) || null,
    priority: (PRIORITIES as readonly string[]).includes(task.priority ?? '')
      ? (task.priority as UpdateTaskBody['priority'])
      : null,
    dueDate:
      task.dueDate && /^\d{4}-\d{2}-\d{2}$/.test(task.dueDate) && !Number.isNaN(Date.parse(task.dueDate))
        ? task.dueDate
        : null,
    ...(status && { taskStatusId: status.id }),
    taskListIds: task.listRefs.flatMap((ref) => (refs.get(ref)?.kind === 'list' ? [refs.get(ref)!.objectId] : [])),
    assigneeIds: [...new Set(task.assignees.flatMap((person) => index.member(person)?.id ?? []))],
    labelIds: [...new Set(task.labelNames.flatMap((name) => index.label(name)?.id ?? []))],
  };
  if (action === 'update') {
    const updated = await updateTask(store, caller, String(existingId), fields);
    await remember(existingId!, updated.version);
    return action;
  }
  const parent = task.parentRef ? refs.get(task.parentRef) : undefined;
  const created = await createTask(store, caller, {
    ...fields,
    ...(parent?.kind === 'task' && { parentId: parent.objectId }),
  });
  await remember(created.id, created.version);
  return action;
}

/**
 * A comment is written by its author when they are a member who may read the task; otherwise by
 * the importer, its first line naming who wrote it, as the plan said.
 */
async function applyComment(
  store: Store,
  caller: Caller,
  record: ImportRecord,
  index: TeamIndex,
  comment: SourceComment,
  remember: (objectId: number, version: number | null) => Promise<void>,
): Promise<ImportAction> {
  const task = (await objectsOfRefs(store.db, caller.teamId, [comment.taskRef])).get(comment.taskRef);
  if (task?.kind !== 'task')
    throw new AppError('invalidInput', 'The comment is on a task that was not imported; it is skipped.');
  const author = index.member(comment.author);
  const body = comment.body.slice(0, MAX_COMMENT_LENGTH);
  let written;
  if (author) {
    const authorRole = (await findMembership(store.db, record.teamId, author.id)) ?? null;
    await sql`savepoint import_comment`.execute(store.db);
    try {
      written = await createComment(
        store,
        { ...importerCaller(record, authorRole), userId: author.id },
        String(task.objectId),
        body,
      );
      await sql`release savepoint import_comment`.execute(store.db);
    } catch (error) {
      await sql`rollback to savepoint import_comment`.execute(store.db);
      if (!(error instanceof AppError)) throw error;
    }
  }
  written ??= await createComment(
    store,
    caller,
    String(task.objectId),
    comment.author ? `*${describe(comment.author)} wrote:*\n\n${body}`.slice(0, MAX_COMMENT_LENGTH) : body,
  );
  await remember(written.id, written.version);
  return 'create';
}

/** Lists the file has as archived are archived once their tasks are in (an archived list takes none). */
async function archiveLists(store: Store, caller: Caller, record: ImportRecord): Promise<void> {
  let after = 0;
  for (;;) {
    const rows = await rowsAfter(store.db, record.id, after, APPLY_BATCH);
    const lists = rows
      .map((row) => row.item)
      .filter((item): item is SourceList => item.kind === 'list' && item.isArchived);
    const known = await objectsOfRefs(
      store.db,
      record.teamId,
      lists.map((list) => list.ref),
    );
    for (const list of lists) {
      const object = known.get(list.ref);
      if (object?.createdByImport === record.id) {
        const archived = await setArchived(store, caller, String(object.objectId), true);
        await saveObject(store.db, record.teamId, { ...object, version: archived.version });
      }
    }
    // Lists come before tasks in every file: past the first task, there are no more.
    if (rows.length < APPLY_BATCH || rows.some((row) => row.item.kind === 'task' || row.item.kind === 'comment'))
      return;
    after = rows[rows.length - 1]!.seq;
  }
}

const listColor = (color: string | null) => LIST_COLORS.find((known) => known.toLowerCase() === color?.toLowerCase());

async function versionOf(db: Db, table: 'task_lists' | 'tasks', id: number): Promise<number | null> {
  const row = await db.selectFrom(table).select('version').where('id', '=', id).executeTakeFirst();
  return row ? Number(row.version) : null;
}
