/**
 * After the run: what the load was told against what the database holds.
 *
 * - An acknowledged create must exist exactly once (a retry with the same Idempotency-Key must
 *   not make a second task); a refused one must not exist; one whose outcome is unknown may
 *   exist at most once.
 * - A task's stored title must be its last acknowledged one, or one attempted after it whose
 *   answer was lost. Anything else is an acknowledged write lost (or a write nobody made).
 * - The task only bad requests touched must be as it was created.
 */
import { openStore } from '../../src/storage/database.js';
import type { Book } from './load.js';
import type { SoakTeam } from './team.js';

export interface WriteCheck {
  acknowledgedCreates: number;
  /** Tasks with at least one acknowledged patch after their create. */
  patchedTasks: number;
  lostCreates: string[];
  /** Tasks whose stored title is neither the last acknowledged one nor one attempted after it. */
  lostPatches: string[];
  duplicatedCreates: string[];
  refusedButStored: string[];
  doubtfulStored: number;
  doubtfulAbsent: number;
  tasksWithDoubt: number;
  targetChanged: string | null;
}

export async function checkWrites(databaseUrl: string, team: SoakTeam, book: Book): Promise<WriteCheck> {
  const store = openStore(databaseUrl, { poolSize: 1 });
  let rows: { id: number; title: string; version: number }[];
  try {
    rows = await store.db
      .selectFrom('tasks')
      .select(['id', 'title', 'version'])
      .where('team_id', '=', team.id)
      .execute();
  } finally {
    await store.close();
  }
  const byId = new Map(rows.map((row) => [Number(row.id), row]));
  /** Each task's create title: titles are `soak w<worker> c<n>` and patches append ` p<n>`. */
  const createTitle = (title: string) => title.split(' p')[0]!;
  const stored = new Map<string, number>();
  for (const row of rows) stored.set(createTitle(row.title), (stored.get(createTitle(row.title)) ?? 0) + 1);

  const check: WriteCheck = {
    acknowledgedCreates: book.tasks.length,
    patchedTasks: book.tasks.filter((t) => t.title.includes(' p')).length,
    lostCreates: [],
    lostPatches: [],
    duplicatedCreates: [],
    refusedButStored: [],
    doubtfulStored: 0,
    doubtfulAbsent: 0,
    tasksWithDoubt: book.tasks.filter((t) => t.doubt.length > 0).length,
    targetChanged: null,
  };
  for (const task of book.tasks) {
    const row = byId.get(task.id);
    const name = createTitle(task.title);
    if (!row) {
      check.lostCreates.push(`task ${task.id} ("${name}")`);
      continue;
    }
    if ((stored.get(name) ?? 0) > 1) check.duplicatedCreates.push(`"${name}" stored ${stored.get(name)} times`);
    if (row.title !== task.title && !task.doubt.includes(row.title)) {
      check.lostPatches.push(
        `task ${task.id}: stored "${row.title}", last acknowledged "${task.title}"` +
          (task.doubt.length > 0 ? `, attempted after it ${JSON.stringify(task.doubt)}` : ''),
      );
    }
  }
  for (const title of book.refusedCreates) if (stored.has(title)) check.refusedButStored.push(`"${title}"`);
  for (const title of book.doubtfulCreates) {
    const count = stored.get(title) ?? 0;
    if (count > 1) check.duplicatedCreates.push(`"${title}" (outcome unknown) stored ${count} times`);
    if (count > 0) check.doubtfulStored++;
    else check.doubtfulAbsent++;
  }
  const target = byId.get(team.target.id);
  if (!target) check.targetChanged = `task ${team.target.id} is gone`;
  else if (target.title !== team.target.title || Number(target.version) !== 1) {
    check.targetChanged = `task ${team.target.id} is now "${target.title}", version ${target.version}`;
  }
  return check;
}

/** The promises this check can break, as problem lines (empty when all held). */
export function writeProblems(check: WriteCheck): string[] {
  const list = (items: string[]) =>
    items.slice(0, 10).join('; ') + (items.length > 10 ? `; … ${items.length - 10} more` : '');
  const problems: string[] = [];
  if (check.lostCreates.length > 0)
    problems.push(
      `${check.lostCreates.length} acknowledged creates missing from the database: ${list(check.lostCreates)}`,
    );
  if (check.lostPatches.length > 0)
    problems.push(`${check.lostPatches.length} tasks lost an acknowledged patch: ${list(check.lostPatches)}`);
  if (check.duplicatedCreates.length > 0)
    problems.push(`${check.duplicatedCreates.length} creates stored more than once: ${list(check.duplicatedCreates)}`);
  if (check.refusedButStored.length > 0)
    problems.push(
      `${check.refusedButStored.length} refused creates were stored anyway: ${list(check.refusedButStored)}`,
    );
  if (check.targetChanged) problems.push(`bad requests changed data: ${check.targetChanged}`);
  return problems;
}
