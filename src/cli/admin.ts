/**
 * `tasklane admin …`: works directly on the database named by DATABASE_URL (never over HTTP),
 * also while a server runs on it. Prints exactly one JSON object on success; on failure one
 * line on stderr and a non-zero exit.
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import { AppError } from '../http/errors.js';
import * as keys from '../keys/keys.service.js';
import * as lists from '../lists/lists.service.js';
import { notifyServers } from '../realtime/bus.js';
import * as statuses from '../statuses/statuses.service.js';
import { openStore, type Store } from '../storage/database.js';
import { migrateToLatest } from '../storage/migrate.js';
import { ROLES, type Role } from '../contract/enums.js';
import * as team from '../team/team.service.js';

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
  const found = await team.findTeam(store, id);
  if (!found) throw new AdminError(`org ${id} not found`);
  return found;
}

async function requireUser(store: Store, id: string) {
  const user = await team.findUser(store, id);
  if (!user) throw new AdminError(`user ${id} not found`);
  return user;
}

function nonEmpty(value: string, what: string): string {
  if (!value.trim()) throw new AdminError(`${what} must not be empty`);
  return value;
}

const EXPIRY_OPTIONS = { expiresAt: '--expires-at', expiresInDays: '--expires-in-days' };

/** Each command checks its options' shape, then calls the service the API uses, so each rule lives once. */
const COMMANDS: Record<string, Command> = {
  'org create': {
    usage: '--name NAME',
    options: { name: { type: 'string' } },
    required: ['name'],
    async run(store, o) {
      const created = await store.transaction((trx) => team.createTeam(trx, nonEmpty(text(o, 'name'), '--name')));
      return { id: created.id, name: created.name };
    },
  },
  'user create': {
    usage: '--email EMAIL --name NAME [--password PW]',
    options: { email: { type: 'string' }, name: { type: 'string' }, password: { type: 'string' } },
    required: ['email', 'name'],
    async run(store, o) {
      const name = nonEmpty(text(o, 'name'), '--name');
      const password = o.password === undefined ? undefined : String(o.password);
      const user = await team.createUser(store, { email: text(o, 'email'), name, password });
      return { id: user.id, email: user.email, name: user.name };
    },
  },
  'member add': {
    usage: '--org ORG --user USER [--role owner|admin|member]',
    options: { org: { type: 'string' }, user: { type: 'string' }, role: { type: 'string' } },
    required: ['org', 'user'],
    async run(store, o) {
      const role = (o.role ?? 'member') as Role;
      if (!ROLES.includes(role)) throw new AdminError(`--role must be one of ${ROLES.join(', ')}`);
      const org = await requireTeam(store, uuidOption(o, 'org'));
      const user = await requireUser(store, uuidOption(o, 'user'));
      await team.addMember(store, org.id, user.id, role);
      return { orgId: org.id, userId: user.id, role };
    },
  },
  'member remove': {
    usage: '--org ORG --user USER',
    options: { org: { type: 'string' }, user: { type: 'string' } },
    required: ['org', 'user'],
    async run(store, o) {
      const org = await requireTeam(store, uuidOption(o, 'org'));
      const user = await requireUser(store, uuidOption(o, 'user'));
      await team.removeMember(store, org.id, user.id);
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
      const org = await requireTeam(store, uuidOption(o, 'org'));
      const user = await requireUser(store, uuidOption(o, 'user'));
      const name = o.name === undefined ? 'admin' : nonEmpty(text(o, 'name'), '--name');
      const given = (option: string) => (o[option] === undefined ? undefined : text(o, option));
      const expiry = { expiresAt: given('expires-at'), expiresInDays: given('expires-in-days') };
      const created = await keys.createKeyFor(store, { teamId: org.id, userId: user.id, name, expiry }, EXPIRY_OPTIONS);
      return { id: created.id, key: created.key, expiresAt: created.expiresAt };
    },
  },
  'key revoke': {
    usage: '--id KEY_ID',
    options: { id: { type: 'string' } },
    required: ['id'],
    async run(store, o) {
      await keys.revokeKey(store, uuidOption(o, 'id'));
      return { revoked: true };
    },
  },
  'list-member add': {
    usage: '--list LIST --user USER',
    options: { list: { type: 'string' }, user: { type: 'string' } },
    required: ['list', 'user'],
    async run(store, o) {
      const user = await requireUser(store, uuidOption(o, 'user'));
      const list = await lists.addMemberAsOperator(store, text(o, 'list'), user.id);
      return { listId: list.id, userId: user.id };
    },
  },
  'list-member remove': {
    usage: '--list LIST --user USER',
    options: { list: { type: 'string' }, user: { type: 'string' } },
    required: ['list', 'user'],
    async run(store, o) {
      const user = await requireUser(store, uuidOption(o, 'user'));
      await lists.removeMemberAsOperator(store, text(o, 'list'), user.id);
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
      const org = await requireTeam(store, uuidOption(o, 'org'));
      let order: number | undefined;
      if (o.order !== undefined) {
        if (!/^-?\d+$/.test(text(o, 'order')))
          throw new AdminError('--order must be a whole number (write a negative one as --order=-1)');
        order = Number(o.order);
      }
      return statuses.createStatus(store, org.id, {
        name: nonEmpty(text(o, 'name'), '--name'),
        color: o.color === undefined ? null : text(o, 'color'),
        isDefault: o.default === true,
        isCompleted: o.completed === true,
        order,
      });
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
