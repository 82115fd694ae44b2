/**
 * `admin user …`: people. A password is read from a prompt or stdin (password-input.ts), never
 * taken from the command line, where `ps` shows it to every user of the machine and the shell
 * keeps it in its history; `user create --password` still works for old scripts, with a warning.
 */
import * as accounts from '../../membership/accounts.service.js';
import * as team from '../../team/team.service.js';
import {
  AdminError,
  given,
  nonEmpty,
  requireTeam,
  requireUser,
  text,
  uuidOption,
  type CommandGroup,
} from './command.js';

const ARGV_PASSWORD_WARNING =
  'warning: --password shows the password to every user of this machine (ps) and leaves it in your ' +
  'shell history; use --password-stdin, or "admin user set-password", instead';

export const userCommands: CommandGroup = {
  title: 'Users',
  commands: {
    'user create': {
      summary:
        'a new user; with a password they can also sign in to the web app → {"id", "email", "name"}. ' +
        '--password-stdin reads the password as "user set-password" does; --password PW warns (ps and shell history)',
      usage: '--email EMAIL --name NAME [--password-stdin | --password PW]',
      options: {
        email: { type: 'string' },
        name: { type: 'string' },
        'password-stdin': { type: 'boolean' },
        password: { type: 'string' },
      },
      required: ['email', 'name'],
      async run(store, o, io) {
        const name = nonEmpty(text(o, 'name'), '--name');
        let password = given(o, 'password');
        if (password !== undefined) {
          if (o['password-stdin']) throw new AdminError('give --password-stdin or --password, not both');
          io.note(ARGV_PASSWORD_WARNING);
        } else if (o['password-stdin']) {
          password = await io.readPassword(text(o, 'email'));
        }
        const user = await team.createUser(store, { email: text(o, 'email'), name, password });
        return { id: user.id, email: user.email, name: user.name };
      },
    },
    'user list': {
      summary: 'every user, or with --org the team\'s members, by email → {"users": [{"id", "email", "name"}]}',
      usage: '[--org TEAM_ID]',
      options: { org: { type: 'string' } },
      required: [],
      async run(store, o) {
        const org = o.org === undefined ? undefined : await requireTeam(store, uuidOption(o, 'org'));
        return { users: await team.listUsers(store, org?.id) };
      },
    },
    'user set-password': {
      summary:
        'sets the password (8 to 200 characters), read without echo on a terminal (asked twice), ' +
        'else the first line of stdin; ends every web session of the user, as a password change ' +
        'in the web app ends the others (API keys keep working) → {"passwordSet": true, "sessionsEnded": N}',
      usage: '--user USER_ID',
      options: { user: { type: 'string' } },
      required: ['user'],
      async run(store, o, io) {
        const user = await requireUser(store, uuidOption(o, 'user'));
        const password = await io.readPassword(user.email);
        return { passwordSet: true, sessionsEnded: await accounts.setPassword(store, user.id, password) };
      },
    },
    'user set-email': {
      summary: 'changes the email, which must be free → {"id", "email", "name"}',
      usage: '--user USER_ID --email EMAIL',
      options: { user: { type: 'string' }, email: { type: 'string' } },
      required: ['user', 'email'],
      async run(store, o) {
        const user = await team.setEmail(store, uuidOption(o, 'user'), text(o, 'email'));
        return { id: user.id, email: user.email, name: user.name };
      },
    },
  },
};
