/** `admin invitation …`: invitation links into a team (rules in invitations/invitations.service.ts). */
import { MAX_INVITATION_DAYS } from '../../contract/invitations.js';
import { ROLES, type Role } from '../../contract/enums.js';
import * as invitations from '../../invitations/invitations.service.js';
import { AdminError, given, requireTeam, uuidOption, type CommandGroup } from './command.js';

const INVITATION_SHAPE = '{"id", "role", "email", "invitedBy": {"id", "name"}, "createdAt", "expiresAt"';

export const invitationCommands: CommandGroup = {
  title:
    'Invitations (a link, shown once, lets one person join the team: a newcomer signs up there, someone with ' +
    'an account signs in; links point at PUBLIC_URL)',
  commands: {
    'invitation create': {
      summary: `a new invitation with its link; --invited-by defaults to the team's longest-standing owner → ${INVITATION_SHAPE}, "link"}`,
      usage: `--org TEAM_ID --role owner|admin|member [--email EMAIL] [--expires-in-days 1-${MAX_INVITATION_DAYS}] [--invited-by USER_ID]`,
      options: {
        org: { type: 'string' },
        role: { type: 'string' },
        email: { type: 'string' },
        'expires-in-days': { type: 'string' },
        'invited-by': { type: 'string' },
      },
      required: ['org', 'role'],
      async run(store, o, io) {
        const org = await requireTeam(store, uuidOption(o, 'org'));
        const role = String(o.role) as Role;
        if (!ROLES.includes(role)) throw new AdminError(`--role must be one of ${ROLES.join(', ')}`);
        const days = given(o, 'expires-in-days');
        if (days !== undefined && !(/^\d+$/.test(days) && Number(days) >= 1 && Number(days) <= MAX_INVITATION_DAYS)) {
          throw new AdminError(`--expires-in-days must be a whole number of days from 1 to ${MAX_INVITATION_DAYS}`);
        }
        return invitations.issueOperatorInvitation(
          store,
          {
            teamId: org.id,
            invitedBy: given(o, 'invited-by')?.toLowerCase(),
            role,
            email: given(o, 'email') ?? null,
            expiresInDays: days === undefined ? undefined : Number(days),
          },
          io.linkBase(),
        );
      },
    },
    'invitation list': {
      summary: `the team's pending invitations, newest first (never a link) → {"orgId", "invitations": [${INVITATION_SHAPE}}]}`,
      usage: '--org TEAM_ID',
      options: { org: { type: 'string' } },
      required: ['org'],
      async run(store, o) {
        const org = await requireTeam(store, uuidOption(o, 'org'));
        return { orgId: org.id, invitations: await invitations.pendingInvitations(store, org.id) };
      },
    },
    'invitation revoke': {
      summary: 'its link stops working → {"revoked": true}',
      usage: '--id INVITATION_ID',
      options: { id: { type: 'string' } },
      required: ['id'],
      async run(store, o) {
        await invitations.revokeInvitation(store, uuidOption(o, 'id'));
        return { revoked: true };
      },
    },
  },
};
