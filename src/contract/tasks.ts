/** Tasks: GET/POST /v1/tasks, GET/PATCH/DELETE /v1/tasks/{taskId}. */
import { Type, type Static } from 'typebox';
import {
  DateString,
  IdParam,
  MAX_ID,
  MAX_IDS_PER_FIELD,
  Nullable,
  NullableNumber,
  NullableString,
  Person,
  StringEnum,
  Uuid,
} from './common.js';
import { PRIORITIES, TASK_SORT_KEYS, TASK_SORTS, type Priority } from './enums.js';
import { Label, MAX_LABELS_PER_TASK } from './labels.js';

/** Longest task title, in characters (Unicode code points). */
export const MAX_TITLE_LENGTH = 500;
/** Longest task description, in characters: a long CommonMark document, far below BODY_LIMIT_BYTES. */
export const MAX_DESCRIPTION_LENGTH = 100_000;

const Id = (name: string, options: object = {}) =>
  Type.String({ pattern: '^\\d+$', errorMessage: `${name} must be a number.`, ...options });
const PriorityField = StringEnum(PRIORITIES, {
  errorMessage: `priority must be one of: ${PRIORITIES.join(', ')}, or null.`,
});
const Title = Type.String({
  minLength: 1,
  maxLength: MAX_TITLE_LENGTH,
  pattern: '\\S',
  errorMessage: `title must be a string of 1 to ${MAX_TITLE_LENGTH} characters with at least one non-whitespace character.`,
});
/**
 * CommonMark source, as a description or a comment holds it: at most `maxLength` characters
 * (code points), and, like every string of a request, text both stores keep as sent
 * (http/validation.ts). It is stored as written and rendered (sanitised) by clients.
 */
export const MarkdownSource = (options: {
  maxLength: number;
  errorMessage: string;
  minLength?: number;
  pattern?: string;
}) => Type.String(options);

const Description = Nullable(
  MarkdownSource({
    maxLength: MAX_DESCRIPTION_LENGTH,
    errorMessage: `description must be a string of at most ${MAX_DESCRIPTION_LENGTH.toLocaleString('en-US')} characters, or null.`,
  }),
);
const DueDate = (name: string, options: object = {}) =>
  DateString({ errorMessage: `${name} must be a real calendar date written YYYY-MM-DD.`, ...options });
const ListIds = Type.Array(Type.Integer({ minimum: 1, maximum: MAX_ID }), {
  maxItems: MAX_IDS_PER_FIELD,
  errorMessage: `taskListIds must be an array of list IDs (numbers), at most ${MAX_IDS_PER_FIELD.toLocaleString('en-US')}.`,
});
const AssigneeIds = Type.Array(Uuid(), {
  maxItems: MAX_IDS_PER_FIELD,
  errorMessage: `assigneeIds must be an array of user IDs (UUIDs), at most ${MAX_IDS_PER_FIELD.toLocaleString('en-US')}.`,
});
const LabelIds = Type.Array(Type.Integer({ minimum: 1, maximum: MAX_ID }), {
  maxItems: MAX_IDS_PER_FIELD,
  description: `Labels of the team (an extension): the task's whole set, at most ${MAX_LABELS_PER_TASK}.`,
  errorMessage: `labelIds must be an array of label IDs (numbers), at most ${MAX_LABELS_PER_TASK}.`,
});
const StatusId = Type.Integer({
  minimum: 1,
  maximum: MAX_ID,
  errorMessage: 'taskStatusId must be a task status ID (a number).',
});

export const TaskIdParams = IdParam('taskId');

export const TaskSort = StringEnum(TASK_SORTS, {
  errorMessage: `sort must be one of ${TASK_SORT_KEYS.join(', ')}, each with a leading - for descending.`,
  description:
    'The order: a key ascending, or descending with a leading `-`. Ties are broken by id (in the same direction); ' +
    'tasks without a due date or priority come last either way. Priority ascends low, medium, high, urgent; ' +
    'title ascends by lower-cased code points. Without sort: newest first, as always.',
});
/** Most characters of a cursor: it carries a sort value, a title at most (500 characters). */
const MAX_CURSOR_LENGTH = 4_096;

/** A filter given by repeating its parameter: a task matches any of the values. */
const repeated = (what: string) => `${what}; a task matches any of them. Repeat the parameter to give several.`;

