/**
 * What an item of a file becomes in the team: the one rule the plan shows and the apply follows
 * (the apply decides again, row by row, against the team as it is then).
 *
 * - A status, label or list the same ref made or matched before, still there: unchanged. One of
 *   the same name (any case; lists: one the importer is a member of, not archived): matched.
 *   Otherwise created.
 * - A task or comment the same ref made before, still there: unchanged when the source's object
 *   is the same as when it was last applied (its `source_hash`), else the task is updated (a
 *   comment stays as it is: only its author may edit one). Otherwise created.
 */
import { createHash } from 'node:crypto';
import type { Caller } from '../caller.js';
import type { ImportAction, ImportKind, TaskStatus } from '../contract/index.js';
import type { Label } from '../labels/labels.repository.js';
import { labelsOf } from '../labels/labels.service.js';
import { listLists } from '../lists/lists.service.js';
import { statusesOf } from '../statuses/statuses.service.js';
import type { Store } from '../storage/database.js';
import type { Db } from '../storage/schema.js';
import { listMembers, type MemberRecord } from '../team/teams.repository.js';
import type { ImportedObject } from './imports.repository.js';
import type { SourceItem, SourcePerson } from './sources/source-items.js';

export type ObjectItem = Exclude<SourceItem, { kind: 'problem' }>;

const key = (name: string) => name.trim().toLowerCase();

/** The team as an import sees it: what names and emails match. */
export class TeamIndex {
  private constructor(
    private readonly statuses: Map<string, TaskStatus>,
    private readonly labels: Map<string, Label>,
    private readonly lists: Map<string, number>,
    private readonly members: Map<string, MemberRecord>,
  ) {}

  static async load(store: Store, caller: Caller): Promise<TeamIndex> {
    const [statuses, labels, lists, members] = await Promise.all([
      statusesOf(store, caller),
      labelsOf(store, caller),
      listLists(store, caller),
      listMembers(store.db, caller.teamId),
    ]);
    return new TeamIndex(
      new Map(statuses.map((status) => [key(status.name), status])),
      new Map(labels.map((label) => [key(label.name), label])),
      new Map(lists.map((list) => [key(list.name), list.id])),
      new Map(members.map((member) => [key(member.email), member])),
    );
  }

  status(name: string): TaskStatus | undefined {
    return this.statuses.get(key(name));
  }
  addStatus(status: TaskStatus): void {
    this.statuses.set(key(status.name), status);
  }
  /** The status a task of the file without a status name goes to. */
  fallbackStatus(completed: boolean): TaskStatus | undefined {
    const all = [...this.statuses.values()].sort((a, b) => a.order - b.order);
    return completed ? all.find((s) => s.isCompleted) : (all.find((s) => s.isDefault) ?? all[0]);
  }
  label(name: string): Label | undefined {
    return this.labels.get(key(name));
  }
  addLabel(label: Label): void {
    this.labels.set(key(label.name), label);
  }
  list(name: string): number | undefined {
    return this.lists.get(key(name));
  }
  addList(name: string, id: number): void {
    this.lists.set(key(name), id);
  }
  member(person: SourcePerson | null): MemberRecord | undefined {
    return person?.email ? this.members.get(key(person.email)) : undefined;
  }
}

/** Whether the item's ref is known in the team already, and whether what it names is still there. */
export interface Known {
  object: ImportedObject | undefined;
  exists: boolean;
}

export function actionFor(item: ObjectItem, known: Known, index: TeamIndex): ImportAction {
  const again = known.object !== undefined && known.exists;
  switch (item.kind) {
    case 'status':
      return again ? 'unchanged' : index.status(item.name) ? 'match' : 'create';
    case 'label':
      return again ? 'unchanged' : index.label(item.name) ? 'match' : 'create';
    case 'list':
      return again ? 'unchanged' : index.list(item.name) !== undefined ? 'match' : 'create';
    case 'task':
      return again ? (known.object!.sourceHash === sourceHash(item) ? 'unchanged' : 'update') : 'create';
    case 'comment':
      return again ? 'unchanged' : 'create';
  }
}

/** The source's object, wherever it sits in the file: what tells a changed one from the same. */
export function sourceHash(item: ObjectItem): string {
  return createHash('sha256')
    .update(JSON.stringify({ ...item, line: undefined }))
    .digest('hex');
}

const TABLES = {
  status: 'task_statuses',
  label: 'labels',
  list: 'task_lists',
  task: 'tasks',
} as const;

/** Of the objects the refs name, those still in the team. */
export async function stillThere(db: Db, teamId: string, objects: readonly ImportedObject[]): Promise<Set<string>> {
  const there = new Set<string>();
  const byKind = new Map<ImportKind, ImportedObject[]>();
  for (const object of objects) byKind.set(object.kind, [...(byKind.get(object.kind) ?? []), object]);
  for (const [kind, ofKind] of byKind) {
    const ids = ofKind.map((object) => object.objectId);
    const found =
      kind === 'comment'
        ? await db
            .selectFrom('task_comments')
            .innerJoin('tasks', 'tasks.id', 'task_comments.task_id')
            .select('task_comments.id as id')
            .where('tasks.team_id', '=', teamId)
            .where('task_comments.id', 'in', ids)
            .execute()
        : await db.selectFrom(TABLES[kind]).select('id').where('team_id', '=', teamId).where('id', 'in', ids).execute();
    const foundIds = new Set(found.map((row) => Number(row.id)));
    for (const object of ofKind) if (foundIds.has(object.objectId)) there.add(object.ref);
  }
  return there;
}
