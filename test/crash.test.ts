/**
 * Crash safety of the real server (`tasklane serve` in a child process) on the store under test:
 * a burst of concurrent writes, SIGKILL at a seeded moment after some were acknowledged, restart
 * on the same database, and then: every acknowledged write is there exactly as acknowledged,
 * every unanswered one is wholly there or wholly absent, nothing half-written or orphaned is
 * visible, and the engine's own integrity check passes. Replay a run with CRASH_SEED=<seed>.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomInt, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { test } from 'node:test';
import { openStore } from '../src/storage/database.js';
import { upsertMember } from '../src/team/teams.repository.js';
import { insertUser } from '../src/team/users.repository.js';
import { reconcile } from './crash-reconcile.js';
import { Model, runBurst, type Team } from './crash-workload.js';
import { seededRng } from './random.js';
import { Client, expectStatus, TEST_STORE, tempDatabase } from './harness.js';
import { consistencyProblems, engineIntegrityProblems } from './integrity.js';
import { killAll, printedKey, serve, type Serving } from './processes.js';

const ROUNDS = 3;
const WRITERS = 12;
const SERVER_ENV = { RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'error' };

const exitOf = (child: ChildProcess): Promise<unknown> =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : once(child, 'exit');

/** Opens its own connection to the database, runs `work`, and closes it. */
async function withStore<T>(url: string, work: (store: ReturnType<typeof openStore>) => Promise<T>): Promise<T> {
  const store = openStore(url, { poolSize: 2 });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** The bootstrap team with twelve more members and three lists, as the writers will use them. */
async function prepareTeam(url: string, server: Serving, key: string, model: Model): Promise<Team & { id: string }> {
  const api = new Client(server.url, key);
  const me = expectStatus(await api.get('/v1/me'), 200);
  const userIds = [me.user.id as string];
  await withStore(url, async (store) => {
    for (let n = 1; n <= 12; n++) {
      const email = `${randomUUID()}@example.test`;
      const user = await insertUser(store.db, { email, name: `Member ${n}`, passwordHash: null });
      await upsertMember(store.db, me.team.id, user.id, 'member');
      userIds.push(user.id);
    }
  });
  for (const name of ['Inbox', 'Launch', 'Later']) {
    const list = expectStatus(await api.post('/v1/lists', { name, color: 'Blue' }), 201);
    model.lists.set(list.id, { id: list.id, name, color: 'Blue' });
  }
  const statuses: { id: number; isDefault: boolean }[] = expectStatus(await api.get('/v1/task-statuses'), 200);
  return {
    id: me.team.id,
    userIds,
    statusIds: statuses.map((s) => s.id),
    defaultStatusId: statuses.find((s) => s.isDefault)!.id,
  };
}

test(
  `${TEST_STORE}: SIGKILL during a burst of writes loses no acknowledged write, shows nothing half-written, ` +
    'and leaves a database that passes its integrity check (3 kills)',
  { timeout: 120_000 },
  async (t) => {
    const seed = Number(process.env.CRASH_SEED ?? randomInt(2 ** 31));
    t.diagnostic(`CRASH_SEED=${seed}`);
    const rng = seededRng(seed);
    const database = await tempDatabase();
    const model = new Model();
    try {
      let server = await serve(database.url, SERVER_ENV);
      const { key } = printedKey(server.stdout());
      const team = await prepareTeam(database.url, server, key, model);

      for (let round = 1; round <= ROUNDS; round++) {
        const killAfter = { writes: 30 + Math.floor(rng() * 60), ms: rng() * 10 };
        const killed = server;
        const exited = exitOf(killed.child);
        const burst = await runBurst({
          baseUrl: server.url,
          key,
          model,
          team,
          writers: WRITERS,
          seed: seed + round,
          label: `r${round}`,
          killAfter,
          kill: () => killed.child.kill('SIGKILL'),
        });
        assert.deepEqual(burst.problems, [], `CRASH_SEED=${seed} round ${round}: wrong answers during the burst`);
        assert.ok(
          burst.acknowledged >= 10,
          `round ${round}: only ${burst.acknowledged} writes acknowledged before the kill`,
        );
        await exited;
        assert.equal(killed.child.signalCode, 'SIGKILL', `round ${round}: the server exited on its own`);

        // The database exactly as the crash left it, before the server opens it again.
        const damage = await withStore(database.url, async (store) => [
          ...(await engineIntegrityProblems(store)),
          ...(await consistencyProblems(store)),
        ]);
        assert.deepEqual(damage, [], `CRASH_SEED=${seed} round ${round}: the crash left a damaged database`);

        server = await serve(database.url, SERVER_ENV);
        const settled = await withStore(database.url, (store) =>
          reconcile({ baseUrl: server.url, key, db: store.db, teamId: team.id, model }),
        );
        t.diagnostic(
          `round ${round}: ${burst.acknowledged} writes acknowledged, ${settled.pending} unanswered at the kill, ` +
            `${settled.applied} of them applied; ${model.tasks.size} tasks, ${model.deleted.size} deleted`,
        );
        assert.deepEqual(settled.problems, [], `CRASH_SEED=${seed} round ${round}: after restart`);
      }
      assert.equal(await server.stop(), 0, server.stderr());
    } finally {
      killAll();
      await database.remove();
    }
  },
);
