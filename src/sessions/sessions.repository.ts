import { randomBytes } from 'node:crypto';
import { hashSecret } from '../secret-hash.js';
import type { Db, Role } from '../storage/schema.js';

/** How long a web session lasts without signing in again. */
export const SESSION_TTL_MS = 14 * 24 * 60 * 60 * 1000;

/** Creates a session; returns the cookie's secret (stored only as a hash) and its CSRF token. */
export async function insertSession(
  db: Db,
  userId: string,
  teamId: string,
): Promise<{ token: string; csrfToken: string; expiresAt: string }> {
  const token = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(24).toString('base64url');
  const now = Date.now();
  const expiresAt = new Date(now + SESSION_TTL_MS).toISOString();
  await db
    .insertInto('sessions')
    .values({
      id: hashSecret(token),
      user_id: userId,
      team_id: teamId,
      csrf_token: csrfToken,
      created_at: new Date(now).toISOString(),
      expires_at: expiresAt,
    })
    .execute();
  return { token, csrfToken, expiresAt };
}

export interface SessionOwner {
  sessionId: string;
  userId: string;
  teamId: string;
  csrfToken: string;
  /** Null when the user has left the session's team. */
  role: Role | null;
}

/** The unexpired session with this token hash and its user's current membership, in one query. */
export async function findLiveSession(db: Db, sessionId: string): Promise<SessionOwner | undefined> {
  const row = await db
    .selectFrom('sessions as s')
    .leftJoin('team_members as m', (join) =>
      join.onRef('m.team_id', '=', 's.team_id').onRef('m.user_id', '=', 's.user_id'),
    )
    .select(['s.id', 's.user_id', 's.team_id', 's.csrf_token', 'm.role'])
    .where('s.id', '=', sessionId)
    .where('s.expires_at', '>', new Date().toISOString())
    .executeTakeFirst();
  if (!row) return undefined;
  return { sessionId: row.id, userId: row.user_id, teamId: row.team_id, csrfToken: row.csrf_token, role: row.role };
}

export async function setSessionTeam(db: Db, sessionId: string, teamId: string): Promise<void> {
  await db.updateTable('sessions').set({ team_id: teamId }).where('id', '=', sessionId).execute();
}

export async function deleteSession(db: Db, sessionId: string): Promise<void> {
  await db.deleteFrom('sessions').where('id', '=', sessionId).execute();
}

/** Ends every other session of the user (after a password change). */
export async function deleteOtherSessions(db: Db, userId: string, keepSessionId: string): Promise<void> {
  await db.deleteFrom('sessions').where('user_id', '=', userId).where('id', '!=', keepSessionId).execute();
}

/** Ends every session of the user (the operator set a new password). */
export async function deleteSessionsOf(db: Db, userId: string): Promise<number> {
  const result = await db.deleteFrom('sessions').where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Of the given session ids, those still valid for a member of their team, with that team: a
 * stream opened in one team ends when its session moves to another.
 */
export async function liveSessionTeams(db: Db, sessionIds: readonly string[]): Promise<Map<string, string>> {
  if (sessionIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('sessions as s')
    .innerJoin('team_members as m', (join) =>
      join.onRef('m.team_id', '=', 's.team_id').onRef('m.user_id', '=', 's.user_id'),
    )
    .select(['s.id', 's.team_id'])
    .where('s.id', 'in', sessionIds)
    .where('s.expires_at', '>', new Date().toISOString())
    .execute();
  return new Map(rows.map((r) => [r.id, r.team_id]));
}

/** Sessions deleted per statement when pruning: short statements, never a long lock. */
const PRUNE_BATCH = 1_000;

/** Deletes every session that expired before `now` (their CSRF tokens go with them); returns how many. */
export async function pruneExpiredSessions(db: Db, now = new Date()): Promise<number> {
  let total = 0;
  for (;;) {
    const result = await db
      .deleteFrom('sessions')
      .where('id', 'in', (eb) =>
        eb.selectFrom('sessions').select('id').where('expires_at', '<=', now.toISOString()).limit(PRUNE_BATCH),
      )
      .executeTakeFirst();
    const deleted = Number(result.numDeletedRows);
    total += deleted;
    if (deleted < PRUNE_BATCH) return total;
  }
}