export const TaskQuery = Type.Object(
  {
    taskListId: Type.Optional(
      Type.Array(Id('taskListId'), {
        maxItems: MAX_IDS_PER_FIELD,
        description: repeated('List IDs: tasks attached to these lists'),
      }),
    ),
    query: Type.Optional(
      Type.String({
        maxLength: 200,
        errorMessage: 'query must be a single string of at most 200 characters.',
        description: 'Case-insensitive substring of the title; empty is no filter.',
      }),
    ),
    assigneeId: Type.Optional(
      Type.Array(Uuid({ errorMessage: 'assigneeId must be a user ID (UUID).' }), {
        maxItems: MAX_IDS_PER_FIELD,
        description: repeated('User IDs (UUIDs): tasks assigned to these users'),
      }),
    ),
    taskStatusId: Type.Optional(
      Type.Array(Id('taskStatusId'), {
        maxItems: MAX_IDS_PER_FIELD,
        description: repeated('Task status IDs: tasks in these statuses'),
      }),
    ),
    isCompleted: Type.Optional(
      StringEnum(['true', 'false'], {
        errorMessage: 'isCompleted must be true or false.',
        description: 'true: only completed tasks; false: only tasks not completed; omitted: both.',
      }),
    ),
    priority: Type.Optional(
      Type.Array(StringEnum(PRIORITIES, { errorMessage: `priority must be one of: ${PRIORITIES.join(', ')}.` }), {
        maxItems: 4,
        description: repeated(`Priorities (${PRIORITIES.join(', ')}): tasks with these priorities`),
      }),
    ),
    dueDateFrom: Type.Optional(
      DueDate('dueDateFrom', {
        description: 'Inclusive lower bound of dueDate (YYYY-MM-DD); tasks without a due date are left out.',
      }),
    ),
    dueDateTo: Type.Optional(
      DueDate('dueDateTo', {
        description: 'Inclusive upper bound of dueDate (YYYY-MM-DD); tasks without a due date are left out.',
      }),
    ),
    parentId: Type.Optional(
      Id('parentId', { description: 'A task ID: only the subtasks of that task (an extension).' }),
    ),
    labelId: Type.Optional(
      Type.Array(Id('labelId'), {
        maxItems: MAX_IDS_PER_FIELD,
        description: repeated('Label IDs: tasks carrying these labels (an extension)'),
      }),
    ),
    include: Type.Optional(
      StringEnum(['labels'], {
        errorMessage: 'include must be labels.',
        description: 'labels: each task also carries its `labels` (an extension); omitted: the summary as published.',
      }),
    ),
    limit: Type.Optional(
      Type.String({
        pattern: '^(?:[1-9][0-9]{0,2}|1000)$',
        errorMessage: 'limit must be a whole number from 1 to 1000.',
        description: 'The most tasks returned, a whole number from 1 to 1000; default 1000.',
      }),
    ),
    sort: Type.Optional(TaskSort),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_CURSOR_LENGTH,
        pattern: '^[A-Za-z0-9_-]+$',
        errorMessage: 'cursor must be a cursor from the Link header of a sorted page of GET /v1/tasks.',
        // sort=number's position after task number 1 (id 1).
        examples: ['WyJudW1iZXIiLDEsMV0'],
        description:
          "With `sort` only: where the next page starts, as the previous page's Link header names it (opaque). " +
          'A sorted page that has more after it sends `Link: <…&cursor=…>; rel="next"`.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type TaskQuery = Static<typeof TaskQuery>;

/**
 * GET /v1/tasks's filters: its query parameters but the page's own (limit, sort, cursor). A saved
 * view stores these, validated by this schema, so a filter added to GET /v1/tasks is a view's too.
 */
const PAGE_PARAMETERS: readonly string[] = ['limit', 'sort', 'cursor'];
export const TaskFilters = Type.Object(
  Object.fromEntries(Object.entries(TaskQuery.properties).filter(([name]) => !PAGE_PARAMETERS.includes(name))) as Omit<
    typeof TaskQuery.properties,
    'limit' | 'sort' | 'cursor'
  >,
  { additionalProperties: false },
);
export type TaskFilters = Static<typeof TaskFilters>;

/** GET /v1/tasks.csv's query: GET /v1/tasks's filters and sort, for every task that matches (no pages; issue 32). */
export const TaskCsvQuery = Type.Object(
  { ...TaskFilters.properties, sort: TaskQuery.properties.sort },
  { additionalProperties: false },
);
export type TaskCsvQuery = Static<typeof TaskCsvQuery>;

export const CreateTaskBody = Type.Object(
  {
    title: Title,
    description: Type.Optional(Description),
    priority: Type.Optional(Nullable(PriorityField)),
    dueDate: Type.Optional(Nullable(DueDate('dueDate'))),
    taskStatusId: Type.Optional(StatusId),
    taskListIds: Type.Optional(ListIds),
    parentId: Type.Optional(
      Nullable(Type.Integer({ minimum: 1, maximum: MAX_ID, errorMessage: 'parentId must be a task ID (a number).' })),
    ),
    assigneeIds: Type.Optional(AssigneeIds),
    labelIds: Type.Optional(LabelIds),
  },
  { additionalProperties: false },
);
export type CreateTaskBody = Static<typeof CreateTaskBody>;

export const UpdateTaskBody = Type.Object(
  {
    title: Type.Optional(Title),
    description: Type.Optional(Description),
    priority: Type.Optional(Nullable(PriorityField)),
    dueDate: Type.Optional(Nullable(DueDate('dueDate'))),
    taskStatusId: Type.Optional(StatusId),
    assigneeIds: Type.Optional(AssigneeIds),
    taskListIds: Type.Optional(ListIds),
    labelIds: Type.Optional(LabelIds),
  },
  { additionalProperties: false },
);
export type UpdateTaskBody = Static<typeof UpdateTaskBody>;

export const ListRef = Type.Object({ id: Type.Number(), name: Type.String() });
/** Documented as a nullable string, as it always was; typed as the priorities it can be. */
export const PriorityOut = Type.Unsafe<Priority | null>({ anyOf: [{ type: 'string' }, { type: 'null' }] });

const summaryFields = {
  id: Type.Number(),
  title: Type.String(),
  number: Type.Number({ description: 'Auto-incrementing number within the team.' }),
  priority: PriorityOut,
  dueDate: NullableString,
  parentId: NullableNumber,
  createdAt: Type.String(),
  updatedAt: Type.String(),
  isCompleted: Type.Boolean(),
  assignees: Type.Array(Person),
  taskLists: Type.Array(ListRef, { description: 'Attached lists the caller is a member of.' }),
};

export const TaskSummary = Type.Object({
  ...summaryFields,
  status: Type.Object({ id: Type.Number(), name: Type.String() }),
});
export type TaskSummary = Static<typeof TaskSummary>;

/** A task's labels, by name then id (an extension). */
const Labels = (description: string) => Type.Array(Label, { description });

/** A row of GET /v1/tasks: the published summary, with its `labels` only when asked (`include=labels`). */
export const LabelledTaskSummary = Type.Object({
  ...TaskSummary.properties,
  labels: Type.Optional(Labels('Only with include=labels: the labels of the task, by name.')),
});
export type LabelledTaskSummary = Static<typeof LabelledTaskSummary>;

export const TaskDetail = Type.Object({
  ...summaryFields,
  description: NullableString,
  taskStatusId: Type.Number(),
  status: Type.Object({ id: Type.Number(), name: Type.String(), color: NullableString, isCompleted: Type.Boolean() }),
  parent: Type.Union([Type.Object({ id: Type.Number(), number: Type.Number(), title: Type.String() }), Type.Null()], {
    description: 'The parent task, or null when there is none or the caller cannot access it.',
  }),
  subtaskCount: Type.Number({ description: 'Subtasks the caller can access.' }),
  attachmentCount: Type.Number({ description: 'Files attached to the task (an extension, issue 31).' }),
  createdBy: Person,
  labels: Labels('Labels of the task, by name (an extension).'),
});
export type TaskDetail = Static<typeof TaskDetail>;

export const TaskUpdateResult = Type.Object({
  id: Type.Number(),
  number: Type.Number(),
  title: Type.String(),
  priority: PriorityOut,
  dueDate: NullableString,
  taskStatusId: Type.Number(),
  updatedAt: Type.String(),
});
export type TaskUpdateResult = Static<typeof TaskUpdateResult>;

export const TaskDeleted = Type.Object({ id: Type.Number(), number: Type.Number(), deleted: Type.Boolean() });
export type TaskDeleted = Static<typeof TaskDeleted>;
