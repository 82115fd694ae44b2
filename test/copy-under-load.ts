/**
 * `tasklane migrate-data` run while a real server (`tasklane serve`, a child process) takes a
 * steady stream of task creates, patches and deletes and list creates, every POST with an
 * Idempotency-Key. The copy must be one consistent moment of the source: what the checks below
 * find in the target is exactly what some instant of the writes left, and nothing in between.
 */
import assert from 'node:assert/strict';
import { randomInt, randomUUID } from 'node:crypto';
import type { TestContext } from 'node:test';
import { openStore, type Store } from '../src/storage/database.js';
import { upsertMember } from '../src/team/teams.repository.js';
import { insertUser } from '../src/team/users.repository.js';
import { applyAcknowledged, Model, planWrite, sendWrite, type TaskState, type Team } from './crash-workload.js';
import { Client, expectStatus } from './harness.js';
import { consistencyProblems, engineIntegrityProblems } from './integrity.js';
import { summaryOf, tableChecksums } from './migrate-data-fixtures.js';
import { seededRng } from './random.js';
import { cliEnv, killAll, printedKey, runCli, serve } from './processes.js';

const SERVER_ENV = { RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'error' };
const WRITERS = 8;
/** Writes acknowledged before the copy starts, so the copy reads tables of some size while writes go on. */
const WARM_UP = 400;

