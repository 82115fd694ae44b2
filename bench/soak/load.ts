/**
 * The soak's request load: workers that create, patch and read tasks, a trickle of sign-ins
 * (sign in, read the session, sign out), and a few bad requests a minute.
 *
 * Each worker owns the tasks it created, so a task's patches are sequential and the book below
 * knows, for every task, the last acknowledged title and the titles attempted after it whose
 * answers were lost: the stored title must be one of those. Creates carry an Idempotency-Key
 * and are retried (same key, same body) while a fault lasts, as a careful client would.
 */
import { randomBytes } from 'node:crypto';
import { generateApiKey } from '../../src/keys/key-format.js';
import { sleep } from '../support.js';
import { inDoubt, send, type Result } from './client.js';
import type { Fleet } from './fleet.js';
import { now, type Ledger } from './ledger.js';
import type { SoakTeam } from './team.js';

export interface TaskRecord {
  id: number;
  /** The last acknowledged title (the create's, then each 200 patch's). */
  title: string;
  /** Titles attempted after it whose answers were lost: any of them may be stored. */
  doubt: string[];
  /** The ETag of the last acknowledged version, unless a later attempt's outcome is unknown. */
  etag: string | null;
}

/** What the load did to the data, for the final check against the database. */
export class Book {
  readonly tasks: TaskRecord[] = [];
  /** Creates never acknowledged after an attempt whose outcome is unknown: 0 or 1 may exist. */
  readonly doubtfulCreates: string[] = [];
  /** Creates refused outright (a 4xx or 429 on every attempt): none may exist. */
  readonly refusedCreates: string[] = [];
  /** Acknowledged creates whose acknowledgement was a replay of an earlier attempt (Idempotent-Replayed). */
  replayedCreates = 0;
  createRetries = 0;
}

export interface LoadOptions {
  workers: number;
  /** Requests a second each worker aims at (it goes slower if the server does). */
  perWorkerRate: number;
}

interface Context {
  fleet: Fleet;
  ledger: Ledger;
  team: SoakTeam;
  book: Book;
  stopped: () => boolean;
  runId: string;
}

/** A create is retried this long at most (a fault window is shorter). */
const CREATE_RETRY_MS = 30_000;
const SIGN_IN_EVERY_MS = 6_000;
const BAD_REQUEST_EVERY_MS = 5_000;

const pickOne = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)]!;

/** Runs the load until `stopped()` is true; resolves once every loop has finished its request. */
export async function runLoad(
  fleet: Fleet,
  ledger: Ledger,
  team: SoakTeam,
  book: Book,
  options: LoadOptions,
  stopped: () => boolean,
): Promise<void> {
  const context: Context = { fleet, ledger, team, book, stopped, runId: randomBytes(4).toString('hex') };
  await Promise.all([
    ...Array.from({ length: options.workers }, (_, w) => worker(context, w, options.perWorkerRate)),
    every(SIGN_IN_EVERY_MS, stopped, (i) => signIn(context, i)),
    every(BAD_REQUEST_EVERY_MS, stopped, (i) => badRequest(context, i)),
  ]);
}

async function every(ms: number, stopped: () => boolean, work: (i: number) => Promise<void>): Promise<void> {
  for (let i = 0; !stopped(); i++) {
    const next = now() + ms;
    await work(i);
    while (!stopped() && now() < next) await sleep(Math.min(250, next - now()));
  }
}

async function worker(context: Context, w: number, rate: number): Promise<void> {
  const user = context.team.users[w % context.team.users.length]!;
  const mine: TaskRecord[] = [];
  const interval = 1000 / rate;
  let counter = 0;
  let next = now();
  while (!context.stopped()) {
    const roll = Math.random();
    if (mine.length < 2 || roll < 0.2) await create(context, user.key, mine, `soak w${w} c${counter++}`);
    else if (roll < 0.55) await patch(context, user.key, pickOne(mine), counter++);
    else if (roll < 0.8) await read(context, user.key, pickOne(mine));
    else await listRead(context, user.key);
    next += interval;
    const wait = next - now();
    if (wait > 0) await sleep(wait);
    else if (wait < -10 * interval) next = now(); // fell behind (a fault, a slow machine): do not burst
  }
}

async function create(context: Context, key: string, mine: TaskRecord[], title: string): Promise<void> {
  const { fleet, ledger, team, book } = context;
  const idempotencyKey = `${context.runId}-${title}`;
  const giveUpAt = now() + CREATE_RETRY_MS;
  let doubtful = false;
  for (;;) {
    const result = await send(fleet, ledger, {
      op: 'create',
      method: 'POST',
      path: '/v1/tasks',
      expected: 201,
      key,
      body: { title, taskListIds: [team.listId] },
      headers: { 'idempotency-key': idempotencyKey },
    });
    if (result.answer?.status === 201) {
      const task = JSON.parse(result.answer.text) as { id: number };
      mine.push({ id: task.id, title, doubt: [], etag: etagOf(result) });
      book.tasks.push(mine[mine.length - 1]!);
      if (result.answer.headers['idempotent-replayed'] === 'true') book.replayedCreates++;
      return;
    }
    doubtful ||= inDoubt(result);
    const status = result.answer?.status;
    const retriable = status === undefined || status === 503 || status === 429 || status === 409;
    if (!retriable || now() > giveUpAt || context.stopped()) {
      (doubtful ? book.doubtfulCreates : book.refusedCreates).push(title);
      return;
    }
    book.createRetries++;
    await sleep(1_000);
  }
}

