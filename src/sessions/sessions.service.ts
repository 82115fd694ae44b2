/** Web sign-in: passwords → sessions, the team a session acts in, profile and password changes. */
import type { Caller } from '../caller.js';
import { AppError, conflict, forbidden, invalidInput, unauthorized } from '../http/errors.js';
import type { PasswordAttempt } from '../http/rate-limit.js';
import { withPrologue, type Store } from '../storage/database.js';
import { findMembership, findTeam, isSetupPending } from '../team/teams.repository.js';
import { managesTeam } from '../team/roles.js';
import { isUniqueViolation } from '../storage/errors.js';
import { hashPassword, verifyPassword } from '../team/passwords.js';
import {
  findUser,
  findUserByEmail,
  teamsOfUser,
  renameUser,
  replacePasswordHash,
  setEmail,
  type TeamOfUser,
  type UserRecord,
} from '../team/users.repository.js';
import type { Db } from '../storage/schema.js';
import type { SessionInfo } from '../contract/sessions.js';
import { deleteOtherSessions, deleteSession, insertSession, setSessionTeam } from './sessions.repository.js';

export { SESSION_TTL_MS } from './sessions.repository.js';

/**
 * Counts one password attempt for an account before the password is checked, refusing (429)
 * when its budgets are spent; `succeeded()` gives the count back (http/rate-limit.ts).
 */
export type ReservePasswordAttempt = (account: string) => Promise<PasswordAttempt>;

/** A hash to verify against when the email is unknown, so both failures take the same time. */
let decoyHash: Promise<string> | undefined;

/** The decoy hash, made once; a failed attempt (the hash slots were full) is not kept, so the next one tries again. */
function decoy(): Promise<string> {
  decoyHash ??= hashPassword('decoy password').catch((error: unknown) => {
    decoyHash = undefined;
    throw error;
  });
  return decoyHash;
}

/** Checks email and password and opens a session in the requested (or first) team. */
export async function signIn(
  store: Store,
  input: { email: string; password: string; teamId?: string },
  reserveAttempt: ReservePasswordAttempt,
): Promise<{ token: string; info: SessionInfo }> {
  const user = await checkCredentials(store, input.email, input.password, reserveAttempt);
  const teams = await teamsOfUser(store.db, user.id);
  const team = input.teamId ? teams.find((t) => t.id === input.teamId) : teams[0];
  if (!team) {
    throw forbidden(input.teamId ? 'You are not a member of that team.' : 'You are not a member of any team yet.');
  }
  return openSession(store.db, user, teams, team);
}

/**
 * The user with this email, if the password is theirs; else 401 `Wrong email or password.`, the
 * same for an unknown email, after the same work. The attempt is counted first (sign-in budgets).
 */
export async function checkCredentials(
  store: Store,
  rawEmail: string,
  password: string,
  reserveAttempt: ReservePasswordAttempt,
): Promise<UserRecord> {
  const email = rawEmail.trim().toLowerCase();
  const user = await findUserByEmail(store.db, email);
  // An unknown email has a budget of its own, so the answers never tell which accounts exist.
  const attempt = await reserveAttempt(user ? `user:${user.id}` : `email:${email}`);
  const hash = user?.passwordHash ?? (await decoy());
  const { ok, needsRehash } = await verifyPassword(password, hash);
  if (!user || !user.passwordHash || !ok) throw unauthorized('Wrong email or password.');
  await attempt.succeeded();
  if (needsRehash) await rehash(store, user.id, user.passwordHash, password);
  return user;
}

/**
 * A new session of the user in `team`, one of their `teams` (in `db`: a transaction, when it
 * commits with other changes), and what the sign-in answers.
 */
export async function openSession(
  db: Db,
  user: Pick<UserRecord, 'id' | 'name' | 'email'>,
  teams: TeamOfUser[],
  team: TeamOfUser,
): Promise<{ token: string; info: SessionInfo }> {
  const session = await insertSession(db, user.id, team.id);
  return {
    token: session.token,
    info: {
      user: { id: user.id, name: user.name, email: user.email },
      team: { id: team.id, name: team.name },
      role: team.role,
      teams,
      csrfToken: session.csrfToken,
      setupRequired: await setupRequired(db, team.id, team.role),
    },
  };
}

/** Whether the web app must ask for the first start's set-up: only its team's owner does it (POST /auth/setup). */
const setupRequired = async (db: Db, teamId: string, role: string | null): Promise<boolean> =>
  role === 'owner' && (await isSetupPending(db, teamId));

/** What the web app needs to know about its session. */
export async function sessionInfo(store: Store, caller: Caller, csrfToken: string): Promise<SessionInfo> {
  const [user, team, teams] = await Promise.all([
    findUser(store.db, caller.userId),
    findTeam(store.db, caller.teamId),
    teamsOfUser(store.db, caller.userId),
  ]);
  if (!user || !team || !caller.role) throw unauthorized('Your session has ended. Sign in again.');
  return {
    user: { id: user.id, name: user.name, email: user.email },
    team: { id: team.id, name: team.name },
    role: caller.role,
    teams,
    csrfToken,
    setupRequired: await setupRequired(store.db, team.id, caller.role),
  };
}

