/**
 * The crash test's workload: concurrent writers firing task creates (with lists, assignees and
 * parents), patches, deletes and list creates at the real server, and a model of what it
 * acknowledged. Each writer owns the tasks it created, so a task sees one write at a time and its
 * acknowledged state is exact. A write whose complete 2xx never arrived (the server was killed) is
 * kept as pending: after the restart it must be wholly applied or wholly absent.
 */
import { LIST_COLORS } from '../src/contract/enums.js';

import { seededRng, type Rng } from './random.js';
const pick = <T>(rng: Rng, values: readonly T[]): T => values[Math.floor(rng() * values.length)]!;
function sample<T>(rng: Rng, values: readonly T[], max: number): T[] {
  const pool = [...values];
  const chosen: T[] = [];
  for (let n = Math.floor(rng() * (max + 1)); n > 0 && pool.length > 0; n--) {
    chosen.push(pool.splice(Math.floor(rng() * pool.length), 1)[0]!);
  }
  return chosen;
}

/** What a task looks like through the API; lists and assignees sorted. */
export interface TaskState {
  title: string;
  description: string | null;
  priority: string | null;
  dueDate: string | null;
  taskStatusId: number;
  assigneeIds: string[];
  taskListIds: number[];
  parentId: number | null;
}

export interface KnownTask {
  id: number;
  number: number;
  /** The writer that may touch it. */
  owner: number;
  state: TaskState;
}

export type Write =
  | { kind: 'createTask'; owner: number; body: Record<string, unknown>; state: TaskState }
  | { kind: 'patchTask'; task: KnownTask; body: Record<string, unknown>; after: TaskState }
  | { kind: 'deleteTask'; task: KnownTask }
  | { kind: 'createList'; name: string; color: string };

/** Everything acknowledged so far, plus the writes left without an answer by the last kill. */
export class Model {
  readonly tasks = new Map<number, KnownTask>();
  /** Deleted task id → its number (numbers are never handed out again). */
  readonly deleted = new Map<number, number>();
  readonly lists = new Map<number, { id: number; name: string; color: string }>();
  pending: Write[] = [];

  applyDelete(task: KnownTask): void {
    this.tasks.delete(task.id);
    this.deleted.set(task.id, task.number);
    // Its subtasks become top-level tasks (they belong to the same writer, so nothing races this).
    for (const other of this.tasks.values()) if (other.state.parentId === task.id) other.state.parentId = null;
  }
}

/** The API's task detail reduced to the fields the model tracks. */
export function stateOf(detail: any): TaskState {
  return {
    title: detail.title,
    description: detail.description,
    priority: detail.priority,
    dueDate: detail.dueDate,
    taskStatusId: detail.taskStatusId,
    assigneeIds: detail.assignees.map((a: { id: string }) => a.id).sort(),
    taskListIds: detail.taskLists.map((l: { id: number }) => l.id).sort((x: number, y: number) => x - y),
    parentId: detail.parentId,
  };
}

export interface Team {
  userIds: string[];
  statusIds: number[];
  defaultStatusId: number;
}

const PRIORITIES = [null, 'low', 'medium', 'high', 'urgent'];
const randomDate = (rng: Rng) =>
  `2027-${String(1 + Math.floor(rng() * 12)).padStart(2, '0')}-1${Math.floor(rng() * 9)}`;

/** Plans writer `owner`'s next write from the model (never touching another writer's tasks). */
export function planWrite(rng: Rng, model: Model, team: Team, owner: number, label: string): Write {
  const own = [...model.tasks.values()].filter((task) => task.owner === owner);
  const listIds = [...model.lists.keys()];
  const roll = rng();
  if (roll < 0.12) return { kind: 'createList', name: `list ${label}`, color: pick(rng, LIST_COLORS) };
  if (roll < 0.5 || own.length === 0) {
    const body: Record<string, unknown> = { title: `task ${label}` };
    const state: TaskState = {
      title: `task ${label}`,
      description: null,
      priority: null,
      dueDate: null,
      taskStatusId: team.defaultStatusId,
      assigneeIds: sample(rng, team.userIds, 10).sort(),
      taskListIds: sample(rng, listIds, 10).sort((x, y) => x - y),
      parentId: own.length > 0 && rng() < 0.25 ? pick(rng, own).id : null,
    };
    body.assigneeIds = state.assigneeIds;
    body.taskListIds = state.taskListIds;
    if (state.parentId !== null) body.parentId = state.parentId;
    if (rng() < 0.5) body.description = state.description = `written by ${label}`;
    if (rng() < 0.7) body.priority = state.priority = pick(rng, PRIORITIES);
    if (rng() < 0.5) body.dueDate = state.dueDate = randomDate(rng);
    if (rng() < 0.5) body.taskStatusId = state.taskStatusId = pick(rng, team.statusIds);
    return { kind: 'createTask', owner, body, state };
  }
  const task = pick(rng, own);
  if (roll > 0.9) return { kind: 'deleteTask', task };
  const after: TaskState = { ...task.state };
  const body: Record<string, unknown> = {};
  // At least one field always changes, so every acknowledged patch is a real write.
  body.taskStatusId = after.taskStatusId = pick(rng, team.statusIds);
  if (rng() < 0.5) body.assigneeIds = after.assigneeIds = sample(rng, team.userIds, 10).sort();
  if (rng() < 0.4) body.taskListIds = after.taskListIds = sample(rng, listIds, 10).sort((x, y) => x - y);
  if (rng() < 0.3) body.title = after.title = `${task.state.title.split(' ~')[0]} ~${label}`;
  if (rng() < 0.3) body.description = after.description = rng() < 0.5 ? null : `edited by ${label}`;
  if (rng() < 0.3) body.priority = after.priority = pick(rng, PRIORITIES);
  if (rng() < 0.3) body.dueDate = after.dueDate = rng() < 0.3 ? null : randomDate(rng);
  return { kind: 'patchTask', task, body, after };
}