const etagOf = (result: Result): string | null => {
  const etag = result.answer?.headers.etag;
  return typeof etag === 'string' ? etag : null;
};

async function patch(context: Context, key: string, task: TaskRecord, n: number): Promise<void> {
  const title = `${task.title.split(' p')[0]} p${n}`;
  const ifMatch = task.etag !== null && Math.random() < 0.5;
  const result = await send(context.fleet, context.ledger, {
    op: ifMatch ? 'patch if-match' : 'patch',
    method: 'PATCH',
    path: `/v1/tasks/${task.id}`,
    expected: 200,
    key,
    body: { title },
    headers: ifMatch ? { 'if-match': task.etag! } : {},
  });
  if (result.answer?.status === 200) {
    task.title = title;
    task.doubt = [];
    task.etag = etagOf(result);
  } else if (inDoubt(result)) {
    task.doubt.push(title);
    task.etag = null;
  } else if (result.answer?.status === 412) {
    task.etag = null; // (a finding in itself: the worker is the task's only writer)
  }
}

/** Reads a task; its title must be the last acknowledged one, or one attempted after it. */
async function read(context: Context, key: string, task: TaskRecord): Promise<void> {
  const result = await send(context.fleet, context.ledger, {
    op: 'detail read',
    method: 'GET',
    path: `/v1/tasks/${task.id}`,
    expected: 200,
    key,
  });
  if (result.answer?.status !== 200) return;
  const { title } = JSON.parse(result.answer.text) as { title: string };
  if (title !== task.title && !task.doubt.includes(title)) {
    context.ledger.finding(
      `stale read on ${result.member}: task ${task.id} read "${title}", last acknowledged "${task.title}"` +
        (task.doubt.length > 0 ? ` (or one of ${JSON.stringify(task.doubt)})` : ''),
    );
  }
}

async function listRead(context: Context, key: string): Promise<void> {
  const result = await send(context.fleet, context.ledger, {
    op: 'list read',
    method: 'GET',
    path: `/v1/tasks?taskListId=${context.team.listId}&limit=200`,
    expected: 200,
    key,
  });
  if (result.answer?.status === 200) {
    const tasks = JSON.parse(result.answer.text) as unknown[];
    if (!Array.isArray(tasks) || tasks.length > 200) {
      context.ledger.finding(
        `list read on ${result.member} returned ${Array.isArray(tasks) ? tasks.length : 'no'} tasks`,
      );
    }
  }
}

/** Signs a user in with the right password, reads the session with its cookie, and signs out. */
async function signIn(context: Context, i: number): Promise<void> {
  const { fleet, ledger, team } = context;
  const user = team.users[i % team.users.length]!;
  const result = await send(fleet, ledger, {
    op: 'sign-in',
    method: 'POST',
    path: '/auth/sign-in',
    expected: 200,
    body: { email: user.email, password: user.password },
  });
  if (result.answer?.status !== 200) return;
  const cookie = String(result.answer.headers['set-cookie']?.[0] ?? '').split(';')[0]!;
  const { csrfToken } = JSON.parse(result.answer.text) as { csrfToken: string };
  await send(fleet, ledger, {
    op: 'session read',
    method: 'GET',
    path: '/auth/session',
    expected: 200,
    headers: { cookie },
  });
  await send(fleet, ledger, {
    op: 'sign-out',
    method: 'POST',
    path: '/auth/sign-out',
    expected: 200,
    headers: { cookie, 'x-csrf-token': csrfToken },
  });
}

/**
 * One bad request, in turn: an invalid create, a blank title for the target task, a task and a
 * list that do not exist, and (one in five, well inside the failed-authentication budget of 60
 * a minute per address) a well-formed key nobody has.
 */
async function badRequest(context: Context, i: number): Promise<void> {
  const { fleet, ledger, team } = context;
  const key = team.users[i % team.users.length]!.key;
  const requests = [
    {
      op: 'bad: 400 body' as const,
      method: 'POST',
      path: '/v1/tasks',
      expected: 400,
      key,
      body: { title: 'never stored', priority: 'someday', taskListIds: [team.listId] },
    },
    {
      op: 'bad: 400 body' as const,
      method: 'PATCH',
      path: `/v1/tasks/${team.target.id}`,
      expected: 400,
      key,
      body: { title: '   ' },
    },
    { op: 'bad: 404 id' as const, method: 'GET', path: '/v1/tasks/987654321', expected: 404, key },
    {
      op: 'bad: 404 id' as const,
      method: 'PATCH',
      path: '/v1/lists/987654321',
      expected: 404,
      key,
      body: { name: 'x' },
    },
    { op: 'bad: 401 key' as const, method: 'GET', path: '/v1/me', expected: 401, key: generateApiKey().key },
  ];
  await send(fleet, ledger, requests[i % requests.length]!);
}
