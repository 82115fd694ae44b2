/** `admin org …` and `admin member …`: teams (the CLI's flag says org) and who belongs to them. */
import { ROLES, type Role } from '../../contract/enums.js';
import * as members from '../../membership/members.service.js';
import * as accounts from '../../membership/accounts.service.js';
import * as team from '../../team/team.service.js';
import {
  AdminError,
  nonEmpty,
  ORG_AND_USER,
  requireTeam,
  teamAndUser,
  text,
  uuidOption,
  type CommandGroup,
} from './command.js';

export const teamCommands: CommandGroup = {
  title: 'Teams and members',
  commands: {
    'org create': {
      summary:
        'a new team with the statuses To do (default), In progress and Done (completed); ' +
        'the one command that may create a new database → {"id", "name"}',
      usage: '--name NAME',
      options: { name: { type: 'string' } },
      required: ['name'],
      createsDatabase: true,
      async run(store, o) {
        const name = nonEmpty(text(o, 'name'), '--name');
        const created = await store.transaction((trx) => accounts.createTeam(trx, name));
        return { id: created.id, name: created.name };
      },
    },
    'org list': {
      summary: 'every team, by name → {"orgs": [{"id", "name"}]}',
      usage: '',
      options: {},
      required: [],
      async run(store) {
        return { orgs: await team.listTeams(store) };
      },
    },
    'org rename': {
      summary: 'renames the team; every member\'s open app shows the new name at once → {"id", "name"}',
      usage: '--org TEAM_ID --name NAME',
      options: { org: { type: 'string' }, name: { type: 'string' } },
      required: ['org', 'name'],
      async run(store, o) {
        const org = await requireTeam(store, uuidOption(o, 'org'));
        return team.renameTeam(store, org.id, nonEmpty(text(o, 'name'), '--name'));
      },
    },
    'member add': {
      summary:
        "adds the user to the team (as a member unless --role says otherwise), or changes a member's role " +
        '(never the last owner\'s) → {"orgId", "userId", "role"}',
      usage: '--org TEAM_ID --user USER_ID [--role owner|admin|member]',
      options: { ...ORG_AND_USER, role: { type: 'string' } },
      required: ['org', 'user'],
      async run(store, o) {
        const role = (o.role ?? 'member') as Role;
        if (!ROLES.includes(role)) throw new AdminError(`--role must be one of ${ROLES.join(', ')}`);
        const { org, user } = await teamAndUser(store, o);
        await members.setMembership(store, org.id, user.id, role);
        return { orgId: org.id, userId: user.id, role };
      },
    },
    'member remove': {
      summary:
        'removes the user from the team (never its last owner), with their list memberships and assignments ' +
        'there; their keys and sessions for it stop working, their webhooks there are disabled and the ' +
        'invitations they made revoked → {"removed": true}',
      usage: '--org TEAM_ID --user USER_ID',
      options: ORG_AND_USER,
      required: ['org', 'user'],
      async run(store, o) {
        const { org, user } = await teamAndUser(store, o);
        await members.removeMember(store, org.id, user.id);
        return { removed: true };
      },
    },
    'member list': {
      summary: 'the team\'s members, by name → {"orgId", "members": [{"id", "name", "email", "role"}]}',
      usage: '--org TEAM_ID',
      options: { org: { type: 'string' } },
      required: ['org'],
      async run(store, o) {
        const org = await requireTeam(store, uuidOption(o, 'org'));
        return { orgId: org.id, members: await team.membersOfTeam(store, org.id) };
      },
    },
  },
};
