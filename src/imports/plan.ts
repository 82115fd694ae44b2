/**
 * Reads a file's items into an import's rows and makes its plan (issue 32): what will be created,
 * matched, updated, left unchanged or skipped, with counts and the first rows of each kind; the
 * people the file names who are not members; and every problem with its line. Nothing of the
 * team is written: only the import's own rows.
 *
 * The items are checked in file order, so that a task names only lists and parents the file
 * gave before it; a status or label a task names that neither the file nor the team has is
 * planned as a new one, just before the task. Refs are looked up a chunk at a time.
 */
import type { Caller } from '../caller.js';
import {
  IMPORT_KINDS,
  MAX_LISTED_PROBLEMS,
  PLAN_FIRST_ROWS,
  type ImportAction,
  type ImportKind,
  type ImportPlan,
  type KindPlan,
} from '../contract/index.js';
import { MAX_TITLE_LENGTH } from '../contract/tasks.js';
import { MAX_COMMENT_LENGTH } from '../contract/comments.js';
import type { Store } from '../storage/database.js';
import { insertRows, objectsOfRefs } from './imports.repository.js';
import { actionFor, stillThere, TeamIndex, type ObjectItem } from './matching.js';
import type { ImportSourceName, SourceItem, SourcePerson, SourceTask } from './sources/source-items.js';

/** Items checked against the team, and written as rows, per round trip. */
const CHUNK = 500;
/** Unknown people a plan lists, at most. */
const MAX_LISTED_PEOPLE = 100;

const emptyKind = (): KindPlan => ({ create: 0, update: 0, match: 0, unchanged: 0, skip: 0, first: [] });

export const nameOf = (item: ObjectItem): string =>
  item.kind === 'task' ? item.title : item.kind === 'comment' ? item.body.slice(0, 80) : item.name;

/** Counts per kind and action, with the first rows of each kind, and the problems. */
export class PlanTally {
  readonly kinds = Object.fromEntries(IMPORT_KINDS.map((kind) => [kind, emptyKind()])) as Record<ImportKind, KindPlan>;
  readonly problems: { line: number; message: string }[] = [];
  problemCount = 0;

  count(item: ObjectItem, action: ImportAction): void {
    const plan = this.kinds[item.kind];
    plan[action] += 1;
    if (plan.first.length < PLAN_FIRST_ROWS) plan.first.push({ line: item.line, action, name: nameOf(item) });
  }

  problem(line: number, message: string): void {
    this.problemCount += 1;
    if (this.problems.length < MAX_LISTED_PROBLEMS) this.problems.push({ line, message });
  }
}

export interface PlannedImport {
  plan: ImportPlan;
  rows: number;
}

