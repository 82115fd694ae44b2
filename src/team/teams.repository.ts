import { randomUUID } from 'node:crypto';
import { recordUnassignedFromTeam } from '../changes/activity-entries.js';
import { byNameThenId } from '../ids.js';
import { withinTransaction } from '../storage/database.js';
import { inList, keeping, listParam, lockRows, type ListParam } from '../storage/dialect.js';
import { prepared } from '../storage/prepared.js';
import type { Db, Role, TeamRow } from '../storage/schema.js';

/** A team as the rest of the code sees it (its counters stay in here). */
export interface TeamRecord {
  id: string;
  name: string;
}

/** A new team; `setupPending`: the first start's, which its owner sets up at their first sign-in. */
export async function insertTeam(db: Db, name: string, setupPending = false): Promise<TeamRecord> {
  const row: TeamRow = {
    id: randomUUID(),
    name,
    task_counter: 0,
    event_counter: 0,
    created_at: new Date().toISOString(),
    setup_pending: setupPending ? 1 : 0,
    attachment_bytes: 0,
  };
  await db.insertInto('teams').values(row).execute();
  return { id: row.id, name: row.name };
}

export async function findTeam(db: Db, teamId: string): Promise<TeamRecord | undefined> {
  return db.selectFrom('teams').select(['id', 'name']).where('id', '=', teamId).executeTakeFirst();
}

export async function renameTeam(db: Db, teamId: string, name: string): Promise<void> {
  await db.updateTable('teams').set({ name }).where('id', '=', teamId).execute();
}

/** Whether the team still waits for its owner's set-up (the first start's team). */
export async function isSetupPending(db: Db, teamId: string): Promise<boolean> {
  const row = await db.selectFrom('teams').select('setup_pending').where('id', '=', teamId).executeTakeFirst();
  return row?.setup_pending === 1;
}

/**
 * Marks the team set up, if it still waited: true for exactly one of any number of set-ups sent
 * at once (one conditional UPDATE, which also takes the team row's lock on PostgreSQL).
 */
