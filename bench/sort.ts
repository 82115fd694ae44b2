/**
 * Issue 29: GET /v1/tasks?sort= at scale. Fills (or reuses) a database of the benchmark's shape
 * (generate.ts: two teams of N tasks each), then for every sort, both directions, and two callers
 * (team A's owner, a member of every list; and a member of 20 lists), times the first page of 50
 * and the page 20 pages in (from the cursor of the 19th), through the service's own planner
 * (task-query.ts, `findPage`), and prints each first page's query plan (EXPLAIN QUERY PLAN on
 * SQLite; EXPLAIN (ANALYZE, BUFFERS) on PostgreSQL).
 *
 *   npx tsx bench/sort.ts <database url> <tasks per team>     (an empty database is filled first)
 */
import { CompiledQuery, DefaultQueryExecutor } from 'kysely';
import { TASK_SORT_KEYS } from '../src/contract/index.js';
import { openStore } from '../src/storage/database.js';
import { isPostgres } from '../src/storage/dialect.js';
import type { Caller } from '../src/caller.js';
import { findPage, type SortPosition, type TaskFilter } from '../src/tasks/task-query.js';
import { generateDataset } from './generate.js';

const [url, size] = process.argv.slice(2);
if (!url || !size) throw new Error('usage: tsx bench/sort.ts <database url> <tasks per team>');

// Every statement the planner runs, to EXPLAIN the first page's.
const seen: CompiledQuery[] = [];
const execute = DefaultQueryExecutor.prototype.executeQuery;
DefaultQueryExecutor.prototype.executeQuery = function (this: DefaultQueryExecutor, compiled: CompiledQuery) {
  seen.push(compiled);
  return execute.call(this, compiled);
} as typeof execute;

const store = openStore(url, { poolSize: 2, statementTimeoutMs: 600_000 });
const tasks = await store.db
  .selectFrom('tasks')
  .select((eb) => eb.fn.countAll<number>().as('n'))
  .executeTakeFirst()
  .catch(() => undefined);
if (!tasks || Number(tasks.n) === 0) {
  const started = performance.now();
  await generateDataset(url, Number(size), (done) => process.stderr.write(`\r${done} tasks`));
  console.error(`\ngenerated in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}
const postgres = isPostgres(store.db);
await store.db.executeQuery(CompiledQuery.raw('analyze'));
const team = await store.db
  .selectFrom('teams')
  .select('id')
  .where('name', '=', 'Bench team A')
  .executeTakeFirstOrThrow();
const members = await store.db
  .selectFrom('team_members')
  .select(['user_id', 'role'])
  .where('team_id', '=', team.id)
  .orderBy('created_at')
  .orderBy('user_id')
  .execute();
const owner = members.find((m) => m.role === 'owner')!.user_id;
const member = members.find((m) => m.role !== 'owner')!.user_id;

async function timed(run: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[2]!;
}

console.log(`| sort | caller | first page of 50 (ms, median of 5) | page 20 (ms) |`);
console.log(`|---|---|---:|---:|`);
// The published order (no sort, no cursor) beside them, on the same data and machine.
for (const [who, userId] of [
  ['owner', owner],
  ['member', member],
] as const) {
  const caller: Caller = { userId, teamId: team.id, role: 'member', credential: { kind: 'key', id: 'bench' } };
  const first = await timed(() => findPage(store.db, caller, { limit: 50 }));
  console.log(`| (none: newest first) | ${who} | ${first.toFixed(1)} | n/a |`);
}
const plans: string[] = [];
for (const key of TASK_SORT_KEYS) {
  for (const descending of [false, true]) {
    for (const [who, userId] of [
      ['owner', owner],
      ['member', member],
    ] as const) {
      const caller: Caller = { userId, teamId: team.id, role: 'member', credential: { kind: 'key', id: 'bench' } };
      const filter = (after?: SortPosition): TaskFilter => ({ limit: 50, sort: { key, descending, after } });
      let after: SortPosition | undefined;
      for (let page = 1; page < 20; page++) after = (await findPage(store.db, caller, filter(after))).next;
      const first = await timed(() => findPage(store.db, caller, filter()));
      const deep = await timed(() => findPage(store.db, caller, filter(after)));
      console.log(`| ${descending ? '-' : ''}${key} | ${who} | ${first.toFixed(1)} | ${deep.toFixed(1)} |`);
      if (who === 'owner') {
        seen.length = 0;
        await findPage(store.db, caller, filter(after));
        const statement = seen[0]!;
        const explain = postgres ? 'explain (analyze, buffers, costs off) ' : 'explain query plan ';
        const { rows } = await store.db.executeQuery<Record<string, unknown>>(
          CompiledQuery.raw(explain + statement.sql, [...statement.parameters]),
        );
        const lines = rows.map((r) =>
          postgres ? String(r['QUERY PLAN']) : `${'  '.repeat(Number(r.parent) ? 1 : 0)}${String(r.detail)}`,
        );
        plans.push(`sort=${descending ? '-' : ''}${key}, page 20 from its cursor:\n${lines.join('\n')}`);
      }
    }
  }
}
console.log(`\n${plans.join('\n\n')}`);
await store.close();
