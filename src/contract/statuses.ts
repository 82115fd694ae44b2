/** Workflow statuses: GET /v1/task-statuses, and their management by owners and admins (an extension). */
import { Type, type Static } from 'typebox';
import { IdParam, Nullable } from './common.js';

export const TaskStatus = Type.Object({
  id: Type.Number(),
  name: Type.String(),
  color: Type.Union([Type.String(), Type.Null()], { description: 'Hex colour, or null if unset.' }),
  isDefault: Type.Boolean(),
  isCompleted: Type.Boolean(),
  order: Type.Number(),
});
export type TaskStatus = Static<typeof TaskStatus>;

/** Orders stay far inside PostgreSQL's integer range, also after many shifts by one. */
export const MAX_STATUS_ORDER = 1_000_000;
/** Longest status name, in characters (code points). */
export const MAX_STATUS_NAME_LENGTH = 100;

// The messages are the service's own (statuses.service.ts), which `tasklane admin status …` gets too.
const StatusName = Type.String({
  minLength: 1,
  maxLength: MAX_STATUS_NAME_LENGTH,
  pattern: '\\S',
  errorMessage: `name must be 1 to ${MAX_STATUS_NAME_LENGTH} characters with at least one non-whitespace character.`,
});
const StatusColor = Nullable(
  Type.String({
    pattern: '^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$',
    description: 'Hex colour such as #22C55E; null: none.',
    errorMessage: 'color must be a hex colour such as #22C55E, or null.',
  }),
);
const StatusOrder = Type.Integer({
  minimum: -MAX_STATUS_ORDER,
  maximum: MAX_STATUS_ORDER,
  description:
    'Sort position. An order another status holds is made free: that status and every later one move down by one.',
  errorMessage: `order must be a whole number from -${MAX_STATUS_ORDER} to ${MAX_STATUS_ORDER}.`,
});
const Flag = (name: string, description: string) =>
  Type.Boolean({ description, errorMessage: `${name} must be true or false.` });

export const CreateStatusBody = Type.Object(
  {
    name: StatusName,
    color: Type.Optional(StatusColor),
    order: Type.Optional(StatusOrder),
    isDefault: Type.Optional(
      Flag('isDefault', 'true: the new default (the current default stops being one). Default false.'),
    ),
    isCompleted: Type.Optional(Flag('isCompleted', 'true: tasks in it are done. Default false.')),
  },
  { additionalProperties: false },
);
export type CreateStatusBody = Static<typeof CreateStatusBody>;

export const UpdateStatusBody = Type.Object(
  {
    name: Type.Optional(StatusName),
    color: Type.Optional(StatusColor),
    order: Type.Optional(StatusOrder),
    isDefault: Type.Optional(
      Flag(
        'isDefault',
        'true makes it the default in place of the current one; false on the default is refused (make another the default instead).',
      ),
    ),
    isCompleted: Type.Optional(Flag('isCompleted', "Its tasks' isCompleted follows, in the same transaction.")),
  },
  { additionalProperties: false },
);
export type UpdateStatusBody = Static<typeof UpdateStatusBody>;

export const StatusIdParams = IdParam('statusId');

export const DeleteStatusQuery = Type.Object(
  {
    moveTo: Type.String({
      pattern: '^\\d+$',
      description: "Required: the status of the team that the deleted status's tasks move to.",
      errorMessage: 'moveTo must be the id of the status its tasks move to.',
    }),
  },
  { additionalProperties: false },
);

export const StatusDeleted = Type.Object({
  id: Type.Number(),
  deleted: Type.Boolean(),
  movedTo: Type.Number({ description: 'The status its tasks moved to.' }),
  movedTasks: Type.Number({ description: 'How many tasks moved.' }),
});
export type StatusDeleted = Static<typeof StatusDeleted>;