export async function planImport(
  store: Store,
  caller: Caller,
  importId: number,
  source: ImportSourceName,
  items: AsyncIterable<SourceItem>,
): Promise<PlannedImport> {
  const index = await TeamIndex.load(store, caller);
  const tally = new PlanTally();
  const unknownPeople = new Map<string, ImportPlan['people']['unknown'][number]>();
  let matchedPeople = 0;
  const matched = new Set<string>();
  const seen = {
    statuses: new Set<string>(),
    labels: new Set<string>(),
    lists: new Set<string>(),
    tasks: new Set<string>(),
  };
  const nameKey = (name: string) => name.trim().toLowerCase();

  const person = (who: SourcePerson | null, line: number): boolean => {
    if (!who) return false;
    const member = index.member(who);
    if (member) {
      if (!matched.has(member.id)) {
        matched.add(member.id);
        matchedPeople += 1;
      }
      return true;
    }
    const id = who.email?.toLowerCase() ?? `name:${who.name ?? ''}`;
    const known = unknownPeople.get(id);
    if (known) known.count += 1;
    else if (unknownPeople.size < MAX_LISTED_PEOPLE) {
      unknownPeople.set(id, { name: who.name, email: who.email, line, count: 1 });
    }
    return false;
  };

  let chunk: ObjectItem[] = [];
  let written = 0;
  const flush = async () => {
    const known = await objectsOfRefs(
      store.db,
      caller.teamId,
      chunk.map((item) => item.ref),
    );
    const there = await stillThere(store.db, caller.teamId, [...known.values()]);
    for (const item of chunk) {
      const action = actionFor(item, { object: known.get(item.ref), exists: there.has(item.ref) }, index);
      tally.count(item, action);
    }
    await insertRows(store.db, importId, written + 1, chunk);
    written += chunk.length;
    chunk = [];
  };
  const add = async (item: ObjectItem) => {
    chunk.push(item);
    if (chunk.length >= CHUNK) await flush();
  };

  /** A task's references to what the file gave before it, and to people; fixed where they cannot hold. */
  const checkTask = async (task: SourceTask) => {
    if (task.title.length > MAX_TITLE_LENGTH) {
      tally.problem(
        task.line,
        `The title is ${task.title.length} characters long; it is shortened to ${MAX_TITLE_LENGTH}.`,
      );
      task.title = task.title.slice(0, MAX_TITLE_LENGTH);
    }
    const missingLists = task.listRefs.filter((ref) => !seen.lists.has(ref));
    if (missingLists.length > 0) {
      tally.problem(task.line, `The task names a list the file does not have; it is left out of it.`);
      task.listRefs = task.listRefs.filter((ref) => seen.lists.has(ref));
    }
    if (task.parentRef !== null && !seen.tasks.has(task.parentRef)) {
      tally.problem(
        task.line,
        'The task is a subtask of a task the file does not have before it; it is imported as a task of its own.',
      );
      task.parentRef = null;
    }
    for (const assignee of task.assignees) {
      if (!person(assignee, task.line)) {
        tally.problem(
          task.line,
          `${describe(assignee)} is not a member of this team; the task is not assigned to them.`,
        );
      }
    }
    if (task.statusName !== null && !seen.statuses.has(nameKey(task.statusName)) && !index.status(task.statusName)) {
      seen.statuses.add(nameKey(task.statusName));
      await add({
        kind: 'status',
        ref: `${source}:status:${nameKey(task.statusName)}`,
        line: task.line,
        name: task.statusName.trim(),
        color: null,
        isCompleted: task.completed,
      });
    }
    for (const name of task.labelNames) {
      if (!seen.labels.has(nameKey(name)) && !index.label(name)) {
        seen.labels.add(nameKey(name));
        await add({
          kind: 'label',
          ref: `${source}:label:${nameKey(name)}`,
          line: task.line,
          name: name.trim(),
          color: null,
        });
      }
    }
  };

  for await (const item of items) {
    switch (item.kind) {
      case 'problem':
        tally.problem(item.line, item.message);
        continue;
      case 'status':
        seen.statuses.add(nameKey(item.name));
        break;
      case 'label':
        seen.labels.add(nameKey(item.name));
        break;
      case 'list':
        seen.lists.add(item.ref);
        for (const member of item.members) {
          if (!person(member, item.line)) {
            tally.problem(
              item.line,
              `${describe(member)} is not a member of this team; they are not added to the list.`,
            );
          }
        }
        break;
      case 'task':
        await checkTask(item);
        seen.tasks.add(item.ref);
        break;
      case 'comment':
        if (!seen.tasks.has(item.taskRef)) {
          tally.problem(item.line, 'The comment is on a task the file does not have; it is skipped.');
          continue;
        }
        if (item.body.length > MAX_COMMENT_LENGTH) {
          tally.problem(
            item.line,
            `The comment is ${item.body.length} characters long; it is shortened to ${MAX_COMMENT_LENGTH}.`,
          );
          item.body = item.body.slice(0, MAX_COMMENT_LENGTH);
        }
        if (item.author && !person(item.author, item.line)) {
          tally.problem(
            item.line,
            `${describe(item.author)} is not a member of this team; the comment is written by you, naming them.`,
          );
        }
        break;
    }
    await add(item);
  }
  await flush();
  tally.problems.sort((a, b) => a.line - b.line);
  return {
    plan: {
      kinds: tally.kinds,
      people: { matched: matchedPeople, unknown: [...unknownPeople.values()] },
      problems: tally.problems,
      problemCount: tally.problemCount,
    },
    rows: written,
  };
}

export function describe(person: SourcePerson): string {
  if (person.email && person.name) return `${person.name} <${person.email}>`;
  return person.email ?? person.name ?? 'Someone';
}
