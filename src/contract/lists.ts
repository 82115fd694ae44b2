/** Task lists and their members: /v1/lists… */
import { Type, type Static } from 'typebox';
import { IdParam, LOWER_CASE, NarrowString, StringEnum, Uuid } from './common.js';
import { LIST_COLORS, type ListColor } from './enums.js';

export const TaskList = Type.Object({
  id: Type.Number(),
  name: Type.String(),
  color: NarrowString<ListColor>({ description: `One of ${LIST_COLORS.join(', ')}.` }),
  isArchived: Type.Boolean(),
  sharedWithTeam: Type.Boolean({
    description: 'true: every member of the team is a member of the list, also those who join later (an extension).',
  }),
});
export type TaskList = Static<typeof TaskList>;

/** Longest list name, in characters (Unicode code points). */
export const MAX_LIST_NAME_LENGTH = 200;

const ListName = Type.String({
  minLength: 1,
  maxLength: MAX_LIST_NAME_LENGTH,
  pattern: '\\S',
  errorMessage: `name must be a string of 1 to ${MAX_LIST_NAME_LENGTH} characters with at least one non-whitespace character.`,
});
const ListColor = StringEnum(LIST_COLORS, { errorMessage: `color must be one of: ${LIST_COLORS.join(', ')}.` });

export const ListsQuery = Type.Object(
  {
    archived: Type.Optional(
      Type.String({
        enum: ['true', 'false'],
        errorMessage: 'archived must be true or false.',
        description:
          "true: the caller's archived lists instead (an extension); false or omitted: the non-archived ones.",
      }),
    ),
  },
  { additionalProperties: false },
);

const SharedWithTeam = (description: string) =>
  Type.Boolean({ description, errorMessage: 'sharedWithTeam must be true or false.' });

export const CreateListBody = Type.Object(
  {
    name: ListName,
    color: Type.Optional(ListColor),
    sharedWithTeam: Type.Optional(
      SharedWithTeam(
        'true: every member of the team becomes a member now and on joining (an extension). Default false.',
      ),
    ),
  },
  { additionalProperties: false },
);
export type CreateListBody = Static<typeof CreateListBody>;

export const UpdateListBody = Type.Object(
  {
    name: Type.Optional(ListName),
    color: Type.Optional(ListColor),
    sharedWithTeam: Type.Optional(
      SharedWithTeam(
        "true: every member of the team becomes a member now and on joining; false: no longer for newcomers, the list's members stay (an extension).",
      ),
    ),
  },
  { additionalProperties: false },
);
export type UpdateListBody = Static<typeof UpdateListBody>;

export const ListIdParams = IdParam('listId');

export const ListMemberParams = Type.Object({
  listId: Type.String({ pattern: '^\\d+$', errorMessage: 'listId must be a number.' }),
  userId: Type.String({ ...LOWER_CASE, errorMessage: 'userId must be a user ID.' }),
});

export const AddListMemberBody = Type.Object(
  { userId: Uuid({ errorMessage: 'userId must be a user ID (UUID).' }) },
  { additionalProperties: false },
);
export type AddListMemberBody = Static<typeof AddListMemberBody>;

export const ListMemberRemoved = Type.Object({ listId: Type.Number(), userId: Type.String(), removed: Type.Boolean() });
export type ListMemberRemoved = Static<typeof ListMemberRemoved>;
