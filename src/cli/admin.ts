/**
 * `tasklane admin …`: works directly on the database named by DATABASE_URL (never over HTTP),
 * also while a server runs on it. On success it prints exactly one JSON object on stdout, and on
 * stderr which database it opened (and any warning); on failure one line on stderr, naming the
 * database, and a non-zero exit. Only `org create` may create a database: any other command run
 * in the wrong folder would otherwise make an empty one there and then report "not found".
 */
import { parseArgs } from 'node:util';
import { bridgeToBus } from '../changes/bridge.js';
import { createEventBus, type EventBus } from '../changes/bus.js';
import { ConfigError, DEFAULT_DATABASE_URL, loadConfig } from '../config.js';
import { AppError } from '../http/errors.js';
import { BackupError } from '../storage/backup.js';
import { checkConnection, DatabaseConnectionError } from '../storage/connection-check.js';
import { databaseLocation, MissingDatabaseError, openStore, type Store } from '../storage/database.js';
import { migrateToLatest } from '../storage/migrate.js';
import {
  AdminError,
  type AdminIo,
  type Command,
  type CommandGroup,
  type DatabaseCommand,
  type Options,
} from './admin/command.js';
import { printLine, type CliIo } from './io.js';
import { backupCommands } from './admin/backup.js';
import { exportCommands } from './admin/exports.js';
import { invitationCommands } from './admin/invitations.js';
import { mailCommands } from './admin/mail.js';
import { jobsCommands } from './admin/jobs.js';
import { accessCommands } from './admin/keys.js';
import { statusCommands } from './admin/statuses.js';
import { teamCommands } from './admin/teams.js';
import { userCommands } from './admin/users.js';
import { webhookCommands } from './admin/webhooks.js';
import { PasswordInputError, readPassword } from './password-input.js';

const GROUPS: CommandGroup[] = [
  teamCommands,
  userCommands,
  accessCommands,
  invitationCommands,
  statusCommands,
  webhookCommands,
  mailCommands,
  jobsCommands,
  backupCommands,
  exportCommands,
];
const COMMANDS: Record<string, Command | DatabaseCommand> = Object.assign({}, ...GROUPS.map((group) => group.commands));

/** Words of `text` in lines of at most `width` characters, each starting with `indent`. */
function wrap(text: string, indent: string, width = 100): string[] {
  const lines: string[] = [];
  let line = indent;
  for (const word of text.split(' ')) {
    if (line.length > indent.length && line.length + 1 + word.length > width) {
      lines.push(line);
      line = indent;
    }
    line += line.length > indent.length ? ` ${word}` : word;
  }
  return [...lines, line];
}

function help(): string {
  return [
    'usage: tasklane admin <command> [options]',
    '',
    `Works on the database that DATABASE_URL names (default ${DEFAULT_DATABASE_URL}, a path relative to`,
    'the current folder), also while a server runs on it. Prints one JSON object on stdout and, on',
    'stderr, the database it opened. Only "org create" may create a new database.',
    '--org takes a team\'s id: team.id in GET /v1/me, or "admin org list" (the flag keeps the name org).',
    '--user takes a user\'s id: from "admin user create", "admin user list" or "admin member list".',
    ...GROUPS.flatMap((group) => [
      '',
      ...wrap(group.title, ''),
      ...Object.entries(group.commands).flatMap(([name, c]) => [
        `  ${name} ${c.usage}`.trimEnd(),
        ...wrap(c.summary, '      '),
      ]),
    ]),
  ].join('\n');
}

function usageOf(name: string, command: Command | DatabaseCommand): string {
  return `usage: tasklane admin ${name} ${command.usage}`.trimEnd();
}

/** The command's options, or a one-line usage error. */
function parseOptions(name: string, command: Command | DatabaseCommand, args: string[]): Options | string {
  let options: Options;
  try {
    options = parseArgs({ args, options: command.options, strict: true }).values;
  } catch (error) {
    return `${(error as Error).message.split('\n')[0]} (${usageOf(name, command)})`;
  }
  const missing = command.required.filter((option) => options[option] === undefined);
  if (missing.length > 0) return `missing ${missing.map((m) => `--${m}`).join(', ')} (${usageOf(name, command)})`;
  return options;
}

