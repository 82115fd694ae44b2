/**
 * After a crash and restart: settles each write left pending by the kill (wholly applied or
 * wholly absent, never in between) and then checks that the server shows exactly what it
 * acknowledged. Returns every problem found, so one failing run shows all of them.
 */
import type { Db } from '../src/storage/schema.js';
import { stateOf, type Model, type TaskState, type Write } from './crash-workload.js';

export interface ReconcileOptions {
  baseUrl: string;
  key: string;
  db: Db;
  teamId: string;
  model: Model;
}

const same = (a: TaskState, b: TaskState) => JSON.stringify(a) === JSON.stringify(b);

async function getJson(options: ReconcileOptions, path: string): Promise<{ status: number; body: any }> {
  const response = await fetch(options.baseUrl + path, { headers: { 'x-api-key': options.key } });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** Runs `work` over `items`, a few at a time. */
async function eachLimited<T>(items: T[], work: (item: T) => Promise<void>, limit = 16): Promise<void> {
  let next = 0;
  const run = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: limit }, run));
}

async function settlePending(
  options: ReconcileOptions,
  write: Write,
  tasks: { id: number; title: string; number: number }[],
  lists: { id: number; name: string }[],
  problems: string[],
): Promise<boolean> {
  const { model } = options;
  switch (write.kind) {
    case 'createList': {
      const found = lists.filter((list) => list.name === write.name);
      if (found.length > 1) problems.push(`unacknowledged list "${write.name}" was created ${found.length} times`);
      if (found[0]) model.lists.set(found[0].id, { id: found[0].id, name: write.name, color: write.color });
      return found.length > 0;
    }
    case 'createTask': {
      const found = tasks.filter((task) => task.title === write.state.title && !model.tasks.has(task.id));
      if (found.length > 1) problems.push(`unacknowledged task "${write.state.title}" exists ${found.length} times`);
      // Its content is checked with the acknowledged tasks: present means wholly present.
      if (found[0]) model.tasks.set(found[0].id, { ...found[0], owner: write.owner, state: write.state });
      return found.length > 0;
    }
    case 'deleteTask': {
      const gone = !tasks.some((task) => task.id === write.task.id);
      if (gone) model.applyDelete(write.task);
      return gone;
    }
    case 'patchTask': {
      const { status, body } = await getJson(options, `/v1/tasks/${write.task.id}`);
      if (status !== 200) {
        problems.push(`task ${write.task.id} under an unacknowledged patch answers ${status}`);
        return false;
      }
      const now = stateOf(body);
      if (same(now, write.after)) {
        write.task.state = write.after;
        return true;
      }
      if (!same(now, write.task.state)) {
        problems.push(
          `task ${write.task.id} is half-patched: ${JSON.stringify(now)}; before ${JSON.stringify(write.task.state)}; ` +
            `after ${JSON.stringify(write.after)}`,
        );
      }
      return false;
    }
  }
}

export interface Reconciled {
  problems: string[];
  /** Writes the kill left unanswered, and how many of them turned out applied. */
  pending: number;
  applied: number;
}

export async function reconcile(options: ReconcileOptions): Promise<Reconciled> {
  const { db, teamId, model } = options;
  const problems: string[] = [];
  const tasks = await db.selectFrom('tasks').select(['id', 'title', 'number']).where('team_id', '=', teamId).execute();
  const lists = await db.selectFrom('task_lists').select(['id', 'name']).where('team_id', '=', teamId).execute();
  const pending = model.pending.length;
  let applied = 0;
  for (const write of model.pending) if (await settlePending(options, write, tasks, lists, problems)) applied++;
  model.pending = [];

  for (const task of tasks) {
    if (model.deleted.has(task.id)) problems.push(`task ${task.id} is back after its delete was acknowledged`);
    else if (!model.tasks.has(task.id)) problems.push(`task ${task.id} "${task.title}" was never written`);
  }
  for (const list of lists) {
    if (!model.lists.has(list.id)) problems.push(`list ${list.id} "${list.name}" was never written`);
  }

  await eachLimited([...model.tasks.values()], async (task) => {
    const { status, body } = await getJson(options, `/v1/tasks/${task.id}`);
    if (status !== 200) return void problems.push(`acknowledged task ${task.id} answers ${status}`);
    if (body.number !== task.number) problems.push(`task ${task.id} has number ${body.number}, not ${task.number}`);
    if (!same(stateOf(body), task.state)) {
      problems.push(`task ${task.id} is ${JSON.stringify(stateOf(body))}, acknowledged ${JSON.stringify(task.state)}`);
    }
  });
  await eachLimited([...model.deleted.keys()], async (id) => {
    const { status } = await getJson(options, `/v1/tasks/${id}`);
    if (status !== 404) problems.push(`deleted task ${id} answers ${status}, not 404`);
  });

  const { body: shown } = await getJson(options, '/v1/lists');
  const shownLists = JSON.stringify(shown.map((l: any) => [l.id, l.name, l.color]).sort());
  const modelLists = JSON.stringify([...model.lists.values()].map((l) => [l.id, l.name, l.color]).sort());
  if (shownLists !== modelLists) problems.push(`GET /v1/lists shows ${shownLists}, acknowledged ${modelLists}`);

  // Numbers are gap-free: those of live and deleted tasks are exactly 1..task_counter.
  const { task_counter } = await db
    .selectFrom('teams')
    .select('task_counter')
    .where('id', '=', teamId)
    .executeTakeFirstOrThrow();
  const numbers = [...[...model.tasks.values()].map((t) => t.number), ...model.deleted.values()].sort((a, b) => a - b);
  const expected = Array.from({ length: Number(task_counter) }, (_, i) => i + 1);
  if (JSON.stringify(numbers) !== JSON.stringify(expected)) {
    problems.push(`task numbers ${JSON.stringify(numbers)} are not 1..${task_counter}`);
  }
  return { problems, pending, applied };
}
