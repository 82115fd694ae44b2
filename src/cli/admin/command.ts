/** What every `tasklane admin` command is made of, and the option helpers they share. */
import type { Config } from '../../config.js';
import type { Store } from '../../storage/database.js';
import * as team from '../../team/team.service.js';

/** A failure the operator caused: printed as one line, exit code 1. */
export class AdminError extends Error {}

export type Options = Record<string, string | boolean | undefined>;

/** What a command may use besides the store. */
export interface AdminIo {
  /** A line for stderr, printed once the command has succeeded (stdout keeps its one JSON object). */
  note(message: string): void;
  /** A password: asked for without echo on a terminal, else the first line of stdin (password-input.ts). */
  readPassword(whose: string): Promise<string>;
  /** Where links to this tasklane point: PUBLIC_URL, else http://HOST:PORT (with a note saying so). */
  linkBase(): string;
  /** The configuration the command runs with (the attachments' file store of `admin export`). */
  config: Config;
}

export interface Command {
  /** What it does and prints, for `admin help`. */
  summary: string;
  usage: string;
  options: Record<string, { type: 'string' | 'boolean' }>;
  required: string[];
  /** May create a missing SQLite database (only `org create`); every other command refuses to. */
  createsDatabase?: boolean;
  run(store: Store, o: Options, io: AdminIo): Promise<object>;
}

/**
 * A command on the database as a whole (a backup): it is given DATABASE_URL, and no store is
 * opened, migrated or connected to the servers' bus for it.
 */
export interface DatabaseCommand extends Omit<Command, 'run' | 'createsDatabase'> {
  runOnDatabase(databaseUrl: string, o: Options, io: AdminIo): Promise<object>;
}

/** Commands under a heading of `admin help`. */
export interface CommandGroup {
  title: string;
  commands: Record<string, Command | DatabaseCommand>;
}

/** The options of a command about one user in one team. */
export const ORG_AND_USER = { org: { type: 'string' }, user: { type: 'string' } } as const;

export const text = (o: Options, name: string): string => String(o[name]);

/** The option's value, or undefined when it was not given. */
export const given = (o: Options, name: string): string | undefined =>
  o[name] === undefined ? undefined : text(o, name);

/** Ids as printed, in any case: user, team and key ids are UUIDs stored in lower case. */
export const uuidOption = (o: Options, name: string): string => text(o, name).toLowerCase();

export function nonEmpty(value: string, what: string): string {
  if (!value.trim()) throw new AdminError(`${what} must not be empty`);
  return value;
}

/** A whole number (a status's order may be negative: `--order=-1`), or undefined when not given. */
export function wholeNumber(o: Options, name: string): number | undefined {
  const value = given(o, name);
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value))
    throw new AdminError(`--${name} must be a whole number (write a negative one as --${name}=-1)`);
  return Number(value);
}

/** A numeric id (a status's, a list's), as printed. */
export function numericId(o: Options, name: string): number {
  const value = text(o, name);
  if (!/^\d+$/.test(value)) throw new AdminError(`--${name} must be a numeric id, as printed (got "${value}")`);
  return Number(value);
}

export async function requireTeam(store: Store, id: string) {
  const found = await team.findTeam(store, id);
  if (!found) throw new AdminError(`team ${id} not found`);
  return found;
}

export async function requireUser(store: Store, id: string) {
  const user = await team.findUser(store, id);
  if (!user) throw new AdminError(`user ${id} not found`);
  return user;
}

/** The team of --org and the user of --user, both of which must exist. */
export async function teamAndUser(store: Store, o: Options) {
  const org = await requireTeam(store, uuidOption(o, 'org'));
  const user = await requireUser(store, uuidOption(o, 'user'));
  return { org, user };
}
