/** `admin webhook …`: the team's webhooks, a leaver's included (rules in webhooks/webhooks.service.ts). */
import { MAX_WEBHOOKS_PER_TEAM } from '../../contract/webhooks.js';
import * as webhooks from '../../webhooks/webhooks.service.js';
import { requireTeam, uuidOption, type CommandGroup } from './command.js';

const WEBHOOK_SHAPE =
  '{"id", "url", "description", "eventTypes", "enabled", "disabledReason", "disabledAt", "failingSince", ' +
  '"previousSecretExpiresAt", "owner": {"id", "name", "email"}, "createdAt", "updatedAt"}';

export const webhookCommands: CommandGroup = {
  title:
    `Webhooks (a team's members hold at most ${MAX_WEBHOOKS_PER_TEAM} webhooks; a member's removal disables ` +
    'theirs, which then no longer count)',
  commands: {
    'webhook list': {
      summary: `every webhook of the team, oldest first, as its owners and admins see them (never a secret) → {"orgId", "webhooks": [${WEBHOOK_SHAPE}]}`,
      usage: '--org TEAM_ID',
      options: { org: { type: 'string' } },
      required: ['org'],
      async run(store, o) {
        const org = await requireTeam(store, uuidOption(o, 'org'));
        return { orgId: org.id, webhooks: await webhooks.webhooksOfTeam(store, org.id) };
      },
    },
    'webhook delete': {
      summary: 'deletes the webhook with its deliveries and their log → {"deleted": true}',
      usage: '--id WEBHOOK_ID',
      options: { id: { type: 'string' } },
      required: ['id'],
      async run(store, o) {
        await webhooks.deleteWebhookAsOperator(store, uuidOption(o, 'id'));
        return { deleted: true };
      },
    },
  },
};
