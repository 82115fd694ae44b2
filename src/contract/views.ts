/** Saved views: /v1/views (issue 29; docs/api.md, "Saved views"). */
import { Type, type Static } from 'typebox';
import { IdParam, Nullable, Person, StringEnum } from './common.js';
import { TASK_SORTS } from './enums.js';
import { TaskFilters, TaskSort } from './tasks.js';

/** How a view shows its tasks: the list's rows, or the board's columns. */
export const VIEW_LAYOUTS = ['rows', 'board'] as const;
export type ViewLayout = (typeof VIEW_LAYOUTS)[number];

/** Longest view name, in characters. */
export const MAX_VIEW_NAME_LENGTH = 100;

/** Most views one person may author in a team (private and shared): enough to name every question, bounded. */
export const MAX_VIEWS_PER_PERSON = 100;

const Name = Type.String({
  minLength: 1,
  maxLength: MAX_VIEW_NAME_LENGTH,
  pattern: '\\S',
  errorMessage: `name must be a string of 1 to ${MAX_VIEW_NAME_LENGTH} characters with at least one non-whitespace character.`,
});
/** Checked against GET /v1/tasks's own parameters by the service (views.service.ts), which names the bad one. */
const FilterScalar = { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] };
const FiltersIn = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  // Each value a query string could hold, so nothing deeper reaches the service's own check.
  additionalProperties: { anyOf: [FilterScalar, { type: 'array', items: FilterScalar }] },
  errorMessage: 'filters must be an object of GET /v1/tasks query parameters.',
  description:
    "GET /v1/tasks's query parameters as an object, but limit, sort and cursor; repeatable ones as arrays " +
    '(`{"priority": ["high", "urgent"], "isCompleted": "false"}`). Values are read as the query string reads ' +
    'them (a number for an id, true/false, a single value for a one-item array), and stored as GET /v1/tasks takes them.',
});
const Layout = StringEnum(VIEW_LAYOUTS, { errorMessage: `layout must be one of: ${VIEW_LAYOUTS.join(', ')}.` });
const Shared = Type.Boolean({
  errorMessage: 'sharedWithTeam must be true or false.',
  description: 'Shared: every member of the team sees it (each sees only the tasks they can read).',
});
const SortIn = Nullable(TaskSort);

export const CreateViewBody = Type.Object(
  {
    name: Name,
    filters: FiltersIn,
    sort: Type.Optional(SortIn),
    layout: Layout,
    sharedWithTeam: Type.Optional(Shared),
  },
  { additionalProperties: false },
);
export type CreateViewBody = Static<typeof CreateViewBody>;

export const UpdateViewBody = Type.Object(
  {
    name: Type.Optional(Name),
    filters: Type.Optional(FiltersIn),
    sort: Type.Optional(SortIn),
    layout: Type.Optional(Layout),
    sharedWithTeam: Type.Optional(Shared),
  },
  { additionalProperties: false },
);
export type UpdateViewBody = Static<typeof UpdateViewBody>;

export const ViewIdParams = IdParam('viewId');

export const View = Type.Object({
  id: Type.Number(),
  name: Type.String(),
  filters: TaskFilters,
  sort: Nullable(StringEnum(TASK_SORTS, { description: 'A GET /v1/tasks sort, or null: newest first.' })),
  layout: Layout,
  sharedWithTeam: Type.Boolean(),
  author: Type.Union([Person, Type.Null()], { description: "null: the team's, its author having left." }),
  canManage: Type.Boolean({ description: 'Whether the caller may change and delete it.' }),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
export type View = Static<typeof View>;

export const ViewDeleted = Type.Object({ id: Type.Number(), deleted: Type.Boolean() });
export type ViewDeleted = Static<typeof ViewDeleted>;