export async function finishSetup(trx: Db, teamId: string): Promise<boolean> {
  const result = await trx
    .updateTable('teams')
    .set({ setup_pending: 0 })
    .where('id', '=', teamId)
    .where('setup_pending', '=', 1)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Every team, by name (then id). */
export async function listTeams(db: Db): Promise<TeamRecord[]> {
  const rows = await db.selectFrom('teams').select(['id', 'name']).execute();
  return rows.sort(byNameThenId);
}

export async function countTeams(db: Db): Promise<number> {
  const row = await db
    .selectFrom('teams')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface MemberRecord {
  id: string;
  name: string;
  email: string;
  role: Role;
}

export async function findMembership(db: Db, teamId: string, userId: string): Promise<Role | undefined> {
  const row = await db
    .selectFrom('team_members')
    .select('role')
    .where('team_id', '=', teamId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row?.role;
}

type CallerRef = { teamId: string; userId: string; credential: { kind: string; id: string } };

/** What a change must know of its caller, read in its own transaction (auth/caller-check.ts). */
export interface CallerStanding {
  /** The caller's role now; undefined when they are no longer a member. */
  role: Role | undefined;
  /** Whether the credential the request came with (key or session) still works for this team. */
  credentialLive: boolean;
}

/** The caller's credential, if it still works at `now`: a key not revoked nor expired, or a live session on this team. */
function liveCredential(db: Db, caller: CallerRef, now: string) {
  const { kind, id } = caller.credential;
  return kind === 'key'
    ? db
        .selectFrom('api_keys as k')
        .select('k.id')
        .where('k.id', '=', id)
        .where('k.revoked_at', 'is', null)
        .where((eb) => eb.or([eb('k.expires_at', 'is', null), eb('k.expires_at', '>', now)]))
    : db
        .selectFrom('sessions as s')
        .select('s.id')
        .where('s.id', '=', id)
        // A session follows one team at a time (switching moves it): still this one?
        .where('s.team_id', '=', caller.teamId)
        .where('s.expires_at', '>', now);
}

/**
 * The caller's membership and credential as they are now, in one statement (two when the
 * membership is gone). The membership is kept (FOR KEY SHARE on PostgreSQL) until the transaction
 * ends: a removal, or a role change (which locks its target `delete`: `lockMember`), then waits
 * for this change to commit, and a change that starts after one reads what it committed.
 */
export async function readCallerStanding(trx: Db, caller: CallerRef, now: string): Promise<CallerStanding> {
  const query = trx
    .selectFrom('team_members as m')
    .select((eb) => ['m.role', eb.exists(liveCredential(trx, caller, now)).as('live')])
    .where('m.team_id', '=', caller.teamId)
    .where('m.user_id', '=', caller.userId);
  const row = await keeping(trx, query).executeTakeFirst();
  if (row) return { role: row.role, credentialLive: Boolean(row.live) };
  const live = await liveCredential(trx, caller, now).executeTakeFirst();
  return { role: undefined, credentialLive: live !== undefined };
}

/**
 * Locks one membership until the transaction ends:
 * - `delete` (FOR UPDATE) before a role change or removal: it conflicts with the `keep` lock every
 *   change of that member's holds on it (`readCallerStanding`), so the change and the demotion
 *   run one after the other.
 * - `change` (FOR NO KEY UPDATE) for a member's action of which they may have one at a time: two
 *   transactions that take it run one after the other, so a check of what the member has (an
 *   unfinished export) and the insert it guards become one step; the member's other changes only
 *   `keep` the row and do not wait.
 */
export async function lockMember(
  trx: Db,
  teamId: string,
  userId: string,
  lock: 'delete' | 'change' = 'delete',
): Promise<void> {
  const row = trx
    .selectFrom('team_members')
    .select('user_id')
    .where('team_id', '=', teamId)
    .where('user_id', '=', userId);
  await lockRows(trx, row, lock);
}

/**
 * The user's role in the team (undefined: no member), their membership kept (`keep`) until the
 * transaction ends: a role change or removal in flight (`lockMember`) commits first and is read
 * here, and one that comes later waits for this transaction.
 */
export async function keptRole(trx: Db, teamId: string, userId: string): Promise<Role | undefined> {
  if (!trx.isTransaction) throw new Error('A row lock taken outside a transaction would end with its statement.');
  const query = trx
    .selectFrom('team_members')
    .select('role')
    .where('team_id', '=', teamId)
    .where('user_id', '=', userId);
  return (await keeping(trx, query).executeTakeFirst())?.role;
}

export async function listMembers(db: Db, teamId: string): Promise<MemberRecord[]> {
  const members = await db
    .selectFrom('team_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.id', 'u.name', 'u.email', 'm.role'])
    .where('m.team_id', '=', teamId)
    .execute();
  return members.sort(byNameThenId);
}

/** Adds a member; the primary key refuses one who already is (a unique violation). */
export async function insertMember(db: Db, teamId: string, userId: string, role: Role): Promise<void> {
  await db
    .insertInto('team_members')
    .values({ team_id: teamId, user_id: userId, role, created_at: new Date().toISOString() })
    .execute();
}

/** Adds or re-roles a member. */
export async function upsertMember(db: Db, teamId: string, userId: string, role: Role): Promise<void> {
  await db
    .insertInto('team_members')
    .values({ team_id: teamId, user_id: userId, role, created_at: new Date().toISOString() })
    .onConflict((oc) => oc.columns(['team_id', 'user_id']).doUpdateSet({ role }))
    .execute();
}

/** The ids of every member of the team: the audience of the team's own events (statuses). */
export async function memberIdsOf(db: Db, teamId: string): Promise<string[]> {
  const rows = await db.selectFrom('team_members').select('user_id').where('team_id', '=', teamId).execute();
  return rows.map((row) => row.user_id);
}

/** The ids of the team's owners and admins: the audience of its invitations' events. */
export async function managerIdsOf(db: Db, teamId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('team_members')
    .select('user_id')
    .where('team_id', '=', teamId)
    .where('role', 'in', ['owner', 'admin'])
    .execute();
  return rows.map((row) => row.user_id);
}

/** The team's longest-standing owner's id, or undefined when it has no owner. */
export async function oldestOwner(db: Db, teamId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('team_members')
    .select('user_id')
    .where('team_id', '=', teamId)
    .where('role', '=', 'owner')
    .orderBy('created_at')
    .orderBy('user_id')
    .executeTakeFirst();
  return row?.user_id;
}

/** A member with their role, as GET /v1/users shows them, or undefined. */
export async function findMember(db: Db, teamId: string, userId: string): Promise<MemberRecord | undefined> {
  return db
    .selectFrom('team_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.id', 'u.name', 'u.email', 'm.role'])
    .where('m.team_id', '=', teamId)
    .where('m.user_id', '=', userId)
    .executeTakeFirst();
}

/**
 * Locks the memberships of the team's owners (`change`, in user id order) until the transaction
 * ends, then reads who they are. Every change that could take the last owner away (a demotion, a
 * removal) starts here, so two such changes run one after the other and the second sees what the
 * first left: of two owners demoting or removing each other at once, one is refused.
 */
export async function lockOwners(trx: Db, teamId: string): Promise<Set<string>> {
  const owners = trx
    .selectFrom('team_members')
    .select('user_id')
    .where('team_id', '=', teamId)
    .where('role', '=', 'owner')
    .orderBy('user_id');
  await lockRows(trx, owners, 'change');
  return new Set((await owners.execute()).map((r) => r.user_id));
}

/** Sets a member's role (after `lockOwners`). */
export async function setRole(trx: Db, teamId: string, userId: string, role: Role): Promise<void> {
  await trx
    .updateTable('team_members')
    .set({ role })
    .where('team_id', '=', teamId)
    .where('user_id', '=', userId)
    .execute();
}

/**
 * Keeps the users' memberships of the team locked (`keep`) until the transaction ends: a change
 * that checked them (assigning a task, adding someone to a list) then commits either wholly
 * before a removal from the team, which takes its access away again, or is refused after it.
 */
export async function keepMemberships(trx: Db, teamId: string, userIds: readonly string[]): Promise<void> {
  if (userIds.length === 0) return;
  const rows = trx.selectFrom('team_members').select('user_id').where('team_id', '=', teamId);
  await lockRows(trx, rows.where(inList(trx, 'user_id', listParam(trx, userIds))), 'keep');
}

/**
 * Removes a member from a team together with everything that gave them access there:
 * their list memberships and task assignments in that team (by `actorId`; null: the operator). The membership is locked first,
 * so an assignment or list membership being granted meanwhile commits before these deletes
 * run (and they remove it) or is refused after them (see `keepMemberships`).
 */
export async function deleteMember(
  db: Db,
  teamId: string,
  userId: string,
  actorId: string | null = null,
): Promise<boolean> {
  return withinTransaction(db, async (trx) => {
    const membership = trx.selectFrom('team_members').select('user_id').where('team_id', '=', teamId);
    await lockRows(trx, membership.where('user_id', '=', userId), 'delete');
    return deleteMembership(trx, teamId, userId, actorId);
  });
}

async function deleteMembership(db: Db, teamId: string, userId: string, actorId: string | null): Promise<boolean> {
  // The assignments end with the membership: each task's activity says so, by whoever removed
  // them (null: the operator).
  await recordUnassignedFromTeam(db, teamId, userId, actorId);
  await db
    .deleteFrom('list_members')
    .where('user_id', '=', userId)
    .where('list_id', 'in', db.selectFrom('task_lists').select('id').where('team_id', '=', teamId))
    .execute();
  await db
    .deleteFrom('task_assignees')
    .where('user_id', '=', userId)
    .where('task_id', 'in', db.selectFrom('tasks').select('id').where('team_id', '=', teamId))
    .execute();
  const result = await db
    .deleteFrom('team_members')
    .where('team_id', '=', teamId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

const keptMembersQuery = prepared((db, p: { teamId: string; userIds: ListParam }) =>
  keeping(
    db,
    db
      .selectFrom('team_members as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .select(['u.id', 'u.name', 'u.email'])
      .where('m.team_id', '=', p.teamId)
      .where(inList(db, 'm.user_id', p.userIds)),
    'm',
  ),
);

/**
 * Of the given users, the team's members, by id, with their names and emails, their memberships
 * kept as `keepMemberships` keeps them, in the same statement. A membership deleted while this
 * waited for its lock is not returned: that user is no member.
 */
export async function keptMembersAmong(
  trx: Db,
  teamId: string,
  userIds: readonly string[],
): Promise<Map<string, { id: string; name: string; email: string }>> {
  if (userIds.length === 0) return new Map();
  if (!trx.isTransaction) throw new Error('A row lock taken outside a transaction would end with its statement.');
  const rows = await keptMembersQuery(trx, { teamId, userIds: listParam(trx, userIds) });
  return new Map(rows.map((r) => [r.id, r]));
}

/**
 * The ids of every member of the team, their memberships kept (`keep`) until the transaction ends:
 * a removal in flight commits first (and its member is not returned), a later one waits.
 */
export async function keptMemberIdsOf(trx: Db, teamId: string): Promise<string[]> {
  if (!trx.isTransaction) throw new Error('A row lock taken outside a transaction would end with its statement.');
  const query = trx.selectFrom('team_members').select('user_id').where('team_id', '=', teamId).orderBy('user_id');
  return (await keeping(trx, query).execute()).map((row) => row.user_id);
}

/**
 * Locks the team row (`change`) until the transaction ends, as its first event would
 * (changes/outbox.ts): what a join and a list's sharing with the team queue behind, so each sees
 * the other's commit (lists/shared-lists.ts). Nothing on SQLite, whose writers already take turns.
 */
export async function lockTeam(trx: Db, teamId: string): Promise<void> {
  await lockRows(trx, trx.selectFrom('teams').select('id').where('id', '=', teamId), 'change');
}
