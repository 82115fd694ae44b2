/**
 * `tasklane admin …`: works directly on the database named by DATABASE_URL (never over HTTP),
 * also while a server runs on it. Prints exactly one JSON object on success; on failure one
 * line on stderr and a non-zero exit.
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import { AppError } from '../http/errors.js';
import { isUuid, toId } from '../ids.js';
import { ExpiryError, resolveExpiry } from '../keys/key-expiry.js';
import { findKey, insertKey, revokeKey } from '../keys/keys.repository.js';
import { findListById, findListLocked } from '../lists/lists.repository.js';
import { grantListMembership, revokeListMembership } from '../lists/lists.service.js';
import { notifyServers } from '../realtime/bus.js';
import { insertStatus } from '../statuses/statuses.repository.js';
import { openStore, type Store } from '../storage/database.js';
import type { Locked } from '../storage/dialect.js';
import { migrateToLatest } from '../storage/migrate.js';
import { ROLES } from '../contract/enums.js';
import type { Db, ListRow, Role } from '../storage/schema.js';
import { deleteMember, findMembership, findTeam, upsertMember } from '../teams/teams.repository.js';
import { createTeam } from '../teams/teams.service.js';
import { hashPassword } from '../users/passwords.js';
import { findUser, findUserByEmail, insertUser } from '../users/users.repository.js';

/** A failure the operator caused: printed as one line, exit code 1. */
class AdminError extends Error {}

type Options = Record<string, string | boolean | undefined>;
interface Command {
  usage: string;
  options: Record<string, { type: 'string' | 'boolean' }>;
  required: string[];
  run(store: Store, o: Options): Promise<object>;
}

const text = (o: Options, name: string): string => String(o[name]);
/** Ids as printed, in any case: user, team and key ids are UUIDs stored in lower case. */
const uuidOption = (o: Options, name: string): string => text(o, name).toLowerCase();

async function requireTeam(store: Store, id: string) {
  const team = isUuid(id) ? await findTeam(store.db, id) : undefined;
  if (!team) throw new AdminError(`org ${id} not found`);
  return team;
}

async function requireUser(store: Store, id: string) {
  const user = isUuid(id) ? await findUser(store.db, id) : undefined;
  if (!user) throw new AdminError(`user ${id} not found`);
  return user;
}

async function requireList(store: Store, raw: string) {
  const id = /^\d+$/.test(raw) ? toId(raw) : null;
  const list = id === null ? undefined : await findListById(store.db, id);
  if (!list) throw new AdminError(`list ${raw} not found`);
  return list;
}

/** The list again, under its lock in `trx`, as list membership changes require (lists.service.ts). */
async function lockList(trx: Db, list: ListRow): Promise<Locked<ListRow>> {
  const locked = await findListLocked(trx, list.team_id, list.id);
  if (!locked) throw new AdminError(`list ${list.id} not found`);
  return locked;
}

function nonEmpty(value: string, what: string): string {
  if (!value.trim()) throw new AdminError(`${what} must not be empty`);
  return value;
}

/** --expires-in-days / --expires-at → the expiry to store, or null. */
function keyExpiry(o: Options): string | null {
  const given = (name: string) => (o[name] === undefined ? undefined : text(o, name));
  try {
    return resolveExpiry(
      { expiresAt: given('expires-at'), expiresInDays: given('expires-in-days') },
      { expiresAt: '--expires-at', expiresInDays: '--expires-in-days' },
    );
  } catch (error) {
    if (error instanceof ExpiryError) throw new AdminError(error.message);
    throw error;
  }
}

