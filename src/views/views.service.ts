/**
 * Saved views (issue 29): a named set of GET /v1/tasks filters, a sort and a layout. A view is
 * its author's; shared with the team, every member sees it, and opening it runs GET /v1/tasks as
 * the one opening it, so each sees only the tasks they can read. Its author manages it; a shared
 * one, the team's owners and admins too. Someone else's private view does not exist for the
 * caller (404). When the author leaves the team, their private views go and their shared ones
 * stay, the team's (members.service.ts, `removeMember`).
 *
 * Views are not task changes: they send no events, so a task write costs the same with or
 * without them.
 */
import type { Caller } from '../caller.js';
import {
  MAX_VIEWS_PER_PERSON,
  TaskFilters,
  type CreateViewBody,
  type UpdateViewBody,
  type View,
  type ViewDeleted,
} from '../contract/index.js';
import { conflict, forbidden, invalidInput, notFound } from '../http/errors.js';
import { checkQueryLike } from '../http/validation.js';
import { toId } from '../ids.js';
import type { Store } from '../storage/database.js';
import { isUniqueViolation } from '../storage/errors.js';
import type { Db } from '../storage/schema.js';
import { managesTeam } from '../team/roles.js';
import * as views from './views.repository.js';
import type { ViewFields, ViewRecord } from './views.repository.js';

/** The filters as GET /v1/tasks takes them (its own schema: a filter added there is a view's too), else a 400. */
function checkFilters(filters: Record<string, unknown>): TaskFilters {
  const checked = checkQueryLike<TaskFilters>(TaskFilters, filters);
  if ('error' in checked) throw invalidInput(`filters: ${checked.error}`);
  return checked.ok;
}

const nameTakenError = (name: string) => conflict(`You already have a view named "${name}".`);

/** A name the author may give: unique among their views, ignoring case (the team's own views have no author, no rule). */
async function checkName(trx: Db, caller: Caller, authorId: string | undefined, name: string, id?: number) {
  if (authorId && (await views.nameTaken(trx, caller.teamId, authorId, name, id))) throw nameTakenError(name);
}

/** A unique-name race lost to a concurrent write is the same 409 as the check's. */
async function uniqueName<T>(name: string | undefined, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (name !== undefined && isUniqueViolation(error)) throw nameTakenError(name);
    throw error;
  }
}

const presentView = (view: ViewRecord, caller: Caller): View => ({ ...view, canManage: mayManage(view, caller) });

export async function listViews(store: Store, caller: Caller): Promise<View[]> {
  return (await views.listViews(store.db, caller.teamId, caller.userId)).map((view) => presentView(view, caller));
}

function viewId(rawId: string): number {
  const id = toId(rawId);
  if (id === null) throw notFound(`View ${rawId} not found.`);
  return id;
}

async function visibleView(db: Db, caller: Caller, rawId: string): Promise<ViewRecord> {
  const view = await views.findView(db, caller.teamId, caller.userId, viewId(rawId));
  if (!view) throw notFound(`View ${rawId} not found.`);
  return view;
}

export async function getView(store: Store, caller: Caller, rawId: string): Promise<View> {
  return presentView(await visibleView(store.db, caller, rawId), caller);
}

/** Whether the caller may change or delete it: its author, or for a shared view the team's owners and admins. */
export const mayManage = (view: ViewRecord, caller: Caller): boolean =>
  view.author?.id === caller.userId || (view.sharedWithTeam && managesTeam(caller.role));

/** The view to change, locked, if the caller may (else 404 for one they do not see, 403 for one they may only open). */
async function manageableView(trx: Db, caller: Caller, rawId: string, lock: 'change' | 'delete'): Promise<ViewRecord> {
  await views.lockView(trx, caller.teamId, viewId(rawId), lock);
  const view = await visibleView(trx, caller, rawId);
  if (!mayManage(view, caller)) {
    throw forbidden("Only this view's author and the team's owners and admins can change a shared view.");
  }
  return view;
}

export async function createView(store: Store, caller: Caller, body: CreateViewBody): Promise<View> {
  const fields: ViewFields = {
    name: body.name,
    filters: checkFilters(body.filters),
    sort: body.sort ?? null,
    layout: body.layout,
    sharedWithTeam: body.sharedWithTeam ?? false,
  };
  const id = await uniqueName(body.name, () =>
    store.transaction(async (trx) => {
      await views.lockAuthor(trx, caller.teamId, caller.userId);
      if ((await views.countViewsBy(trx, caller.teamId, caller.userId)) >= MAX_VIEWS_PER_PERSON) {
        throw conflict(`You have ${MAX_VIEWS_PER_PERSON} views, the most one person may have: delete one first.`);
      }
      await checkName(trx, caller, caller.userId, body.name);
      return views.insertView(trx, caller.teamId, caller.userId, fields, new Date().toISOString());
    }),
  );
  return getView(store, caller, String(id));
}

export async function updateView(store: Store, caller: Caller, rawId: string, body: UpdateViewBody): Promise<View> {
  const fields: Partial<ViewFields> = {
    ...body,
    filters: body.filters === undefined ? undefined : checkFilters(body.filters),
  };
  return uniqueName(body.name, () =>
    store.transaction(async (trx) => {
      const view = await manageableView(trx, caller, rawId, 'change');
      if (!view.author && body.sharedWithTeam === false) {
        throw invalidInput('This view belongs to the team (its author left), so it stays shared: delete it instead.');
      }
      if (body.name !== undefined) await checkName(trx, caller, view.author?.id, body.name, view.id);
      await views.updateView(trx, view.id, fields, new Date().toISOString());
      // Read whether the caller still sees it or not (a manager may make someone's view private).
      return presentView((await views.findView(trx, caller.teamId, null, view.id))!, caller);
    }),
  );
}

export async function deleteView(store: Store, caller: Caller, rawId: string): Promise<ViewDeleted> {
  return store.transaction(async (trx) => {
    const view = await manageableView(trx, caller, rawId, 'delete');
    await views.deleteView(trx, view.id);
    return { id: view.id, deleted: true };
  });
}