/** Runs one admin command with `io`'s streams and environment; resolves to the exit code. */
export async function runAdmin(argv: string[], io: CliIo): Promise<number> {
  // Commands are two words ("org create"), or one for the database as a whole ("backup").
  const name = argv[0] !== undefined && COMMANDS[argv[0]] ? argv[0] : argv.slice(0, 2).join(' ');
  const command = COMMANDS[name];
  const args = argv.slice(name.split(' ').length);
  if (!command) {
    if (argv[0] === 'help' || argv[0] === '--help' || argv.length === 0) {
      printLine(io.stdout, help());
      return 0;
    }
    printLine(io.stderr, `unknown admin command "${name}"; run "tasklane admin help"`);
    return 2;
  }
  if (args.some((arg) => arg === '--help' || arg === '-h')) {
    printLine(io.stdout, [usageOf(name, command), ...wrap(command.summary, '  ')].join('\n'));
    return 0;
  }
  const options = parseOptions(name, command, args);
  if (typeof options === 'string') {
    printLine(io.stderr, options);
    return 2;
  }

  let store: Store | undefined;
  let bus: EventBus | undefined;
  let stopBridge: (() => void) | undefined;
  let database: string | undefined;
  const notes: string[] = [];
  try {
    const config = loadConfig(io.env);
    const location = databaseLocation(config.databaseUrl);
    const createsDatabase = 'createsDatabase' in command && command.createsDatabase === true;
    if (!location.exists && !createsDatabase) throw new MissingDatabaseError(location.shown);
    database = location.shown;
    const adminIo: AdminIo = {
      config,
      note: (message) => notes.push(message),
      readPassword: (whose) => readPassword(whose, location.shown, io),
      linkBase: () => {
        if (config.publicUrl) return config.publicUrl;
        const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
        notes.push(
          `PUBLIC_URL is not set: the link points at ${base} (from HOST and PORT); ` +
            'set PUBLIC_URL to the address people open tasklane at',
        );
        return base;
      },
    };
    let result: object;
    if ('runOnDatabase' in command) {
      result = await command.runOnDatabase(config.databaseUrl, options, adminIo);
    } else {
      store = openStore(config.databaseUrl, { poolSize: 2, create: createsDatabase });
      await checkConnection(store, config.databaseUrl);
      await migrateToLatest(store);
      // What the command commits reaches the running servers as the server's own changes do
      // (changes/bridge.ts): their streams and webhook workers wake, and streams of ended access end.
      bus = createEventBus(store, config.databaseUrl, { listen: false });
      stopBridge = bridgeToBus(bus);
      result = await command.run(store, options, adminIo);
    }
    printLine(io.stdout, JSON.stringify(result));
    printLine(
      io.stderr,
      location.exists ? `database: ${database}` : `database: ${database} (a new database, created now)`,
    );
    for (const note of notes) printLine(io.stderr, note);
    return 0;
  } catch (error) {
    // One line, whatever the error's own message holds.
    printLine(io.stderr, failure(name, error, database).replace(/\s*\n\s*/g, ' '));
    return 1;
  } finally {
    stopBridge?.();
    await bus?.close();
    await store?.close();
  }
}

/** The one line a failure prints: the reason, and the database it happened in. */
function failure(name: string, error: unknown, database: string | undefined): string {
  if (error instanceof MissingDatabaseError) {
    return (
      `there is no database at ${error.path}, and "admin ${name}" does not create one: set DATABASE_URL to ` +
      `the server's database (the default, ${DEFAULT_DATABASE_URL}, is relative to the current folder), ` +
      'or run "admin org create" to start a new one'
    );
  }
  if (error instanceof ConfigError) return error.message;
  const known =
    error instanceof AdminError ||
    error instanceof AppError ||
    error instanceof PasswordInputError ||
    error instanceof DatabaseConnectionError ||
    error instanceof BackupError;
  const reason = known
    ? error.message
    : `admin ${name} failed: ${error instanceof Error ? error.message : String(error)}`;
  return database === undefined ? reason : `${reason} (database: ${database})`;
}
