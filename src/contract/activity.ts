/** A task's activity: GET /v1/tasks/{taskId}/activity, and one whole entry: …/activity/{entryId}. */
import { Type, type Static, type TSchema } from 'typebox';
import { NarrowString, NullableNumber, NullableString, Page, Person } from './common.js';
import { ACTIVITY_KINDS, type ActivityKind } from './enums.js';
import { ListRef, PriorityOut } from './tasks.js';

/** Most entries (or comments) one page may hold, and how many a page holds by default. */
export const MAX_PAGE_LIMIT = 200;
export const DEFAULT_PAGE_LIMIT = 50;

/**
 * In a page of activity, a description's `from` and `to` longer than this many characters
 * (Unicode code points) are cut to their first SHORTENED_TEXT_LENGTH, and the entry says
 * `shortened`: a page of 200 changes of 100,000-character descriptions would otherwise be 40 MB.
 */
export const SHORTENED_TEXT_LENGTH = 1_000;

/** `limit` of a timeline or comments page: 1 to 200. */
export const PageLimit = (what: string) =>
  Type.String({
    pattern: '^(?:[1-9][0-9]?|1[0-9]{2}|200)$',
    errorMessage: `limit must be a whole number from 1 to ${MAX_PAGE_LIMIT}.`,
    description: `The most ${what} returned, a whole number from 1 to ${MAX_PAGE_LIMIT}; default ${DEFAULT_PAGE_LIMIT}.`,
  });

/**
 * A cursor: the id of an entry or comment, as a position in the task's history. It need not
 * exist (one since deleted is as good), and one beyond every id there can be (above 2^31 - 1)
 * stands before or after all of them.
 */
export const Cursor = (name: string, what: string, description: string) =>
  Type.String({
    pattern: '^[1-9][0-9]*$',
    maxLength: 10,
    errorMessage: `${name} must be the id of ${what} (a positive whole number).`,
    description,
  });

export const ActivityQuery = Type.Object(
  {
    limit: Type.Optional(PageLimit('entries')),
    before: Type.Optional(
      Cursor(
        'before',
        'an activity entry',
        'An entry id: only entries older than it (the next page: the id of the last entry received).',
      ),
    ),
  },
  { additionalProperties: false },
);
export type ActivityQuery = Static<typeof ActivityQuery>;

/** One changed field: its value before and after, shaped as the field is in task responses. */
const Change = <T extends TSchema>(value: T) => Type.Object({ from: value, to: value });

const StatusRef = Type.Object({ id: Type.Number(), name: Type.String() });
/** A label as it was named at the change (a label renamed or deleted since keeps its old name here). */
const LabelRef = Type.Object({ id: Type.Number(), name: Type.String() });

export const ActivityChanges = Type.Object(
  {
    title: Type.Optional(Change(Type.String())),
    description: Type.Optional(Change(NullableString)),
    priority: Type.Optional(Change(PriorityOut)),
    dueDate: Type.Optional(Change(NullableString)),
    status: Type.Optional(Change(StatusRef)),
    parentId: Type.Optional(Change(NullableNumber)),
    assignees: Type.Optional(Change(Type.Array(Person))),
    taskLists: Type.Optional(
      Change(Type.Array(ListRef, { description: 'Attached lists the reader is a member of; others are left out.' })),
    ),
    labels: Type.Optional(
      Change(Type.Array(LabelRef, { description: 'The labels as they were named then, by name.' })),
    ),
    commentId: Type.Optional(Change(NullableNumber)),
    attachment: Type.Optional(
      Change(Type.Union([Type.Object({ id: Type.Number(), name: Type.String() }), Type.Null()])),
    ),
  },
  {
    description:
      'What changed, by field, each as {"from", "to"}. Keys and values follow the task responses: ' +
      '`status` {id, name} as it was named then, `parentId`, `assignees` and `taskLists` as whole sets ' +
      '(diff them for who was added or removed), `taskLists` only with lists the reader is a member of, ' +
      '`labels` {id, name} as named then. ' +
      '`commentId` names the comment of a comment.* entry: null on the side where it does not exist. ' +
      '`attachment` {id, name} names the file of an attachment.* entry, null on the side where it does not exist.',
  },
);
export type ActivityChanges = Static<typeof ActivityChanges>;

export const ActivityEntry = Type.Object({
  id: Type.Number(),
  taskId: Type.Number(),
  actor: Type.Union([Person, Type.Null()], {
    description: "Who made the change; null for an operator's change made with `tasklane admin`.",
  }),
  kind: NarrowString<ActivityKind>({ description: `One of ${ACTIVITY_KINDS.join(', ')}.` }),
  changes: ActivityChanges,
  createdAt: Type.String(),
  shortened: Type.Boolean({
    description:
      `True when a text of \`changes\` (a description's \`from\` or \`to\`) is cut to its first ` +
      `${SHORTENED_TEXT_LENGTH.toLocaleString('en-US')} characters in this page; ` +
      'GET /v1/tasks/{taskId}/activity/{entryId} answers the whole entry (there it is always false).',
  }),
  via: Type.Optional(
    Type.Object(
      { kind: Type.Literal('agent'), keyName: Type.String() },
      {
        description:
          'Present only for a change an agent made through the MCP server (/mcp, docs/mcp.md), with the name ' +
          'of the API key it used; absent for changes made through the API or the web app.',
      },
    ),
  ),
});
export type ActivityEntry = Static<typeof ActivityEntry>;

/** A page of a task's activity, newest first. */
export const ActivityPage = Page(ActivityEntry, '`before=<id of the last entry>`');

export const ActivityEntryParams = Type.Object({
  taskId: Type.String({ pattern: '^\\d+$', errorMessage: 'taskId must be a number.' }),
  entryId: Type.String({ pattern: '^\\d+$', errorMessage: 'entryId must be a number.' }),
});