/** Moves the session to another of the user's teams. */
export async function switchTeam(store: Store, caller: Caller, teamId: string): Promise<SessionInfo> {
  const role = await store.transaction(async (trx) => {
    const role = await findMembership(trx, teamId, caller.userId);
    if (!role) throw forbidden('You are not a member of that team.');
    await setSessionTeam(trx, caller.credential.id, teamId);
    return role;
  });
  return sessionInfo(store, { ...caller, teamId, role }, caller.credential.csrfToken!);
}

export async function signOut(store: Store, caller: Caller): Promise<void> {
  await store.transaction((trx) => deleteSession(trx, caller.credential.id));
}

export async function updateProfile(store: Store, caller: Caller, name: string): Promise<void> {
  await store.transaction((trx) => renameUser(trx, caller.userId, name));
}

/**
 * The caller's user, if `password` is their current one; else 400. A wrong password is a failed
 * guess like a wrong sign-in, from the same budgets.
 */
async function checkOwnPassword(
  store: Store,
  caller: Caller,
  password: string,
  reserveAttempt: ReservePasswordAttempt,
): Promise<UserRecord & { passwordHash: string }> {
  const user = await findUser(store.db, caller.userId);
  const attempt = await reserveAttempt(`user:${caller.userId}`);
  const current = user?.passwordHash ? await verifyPassword(password, user.passwordHash) : undefined;
  if (!user?.passwordHash || !current?.ok) throw invalidInput('The current password is wrong.');
  await attempt.succeeded();
  return { ...user, passwordHash: user.passwordHash };
}

/** Changes the password after checking the current one, and signs out every other session. */
export async function changePassword(
  store: Store,
  caller: Caller,
  input: { currentPassword: string; newPassword: string },
  reserveAttempt: ReservePasswordAttempt,
): Promise<void> {
  const user = await checkOwnPassword(store, caller, input.currentPassword, reserveAttempt);
  if (input.newPassword === input.currentPassword)
    throw invalidInput('The new password is the same as the current one.');
  const oldHash = user.passwordHash;
  const passwordHash = await hashPassword(input.newPassword);
  await store.transaction(async (trx) => {
    // Only over the hash that was checked: of two changes sent at once, one wins and the other is told.
    if (!(await replacePasswordHash(trx, caller.userId, oldHash, passwordHash))) {
      throw conflict('Your password was changed by another request at the same moment. Sign in with the new password.');
    }
    await deleteOtherSessions(trx, caller.userId, caller.credential.id);
  });
}

const emailTaken = (email: string) => conflict(`${email} is already the email of another account.`);

/**
 * Runs `change` (a transaction) after which the user's email is `email`: it stores it in `trx`,
 * 409 when another account has it. Two accounts claiming one email at once: PostgreSQL's unique
 * index has the last word, and the loser gets the same 409.
 */
export async function claimingOwnEmail<T>(
  email: string,
  userId: string,
  change: (store: (trx: Db) => Promise<void>) => Promise<T>,
): Promise<T> {
  try {
    return await change(async (trx) => {
      const holder = await findUserByEmail(trx, email);
      if (holder && holder.id !== userId) throw emailTaken(email);
      await setEmail(trx, userId, email);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw emailTaken(email);
    throw error;
  }
}

/**
 * POST /auth/email: an owner or admin changes their own email (their sign-in), confirmed with
 * their password as a password change is (a wrong one spends the sign-in budgets). A member asks
 * the server's operator (`admin user set-email`). A taken email is a 409 saying so.
 */
export async function changeOwnEmail(
  store: Store,
  caller: Caller,
  input: { email: string; currentPassword: string },
  reserveAttempt: ReservePasswordAttempt,
): Promise<void> {
  const mayChange = () => {
    if (!managesTeam(caller.role)) {
      throw forbidden(
        "Only the team's owners and admins can change their own email; the server's operator can change yours.",
      );
    }
  };
  mayChange();
  const email = input.email.trim().toLowerCase();
  await checkOwnPassword(store, caller, input.currentPassword, reserveAttempt);
  // The role is checked again as read in the change's transaction (auth/caller-check.ts).
  await claimingOwnEmail(email, caller.userId, (storeEmail) => withPrologue(store, mayChange).transaction(storeEmail));
}

/**
 * Replaces a hash made by an older scheme or with weaker parameters, now that the password is
 * at hand. Best effort: if it fails (the hash slots are busy, say) the old hash keeps working
 * and the next sign-in tries again.
 */
async function rehash(store: Store, userId: string, oldHash: string, password: string): Promise<void> {
  try {
    await replacePasswordHash(store.db, userId, oldHash, await hashPassword(password));
  } catch {
    // Nothing lost: the stored hash is unchanged and still verifies.
  }
}

/** Guards session-only endpoints (key management, profile): an API key cannot use them. */
export function requireSession(caller: Caller, what: string): void {
  if (caller.credential.kind !== 'session') {
    throw new AppError('forbidden', `${what} needs a signed-in web session; an API key cannot do it.`);
  }
}