const COMMANDS: Record<string, Command> = {
  'org create': {
    usage: '--name NAME',
    options: { name: { type: 'string' } },
    required: ['name'],
    async run(store, o) {
      const team = await store.transaction((trx) => createTeam(trx, nonEmpty(text(o, 'name'), '--name')));
      return { id: team.id, name: team.name };
    },
  },
  'user create': {
    usage: '--email EMAIL --name NAME [--password PW]',
    options: { email: { type: 'string' }, name: { type: 'string' }, password: { type: 'string' } },
    required: ['email', 'name'],
    async run(store, o) {
      const email = text(o, 'email').trim();
      if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new AdminError(`"${email}" is not an email address`);
      if (o.password !== undefined && String(o.password).length < 8) {
        throw new AdminError('--password must be at least 8 characters long');
      }
      const passwordHash = o.password === undefined ? null : await hashPassword(String(o.password));
      const user = await store.transaction(async (trx) => {
        if (await findUserByEmail(trx, email)) throw new AdminError(`a user with email ${email} already exists`);
        return insertUser(trx, { email, name: nonEmpty(text(o, 'name'), '--name'), passwordHash });
      });
      return { id: user.id, email: user.email, name: user.name };
    },
  },
  'member add': {
    usage: '--org ORG --user USER [--role owner|admin|member]',
    options: { org: { type: 'string' }, user: { type: 'string' }, role: { type: 'string' } },
    required: ['org', 'user'],
    async run(store, o) {
      const role = (o.role ?? 'member') as Role;
      if (!(ROLES as readonly string[]).includes(role))
        throw new AdminError(`--role must be one of ${ROLES.join(', ')}`);
      const team = await requireTeam(store, uuidOption(o, 'org'));
      const user = await requireUser(store, uuidOption(o, 'user'));
      await upsertMember(store.db, team.id, user.id, role);
      return { orgId: team.id, userId: user.id, role };
    },
  },
  'member remove': {
    usage: '--org ORG --user USER',
    options: { org: { type: 'string' }, user: { type: 'string' } },
    required: ['org', 'user'],
    async run(store, o) {
      const team = await requireTeam(store, uuidOption(o, 'org'));
      const user = await requireUser(store, uuidOption(o, 'user'));
      const removed = await store.transaction((trx) => deleteMember(trx, team.id, user.id));
      if (!removed) throw new AdminError(`user ${user.id} is not a member of org ${team.id}`);
      return { removed: true };
    },
  },
  'key create': {
    usage: '--org ORG --user USER [--name LABEL] [--expires-in-days N | --expires-at ISO_DATE_TIME]',
    options: {
      org: { type: 'string' },
      user: { type: 'string' },
      name: { type: 'string' },
      'expires-in-days': { type: 'string' },
      'expires-at': { type: 'string' },
    },
    required: ['org', 'user'],
    async run(store, o) {
      const expiresAt = keyExpiry(o);
      const team = await requireTeam(store, uuidOption(o, 'org'));
      const user = await requireUser(store, uuidOption(o, 'user'));
      if (!(await findMembership(store.db, team.id, user.id))) {
        throw new AdminError(`user ${user.id} is not a member of org ${team.id}`);
      }
      const name = o.name === undefined ? 'admin' : nonEmpty(text(o, 'name'), '--name');
      const { row, key } = await insertKey(store.db, { teamId: team.id, userId: user.id, name, expiresAt });
      return { id: row.id, key, expiresAt: row.expires_at };
    },
  },
  'key revoke': {
    usage: '--id KEY_ID',
    options: { id: { type: 'string' } },
    required: ['id'],
    async run(store, o) {
      const id = uuidOption(o, 'id');
      if (!isUuid(id) || !(await findKey(store.db, id))) throw new AdminError(`key ${id} not found`);
      if (!(await revokeKey(store.db, id))) throw new AdminError(`key ${id} is already revoked`);
      return { revoked: true };
    },
  },
  'list-member add': {
    usage: '--list LIST --user USER',
    options: { list: { type: 'string' }, user: { type: 'string' } },
    required: ['list', 'user'],
    async run(store, o) {
      const list = await requireList(store, text(o, 'list'));
      const user = await requireUser(store, uuidOption(o, 'user'));
      await store.transaction(async (trx) => grantListMembership(store, trx, await lockList(trx, list), user.id));
      return { listId: list.id, userId: user.id };
    },
  },
  'list-member remove': {
    usage: '--list LIST --user USER',
    options: { list: { type: 'string' }, user: { type: 'string' } },
    required: ['list', 'user'],
    async run(store, o) {
      const list = await requireList(store, text(o, 'list'));
      const user = await requireUser(store, uuidOption(o, 'user'));
      await store.transaction(async (trx) => revokeListMembership(store, trx, await lockList(trx, list), user.id));
      return { removed: true };
    },
  },
  'status create': {
    usage: '--org ORG --name NAME [--color HEX] [--default] [--completed] [--order N]',
    options: {
      org: { type: 'string' },
      name: { type: 'string' },
      color: { type: 'string' },
      default: { type: 'boolean' },
      completed: { type: 'boolean' },
      order: { type: 'string' },
    },
    required: ['org', 'name'],
    async run(store, o) {
      const team = await requireTeam(store, uuidOption(o, 'org'));
      const color = o.color === undefined ? null : text(o, 'color');
      if (color !== null && !/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(color)) {
        throw new AdminError('--color must be a hex colour such as #22C55E');
      }
      let order: number | undefined;
      if (o.order !== undefined) {
        if (!/^-?\d+$/.test(text(o, 'order')))
          throw new AdminError('--order must be a whole number (write a negative one as --order=-1)');
        order = Number(o.order);
      }
      return store.transaction((trx) =>
        insertStatus(trx, team.id, {
          name: nonEmpty(text(o, 'name'), '--name'),
          color,
          isDefault: o.default === true,
          isCompleted: o.completed === true,
          order,
        }),
      );
    },
  },
};

function help(): string {
  return [
    'usage: tasklane admin <command> [options]',
    ...Object.entries(COMMANDS).map(([n, c]) => `  ${n} ${c.usage}`),
  ].join('\n');
}

/** Runs one admin command; resolves to the exit code. */
export async function runAdmin(argv: string[]): Promise<number> {
  const name = argv.slice(0, 2).join(' ');
  const command = COMMANDS[name];
  if (!command) {
    if (argv[0] === 'help' || argv.length === 0) {
      console.log(help());
      return 0;
    }
    console.error(`unknown admin command "${name}"; run "tasklane admin help"`);
    return 2;
  }

  let options: Options;
  try {
    options = parseArgs({ args: argv.slice(2), options: command.options, strict: true }).values;
  } catch (error) {
    console.error(`${(error as Error).message.split('\n')[0]} (usage: tasklane admin ${name} ${command.usage})`);
    return 2;
  }
  const missing = command.required.filter((option) => options[option] === undefined);
  if (missing.length > 0) {
    console.error(
      `missing ${missing.map((m) => `--${m}`).join(', ')} (usage: tasklane admin ${name} ${command.usage})`,
    );
    return 2;
  }

  let store: Store | undefined;
  try {
    const config = loadConfig();
    store = openStore(config.databaseUrl, { poolSize: 2 });
    await migrateToLatest(store);
    // A command that records realtime events (list-member add/remove) wakes the running servers.
    const changedTeams = new Set<string>();
    store.changes.on('events', (teamId: string) => changedTeams.add(teamId));
    const result = await command.run(store, options);
    for (const teamId of changedTeams) await notifyServers(store, teamId);
    console.log(JSON.stringify(result));
    return 0;
  } catch (error) {
    if (error instanceof AdminError || error instanceof AppError) console.error(error.message);
    else if (error instanceof ConfigError) console.error(error.message.replace(/\n\s*/g, ' '));
    else console.error(`admin ${name} failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await store?.close();
  }
}
