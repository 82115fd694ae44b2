/**
 * invitations: made with a random token that is stored only as its sha256 (secret-hash.ts), found
 * by that hash, used at most once (`claimInvitation`: one conditional UPDATE), revoked.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { ROLES, type Role } from '../contract/enums.js';
import { hashSecret } from '../secret-hash.js';
import type { Db, InvitationRow } from '../storage/schema.js';

/** An invitation as the rest of the code sees it: never its token's hash. */
export interface InvitationRecord {
  id: string;
  teamId: string;
  teamName: string;
  role: Role;
  email: string | null;
  invitedBy: { id: string; name: string };
  /** The sender's role in the team as read with the invitation; null when they are no member. */
  inviterRole: Role | null;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
  revokedAt: string | null;
}

/** The token in an invitation link: `tli_` and 32 random bytes in base64url (URL-safe, 256 bits). */
const newToken = () => `tli_${randomBytes(32).toString('base64url')}`;

const selectInvitations = (db: Db) =>
  db
    .selectFrom('invitations as i')
    .innerJoin('teams as t', 't.id', 'i.team_id')
    .innerJoin('users as u', 'u.id', 'i.invited_by')
    .leftJoin('team_members as m', (join) =>
      join.onRef('m.team_id', '=', 'i.team_id').onRef('m.user_id', '=', 'i.invited_by'),
    )
    .select([
      'i.id',
      'i.team_id',
      't.name as team_name',
      'i.role',
      'i.email',
      'i.invited_by',
      'u.name as inviter_name',
      'm.role as inviter_role',
      'i.created_at',
      'i.expires_at',
      'i.used_at',
      'i.revoked_at',
    ]);

type Selected = Pick<
  InvitationRow,
  'id' | 'team_id' | 'role' | 'email' | 'invited_by' | 'created_at' | 'expires_at' | 'used_at' | 'revoked_at'
> & { team_name: string; inviter_name: string; inviter_role: Role | null };

function toRecord(row: Selected): InvitationRecord {
  return {
    id: row.id,
    teamId: row.team_id,
    teamName: row.team_name,
    role: row.role,
    email: row.email,
    invitedBy: { id: row.invited_by, name: row.inviter_name },
    inviterRole: row.inviter_role,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    usedAt: row.used_at,
    revokedAt: row.revoked_at,
  };
}

/** A new invitation and its token, which is returned here only. */
export async function insertInvitation(
  db: Db,
  input: { teamId: string; role: Role; email: string | null; invitedBy: string; expiresAt: string },
): Promise<{ id: string; token: string }> {
  const token = newToken();
  const id = randomUUID();
  await db
    .insertInto('invitations')
    .values({
      id,
      team_id: input.teamId,
      role: input.role,
      email: input.email,
      token_hash: hashSecret(token),
      invited_by: input.invitedBy,
      created_at: new Date().toISOString(),
      expires_at: input.expiresAt,
      used_at: null,
      used_by: null,
      revoked_at: null,
    })
    .execute();
  return { id, token };
}

/** The invitation, if it is the team's (without `teamId`: whichever team's, for the operator). */
export async function findInvitation(db: Db, id: string, teamId?: string): Promise<InvitationRecord | undefined> {
  let query = selectInvitations(db).where('i.id', '=', id);
  if (teamId !== undefined) query = query.where('i.team_id', '=', teamId);
  const row = await query.executeTakeFirst();
  return row && toRecord(row);
}

/** The invitation whose link carries `token`, whatever its state, or undefined. */
export async function findByToken(db: Db, token: string): Promise<InvitationRecord | undefined> {
  const row = await selectInvitations(db).where('i.token_hash', '=', hashSecret(token)).executeTakeFirst();
  return row && toRecord(row);
}

/** The team's invitations that can still be accepted at `now`, newest first. */
export async function pendingInvitations(db: Db, teamId: string, now: string): Promise<InvitationRecord[]> {
  const rows = await selectInvitations(db)
    .where('i.team_id', '=', teamId)
    .where('i.used_at', 'is', null)
    .where('i.revoked_at', 'is', null)
    .where('i.expires_at', '>', now)
    .orderBy('i.created_at', 'desc')
    .orderBy('i.id')
    .execute();
  return rows.map(toRecord);
}

/** Revokes an unused invitation of the team; false when it was used or already revoked. */
export async function revokeInvitation(db: Db, teamId: string, id: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('invitations')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('team_id', '=', teamId)
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Revokes the unused invitations the user made in the team with one of `roles`: all of them when
 * they leave it, those beyond their new role when they are demoted. Returns their ids.
 */
export async function revokeInvitationsBy(
  db: Db,
  teamId: string,
  userId: string,
  now: string,
  roles: readonly Role[] = ROLES,
): Promise<string[]> {
  if (roles.length === 0) return [];
  const rows = await db
    .updateTable('invitations')
    .set({ revoked_at: now })
    .where('team_id', '=', teamId)
    .where('invited_by', '=', userId)
    .where('role', 'in', roles)
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .returning('id')
    .execute();
  return rows.map((row) => row.id);
}

/**
 * Marks the invitation used, if it is still usable at `now`: true for exactly one of any number
 * of accepts, however many run at once. On PostgreSQL a second UPDATE waits for the first's row
 * lock and then finds `used_at` set; on SQLite writers already run one at a time. The accepting
 * transaction's first write, so whoever loses learns it before anything else is done.
 */
export async function claimInvitation(trx: Db, id: string, now: string): Promise<boolean> {
  const result = await trx
    .updateTable('invitations')
    .set({ used_at: now })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Records who used a claimed invitation. */
export async function setUsedBy(trx: Db, id: string, userId: string): Promise<void> {
  await trx.updateTable('invitations').set({ used_by: userId }).where('id', '=', id).execute();
}