async function withStore<T>(url: string, work: (store: Store) => Promise<T>): Promise<T> {
  const store = openStore(url, { poolSize: 2 });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** What the writers were told, as a history: each task's state at each version, and every number handed out. */
interface History {
  /** Task id → its state at version 1, 2, … (index version - 1). */
  states: Map<number, TaskState[]>;
  /** Task id → its number, deleted tasks included. */
  numbers: Map<number, number>;
}

const copyState = (state: TaskState): TaskState => ({ ...state });

/** The bootstrap team with eight more members and two lists, as the writers will use them. */
async function prepareTeam(url: string, api: Client, model: Model): Promise<Team> {
  const me = expectStatus(await api.get('/v1/me'), 200);
  const userIds = [me.user.id as string];
  await withStore(url, async (store) => {
    for (let n = 1; n <= 8; n++) {
      const user = await insertUser(store.db, {
        email: `${randomUUID()}@example.test`,
        name: `Member ${n}`,
        passwordHash: null,
      });
      await upsertMember(store.db, me.team.id, user.id, 'member');
      userIds.push(user.id);
    }
  });
  for (const name of ['Inbox', 'Launch']) {
    const list = expectStatus(
      await api.post('/v1/lists', { name, color: 'Blue' }, { 'idempotency-key': randomUUID() }),
      201,
    );
    model.lists.set(list.id, { id: list.id, name, color: 'Blue' });
  }
  const statuses: { id: number; isDefault: boolean }[] = expectStatus(await api.get('/v1/task-statuses'), 200);
  return { userIds, statusIds: statuses.map((s) => s.id), defaultStatusId: statuses.find((s) => s.isDefault)!.id };
}

/** Each task in the target as the API would show it, with its version. */
async function copiedTasks(db: Store['db']): Promise<Map<number, { version: number; state: TaskState }>> {
  const tasks = await db.selectFrom('tasks').selectAll().execute();
  const assignees = await db.selectFrom('task_assignees').selectAll().execute();
  const items = await db.selectFrom('task_list_items').selectAll().execute();
  const copied = new Map<number, { version: number; state: TaskState }>();
  for (const task of tasks) {
    copied.set(task.id, {
      version: Number(task.version),
      state: {
        title: task.title,
        description: task.description,
        priority: task.priority,
        dueDate: task.due_date,
        taskStatusId: task.status_id,
        assigneeIds: assignees
          .filter((a) => a.task_id === task.id)
          .map((a) => a.user_id)
          .sort(),
        taskListIds: items
          .filter((i) => i.task_id === task.id)
          .map((i) => i.list_id)
          .sort((x, y) => x - y),
        parentId: task.parent_id,
      },
    });
  }
  return copied;
}

/** Everything that shows the target is not one moment of the writes; empty when it is. */
async function snapshotProblems(target: Store, history: History): Promise<string[]> {
  const { db } = target;
  const problems = [...(await engineIntegrityProblems(target)), ...(await consistencyProblems(target))];

  // Every task is exactly as some acknowledged write left it at its version: its own columns,
  // its assignees and its list items all from that one moment.
  const tasks = await copiedTasks(db);
  for (const [id, { version, state }] of tasks) {
    const expected = history.states.get(id)?.[version - 1];
    if (!expected) problems.push(`task ${id} at version ${version} was never acknowledged at that version`);
    else if (JSON.stringify(state) !== JSON.stringify(expected)) {
      problems.push(
        `task ${id} at version ${version} is ${JSON.stringify(state)}, written as ${JSON.stringify(expected)}`,
      );
    }
  }

  // Task numbers are gap-free: those of live tasks and of tasks whose deletion the copy holds
  // are exactly 1..the team's counter.
  const deleted = await db
    .selectFrom('events')
    .select(['team_id', 'data'])
    .where('type', '=', 'task.deleted')
    .execute();
  for (const team of await db.selectFrom('teams').select(['id', 'task_counter']).execute()) {
    const live = await db.selectFrom('tasks').select('number').where('team_id', '=', team.id).execute();
    const gone = deleted
      .filter((event) => event.team_id === team.id)
      .map((event) => history.numbers.get((JSON.parse(event.data) as { taskId: number }).taskId) ?? -1);
    const numbers = [...live.map((task) => task.number), ...gone].sort((a, b) => a - b);
    const expected = Array.from({ length: Number(team.task_counter) }, (_, i) => i + 1);
    if (JSON.stringify(numbers) !== JSON.stringify(expected)) {
      problems.push(`team ${team.id}: task numbers ${JSON.stringify(numbers)} are not 1..${team.task_counter}`);
    }
  }

  // Every POST carried an Idempotency-Key, and its record commits with its change.
  const created = await db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('type', 'in', ['task.created', 'taskList.created'])
    .executeTakeFirstOrThrow();
  const records = await db
    .selectFrom('idempotency_keys')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  if (Number(records.n) !== Number(created.n)) {
    problems.push(`${records.n} idempotency records for ${created.n} created tasks and lists`);
  }
  return problems;
}

const count = async (store: Store, table: 'events' | 'tasks') =>
  Number(
    (
      await store.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

/**
 * Serves `sourceUrl`, keeps writers going, runs migrate-data into `targetUrl` in the middle of
 * them, and checks the target is one consistent moment of the source that the server went on from.
 */
export async function copyUnderLoad(t: TestContext, sourceUrl: string, targetUrl: string): Promise<void> {
  const seed = Number(process.env.COPY_SEED ?? randomInt(2 ** 31));
  t.diagnostic(`COPY_SEED=${seed}`);
  const server = await serve(sourceUrl, SERVER_ENV);
  try {
    const { key } = printedKey(server.stdout());
    const model = new Model();
    const team = await prepareTeam(sourceUrl, new Client(server.url, key), model);
    const history: History = { states: new Map(), numbers: new Map() };
    const problems: string[] = [];
    let acknowledged = 0;
    let stop = false;

    const writer = async (owner: number) => {
      const rng = seededRng(seed * 31 + owner);
      for (let n = 0; !stop && problems.length === 0; n++) {
        const write = planWrite(rng, model, team, owner, `w${owner} #${n}`);
        const orphaned =
          write.kind === 'deleteTask'
            ? [...model.tasks.values()].filter((task) => task.state.parentId === write.task.id)
            : [];
        const posts = write.kind === 'createTask' || write.kind === 'createList';
        const sent = await sendWrite(server.url, key, write, posts ? { 'idempotency-key': randomUUID() } : {});
        const problem = applyAcknowledged(model, write, sent);
        if (problem) return void problems.push(problem);
        acknowledged++;
        if (write.kind === 'createTask') {
          history.states.set(sent.body.id, [copyState(model.tasks.get(sent.body.id)!.state)]);
          history.numbers.set(sent.body.id, sent.body.number);
        } else if (write.kind === 'patchTask') {
          history.states.get(write.task.id)!.push(copyState(write.after));
        } else if (write.kind === 'deleteTask') {
          // Its subtasks became top-level tasks, one version later (applyDelete cleared their parent).
          for (const task of orphaned) history.states.get(task.id)!.push(copyState(task.state));
        }
      }
    };
    const writers = Promise.all(Array.from({ length: WRITERS }, (_, owner) => writer(owner)));

    while (acknowledged < WARM_UP && problems.length === 0) await new Promise((r) => setTimeout(r, 20));
    const before = acknowledged;
    const run = await runCli(['migrate-data', '--from', sourceUrl, '--to', targetUrl], cliEnv(sourceUrl));
    const during = acknowledged - before;
    stop = true;
    await writers;

    assert.deepEqual(problems, [], `COPY_SEED=${seed}: a write failed while the copy ran`);
    const summary = summaryOf(run);
    t.diagnostic(`${before} writes before the copy, ${during} while it ran; copied ${JSON.stringify(summary.copied)}`);
    assert.ok(during > 0, 'no write was acknowledged while migrate-data ran: the copy did not overlap the writes');

    const [sourceEvents, targetReport] = await Promise.all([
      withStore(sourceUrl, (store) => count(store, 'events')),
      withStore(targetUrl, async (target) => {
        assert.deepEqual(await snapshotProblems(target, history), [], `COPY_SEED=${seed}: the copy is not one moment`);
        return tableChecksums(target);
      }),
    ]);
    // The target holds exactly the rows the copy read from the source (counted and summed there).
    assert.deepEqual(targetReport.rows, summary.copied);
    assert.deepEqual(targetReport.checksums, summary.checksums);
    // …and the source went on without it: writes committed after the snapshot are not in the copy.
    assert.ok(
      sourceEvents > summary.copied.events!,
      `the source has ${sourceEvents} events, the copy ${summary.copied.events}: no write landed after the snapshot`,
    );
    assert.equal(await server.stop(), 0, server.stderr());
  } finally {
    killAll();
  }
}
