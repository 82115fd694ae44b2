/** `admin status …`: the team's workflow statuses (rules in statuses/statuses.service.ts). */
import type { Store } from '../../storage/database.js';
import * as statuses from '../../statuses/statuses.service.js';
import {
  AdminError,
  given,
  nonEmpty,
  numericId,
  requireTeam,
  text,
  uuidOption,
  wholeNumber,
  type CommandGroup,
} from './command.js';

/** The team of the status named by --id (status ids are unique across teams, as list ids are). */
async function teamOfStatus(store: Store, statusId: number): Promise<string> {
  const teamId = await statuses.teamOfStatus(store, statusId);
  if (!teamId) throw new AdminError(`status ${statusId} not found`);
  return teamId;
}

const STATUS_SHAPE = '{"id", "name", "color", "isDefault", "isCompleted", "order"}';
const ORDER_RULE = 'An --order another status holds is made free: that status and every later one move down by one.';

export const statusCommands: CommandGroup = {
  title: `Workflow statuses (a team has exactly one default; statuses sort by order). ${ORDER_RULE}`,
  commands: {
    'status list': {
      summary: `the team's statuses, by order → {"orgId", "statuses": [${STATUS_SHAPE}]}`,
      usage: '--org TEAM_ID',
      options: { org: { type: 'string' } },
      required: ['org'],
      async run(store, o) {
        const org = await requireTeam(store, uuidOption(o, 'org'));
        return { orgId: org.id, statuses: await statuses.statusesOfTeam(store, org.id) };
      },
    },
    'status create': {
      summary: `a new status, after the last unless --order is given; --default makes it the only default → ${STATUS_SHAPE}`,
      usage: '--org TEAM_ID --name NAME [--color HEX] [--default] [--completed] [--order N]',
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
        return statuses.createStatus(store, org.id, {
          name: nonEmpty(text(o, 'name'), '--name'),
          color: given(o, 'color') ?? null,
          isDefault: o.default === true,
          isCompleted: o.completed === true,
          order: wholeNumber(o, 'order'),
        });
      },
    },
    'status update': {
      summary:
        'changes what is given; --default makes it the default in place of the current one (which ' +
        "cannot be unset otherwise); --completed / --not-completed change its tasks' isCompleted → " +
        STATUS_SHAPE,
      usage: '--id STATUS_ID [--name NAME] [--color HEX] [--order N] [--default] [--completed | --not-completed]',
      options: {
        id: { type: 'string' },
        name: { type: 'string' },
        color: { type: 'string' },
        order: { type: 'string' },
        default: { type: 'boolean' },
        completed: { type: 'boolean' },
        'not-completed': { type: 'boolean' },
      },
      required: ['id'],
      async run(store, o) {
        if (o.completed && o['not-completed']) throw new AdminError('give --completed or --not-completed, not both');
        const changes: statuses.StatusChanges = {
          name: given(o, 'name') === undefined ? undefined : nonEmpty(text(o, 'name'), '--name'),
          color: given(o, 'color'),
          order: wholeNumber(o, 'order'),
          isDefault: o.default ? true : undefined,
          isCompleted: o.completed ? true : o['not-completed'] ? false : undefined,
        };
        if (Object.values(changes).every((value) => value === undefined)) {
          throw new AdminError(
            'nothing to change: give --name, --color, --order, --default, --completed or --not-completed',
          );
        }
        const id = numericId(o, 'id');
        return statuses.updateStatus(store, await teamOfStatus(store, id), id, changes);
      },
    },
    'status delete': {
      summary:
        'deletes a status that is not the default, moving its tasks to --move-to in the same ' +
        'transaction (their isCompleted follows) → {"deleted": true, "movedTo": STATUS_ID, "movedTasks": N}',
      usage: '--id STATUS_ID --move-to STATUS_ID',
      options: { id: { type: 'string' }, 'move-to': { type: 'string' } },
      required: ['id', 'move-to'],
      async run(store, o) {
        const [id, moveTo] = [numericId(o, 'id'), numericId(o, 'move-to')];
        const result = await statuses.deleteStatus(store, await teamOfStatus(store, id), id, moveTo);
        return { deleted: true, movedTo: result.movedTo.id, movedTasks: result.movedTasks };
      },
    },
  },
};