export interface Sent {
  status: number;
  body: any;
}

/** Sends one write; rejects only when no complete response arrived (connection refused or cut). */
export async function sendWrite(
  baseUrl: string,
  key: string,
  write: Write,
  extraHeaders: Record<string, string> = {},
): Promise<Sent> {
  const [method, path, body] =
    write.kind === 'createTask'
      ? ['POST', '/v1/tasks', write.body]
      : write.kind === 'patchTask'
        ? ['PATCH', `/v1/tasks/${write.task.id}`, write.body]
        : write.kind === 'deleteTask'
          ? ['DELETE', `/v1/tasks/${write.task.id}`, undefined]
          : ['POST', '/v1/lists', { name: write.name, color: write.color }];
  const headers: Record<string, string> = { ...extraHeaders, 'x-api-key': key };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(baseUrl + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** Records an acknowledged write in the model; returns a problem when the answer itself is wrong. */
export function applyAcknowledged(model: Model, write: Write, sent: Sent): string | null {
  const expected = write.kind === 'createTask' || write.kind === 'createList' ? 201 : 200;
  if (sent.status !== expected) return `${write.kind} answered ${sent.status} ${JSON.stringify(sent.body)}`;
  switch (write.kind) {
    case 'createTask': {
      const got = stateOf(sent.body);
      model.tasks.set(sent.body.id, { id: sent.body.id, number: sent.body.number, owner: write.owner, state: got });
      const same = JSON.stringify(got) === JSON.stringify(write.state);
      return same ? null : `create answered ${JSON.stringify(got)} for ${JSON.stringify(write.state)}`;
    }
    case 'patchTask':
      write.task.state = write.after;
      return null;
    case 'deleteTask':
      model.applyDelete(write.task);
      return null;
    case 'createList':
      model.lists.set(sent.body.id, { id: sent.body.id, name: write.name, color: write.color });
      return null;
  }
}

export interface BurstOptions {
  baseUrl: string;
  key: string;
  model: Model;
  team: Team;
  writers: number;
  seed: number;
  /** Prefix of every title and name written, unique per round. */
  label: string;
  /**
   * `kill` is called this many milliseconds after the burst's write number `writes` was sent (the
   * server answers in a few milliseconds, while the client reads answers late: timed from a send,
   * the kill lands while the server is at work, not when it is idle waiting for the next request).
   */
  killAfter: { writes: number; ms: number };
  kill: () => void;
}

/**
 * Runs the writers until the server dies under them (or each has made 200 writes). Returns the
 * problems seen in answers (a non-2xx or a wrong body); writes left unanswered go to `model.pending`.
 */
export async function runBurst(options: BurstOptions): Promise<{ acknowledged: number; problems: string[] }> {
  const { model } = options;
  let acknowledged = 0;
  let sentCount = 0;
  const problems: string[] = [];
  model.pending = [];
  const writer = async (owner: number) => {
    const rng = seededRng(options.seed * 31 + owner);
    for (let n = 0; n < 200; n++) {
      const write = planWrite(rng, model, options.team, owner, `${options.label} w${owner} #${n}`);
      if (++sentCount === options.killAfter.writes) setTimeout(options.kill, options.killAfter.ms);
      let sent: Sent;
      try {
        sent = await sendWrite(options.baseUrl, options.key, write);
      } catch {
        model.pending.push(write); // no complete answer: the server died under it
        return;
      }
      const problem = applyAcknowledged(model, write, sent);
      if (problem) return void problems.push(problem);
      acknowledged++;
    }
  };
  await Promise.all(Array.from({ length: options.writers }, (_, owner) => writer(owner)));
  return { acknowledged, problems };
}
