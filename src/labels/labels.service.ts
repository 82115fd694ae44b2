/**
 * Labels (issue 29): the team's list (GET /v1/labels, every member) and its changes, made by the
 * team's owners and admins (POST, PATCH, DELETE /v1/labels), as statuses are.
 *
 * Rules: a name is unique in the team ignoring case (409 for a second one); a team has at most
 * MAX_LABELS_PER_TEAM labels (400 past it). Renaming or recolouring a label gives each of its
 * tasks a new version (their answers show it) but no event of their own: nothing of the task
 * changed. Deleting a label takes it off its tasks in the same transaction, and each of those
 * tasks gets its activity entry (`labels` from/to) and its `task.updated` event. Every change
 * sends `label.created|updated|deleted` `{"labelId"}` to every member of the team, since every
 * member sees the team's labels.
 */
import type { Caller } from '../caller.js';
import { NO_AUDIENCE, recordEvent, usersAudience, type EventType } from '../changes/outbox.js';
import {
  DEFAULT_LABEL_COLOR,
  MAX_LABELS_PER_TEAM,
  type CreateLabelBody,
  type Label,
  type LabelDeleted,
  type UpdateLabelBody,
} from '../contract/labels.js';
import { conflict, invalidInput, notFound } from '../http/errors.js';
import { toId } from '../ids.js';
import type { Store } from '../storage/database.js';
import { isUniqueViolation } from '../storage/errors.js';
import type { Db } from '../storage/schema.js';
import { audiencesOfTasks } from '../tasks/access.js';
import { asManager, requireManager } from '../team/roles.js';
import { memberIdsOf } from '../team/teams.repository.js';
import * as labels from './labels.repository.js';
import * as taskLabels from './task-labels.repository.js';
import { viaOf } from '../changes/activity-entries.js';

const WHAT = 'labels';

export function labelsOf(store: Store, caller: Caller): Promise<Label[]> {
  return labels.listLabels(store.db, caller.teamId);
}

/** Sends the `label.*` event to every member of the team: the change's last statement. */
async function announce(trx: Db, teamId: string, type: EventType, labelId: number): Promise<void> {
  await recordEvent(trx, { teamId, type, data: { labelId }, audience: usersAudience(await memberIdsOf(trx, teamId)) });
}

const labelNotFound = (rawId: string | number) => notFound(`Label ${rawId} not found.`);
const nameTaken = (name: string) => conflict(`A label named "${name}" already exists in this team.`);

/** 409 when another label of the team has the name, ignoring case. */
function checkNameFree(all: readonly Label[], name: string, labelId?: number): void {
  const key = labels.nameKey(name);
  if (all.some((label) => label.id !== labelId && labels.nameKey(label.name) === key)) throw nameTaken(name);
}

/** A write that lost a race for a name to a concurrent one answers as if it had seen it. */
async function claimingName<T>(name: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (name !== undefined && isUniqueViolation(error)) throw nameTaken(name);
    throw error;
  }
}

/** The label id in a path, or 404 for one that cannot exist. */
function pathLabelId(raw: string): number {
  const id = toId(raw);
  if (id === null) throw labelNotFound(raw);
  return id;
}

/** POST /v1/labels. */
export function createLabelAs(store: Store, caller: Caller, body: CreateLabelBody): Promise<Label> {
  requireManager(caller, WHAT);
  return asManager(store, caller, WHAT).transaction(async (trx) => {
    const all = await labels.lockTeamLabels(trx, caller.teamId);
    if (all.length >= MAX_LABELS_PER_TEAM) {
      throw invalidInput(`A team can have at most ${MAX_LABELS_PER_TEAM} labels; delete one before adding another.`);
    }
    checkNameFree(all, body.name);
    const label = await claimingName(body.name, () =>
      labels.insertLabel(trx, caller.teamId, { name: body.name, color: body.color ?? DEFAULT_LABEL_COLOR }),
    );
    await announce(trx, caller.teamId, 'label.created', label.id);
    return label;
  });
}

/** PATCH /v1/labels/{labelId}: a new name or colour; each of its tasks gets a new version. */
export function updateLabelAs(store: Store, caller: Caller, rawId: string, body: UpdateLabelBody): Promise<Label> {
  requireManager(caller, WHAT);
  const labelId = pathLabelId(rawId);
  return asManager(store, caller, WHAT).transaction(async (trx) => {
    const all = await labels.lockTeamLabels(trx, caller.teamId);
    const label = all.find((l) => l.id === labelId);
    if (!label) throw labelNotFound(rawId);
    if (body.name !== undefined) checkNameFree(all, body.name, labelId);
    const changed =
      (body.name !== undefined && body.name !== label.name) || (body.color ?? label.color) !== label.color;
    if (!changed) return label;
    await taskLabels.bumpTaskVersions(trx, labelId, false);
    const updated = await claimingName(body.name, () => labels.updateLabelRow(trx, labelId, body));
    await announce(trx, caller.teamId, 'label.updated', labelId);
    return updated;
  });
}

/**
 * DELETE /v1/labels/{labelId}: takes the label off its tasks in the same transaction; each gets
 * its activity entry and `task.updated` event, by the caller.
 */
export function deleteLabelAs(store: Store, caller: Caller, rawId: string): Promise<LabelDeleted> {
  requireManager(caller, WHAT);
  const labelId = pathLabelId(rawId);
  return asManager(store, caller, WHAT).transaction(async (trx) => {
    const all = await labels.lockTeamLabels(trx, caller.teamId);
    if (!all.some((l) => l.id === labelId)) throw labelNotFound(rawId);
    const taskIds = await taskLabels.holdTasksOf(trx, labelId);
    const before = await taskLabels.labelsOf(trx, taskIds);
    // Who may read each task, read before the first event takes the team row.
    const readers = await audiencesOfTasks(trx, taskIds);
    await taskLabels.bumpTaskVersions(trx, labelId, true);
    await labels.deleteLabelRow(trx, labelId);
    for (const taskId of taskIds) {
      const from = before.get(taskId) ?? [];
      await recordEvent(trx, {
        teamId: caller.teamId,
        type: 'task.updated',
        data: { taskId },
        audience: readers.get(taskId) ?? NO_AUDIENCE,
        activity: {
          taskId,
          actorId: caller.userId,
          via: viaOf(caller),
          kind: 'task.updated',
          changes: { labels: { from: labels.asNamed(from), to: labels.asNamed(from.filter((l) => l.id !== labelId)) } },
        },
      });
    }
    await announce(trx, caller.teamId, 'label.deleted', labelId);
    return { id: labelId, deleted: true, untaggedTasks: taskIds.length };
  });
}
