/** Labels (issue 29): GET/POST /v1/labels, PATCH/DELETE /v1/labels/{labelId}; a task's `labelIds` and `labels`. */
import { Type, type Static } from 'typebox';
import { IdParam, StringEnum } from './common.js';
import { LIST_COLORS } from './enums.js';

/** Longest label name, in characters (code points): a chip, not a sentence. */
export const MAX_LABEL_NAME_LENGTH = 50;
/** Most labels a team may have: enough for any real use, few enough for one picker. */
export const MAX_LABELS_PER_TEAM = 100;
/** Most labels one task may carry. */
export const MAX_LABELS_PER_TASK = 20;
/** A new label's colour when none is given. */
export const DEFAULT_LABEL_COLOR = 'Gray';

export const Label = Type.Object({
  id: Type.Number(),
  name: Type.String(),
  color: StringEnum(LIST_COLORS),
});
export type Label = Static<typeof Label>;

// The messages are the service's own too (labels.service.ts), for the same rules.
const LabelName = Type.String({
  minLength: 1,
  maxLength: MAX_LABEL_NAME_LENGTH,
  pattern: '\\S',
  description: 'Unique in the team, ignoring case.',
  errorMessage: `name must be 1 to ${MAX_LABEL_NAME_LENGTH} characters with at least one non-whitespace character.`,
});
const LabelColor = StringEnum(LIST_COLORS, {
  description: `One of the list colours: ${LIST_COLORS.join(', ')}; a new label's default is ${DEFAULT_LABEL_COLOR}.`,
  errorMessage: `color must be one of: ${LIST_COLORS.join(', ')}.`,
});

export const CreateLabelBody = Type.Object(
  {
    name: LabelName,
    color: Type.Optional(LabelColor),
  },
  { additionalProperties: false },
);
export type CreateLabelBody = Static<typeof CreateLabelBody>;

export const UpdateLabelBody = Type.Object(
  { name: Type.Optional(LabelName), color: Type.Optional(LabelColor) },
  { additionalProperties: false },
);
export type UpdateLabelBody = Static<typeof UpdateLabelBody>;

export const LabelIdParams = IdParam('labelId');

export const LabelDeleted = Type.Object({
  id: Type.Number(),
  deleted: Type.Boolean(),
  untaggedTasks: Type.Number({ description: 'How many tasks carried the label and no longer do.' }),
});
export type LabelDeleted = Static<typeof LabelDeleted>;
