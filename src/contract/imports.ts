/** Imports (issue 32): /v1/imports and /v1/imports/{importId}…; docs/api.md, "Imports". */
import { Type, type Static } from 'typebox';
import { StringEnum } from './common.js';

export const IMPORT_SOURCE_NAMES = ['tasklane', 'trello', 'todoist', 'csv'] as const;
export const IMPORT_KINDS = ['status', 'label', 'list', 'task', 'comment'] as const;
export type ImportKind = (typeof IMPORT_KINDS)[number];
export const IMPORT_ACTIONS = ['create', 'update', 'match', 'unchanged', 'skip'] as const;
export type ImportAction = (typeof IMPORT_ACTIONS)[number];

/** The first rows of each kind a plan shows. */
export const PLAN_FIRST_ROWS = 10;
/** The problems a plan or a result lists; `problemCount` counts them all. */
export const MAX_LISTED_PROBLEMS = 100;

export const ImportParams = Type.Object({
  importId: Type.String({ pattern: '^\\d+$', errorMessage: 'importId must be a number.' }),
});

const Counts = {
  create: Type.Number(),
  update: Type.Number(),
  match: Type.Number({ description: 'Found in the team by name (statuses, labels, lists): used, not changed.' }),
  unchanged: Type.Number({ description: 'Imported before from the same source ref, and the same now.' }),
  skip: Type.Number(),
};

export const PlanRow = Type.Object({
  line: Type.Number({ description: "Where the object is in the file: its line, or for Trello's JSON its position." }),
  action: StringEnum(IMPORT_ACTIONS),
  name: Type.String({ description: "A task's title, a comment's first words, a status's, label's or list's name." }),
});
export type PlanRow = Static<typeof PlanRow>;

export const KindPlan = Type.Object({ ...Counts, first: Type.Array(PlanRow) });
export type KindPlan = Static<typeof KindPlan>;

export const ImportProblem = Type.Object({ line: Type.Number(), message: Type.String() });
export type ImportProblem = Static<typeof ImportProblem>;

export const UnknownPerson = Type.Object({
  name: Type.Union([Type.String(), Type.Null()]),
  email: Type.Union([Type.String(), Type.Null()]),
  line: Type.Number({ description: 'The first line naming them.' }),
  count: Type.Number({ description: 'How many assignments, list memberships and comments name them.' }),
});

export const ImportPlan = Type.Object({
  kinds: Type.Object(
    Object.fromEntries(IMPORT_KINDS.map((kind) => [kind, KindPlan])) as Record<ImportKind, typeof KindPlan>,
  ),
  people: Type.Object({
    matched: Type.Number({ description: 'People of the file found among the members, by email.' }),
    unknown: Type.Array(UnknownPerson, {
      description:
        'People of the file who are not members (by email): not assigned, not added; their comments are written by the importer, naming them.',
    }),
  }),
  problems: Type.Array(ImportProblem, { description: `The first ${MAX_LISTED_PROBLEMS}, in line order.` }),
  problemCount: Type.Number(),
});
export type ImportPlan = Static<typeof ImportPlan>;

export const IMPORT_STATUSES = ['planned', 'applying', 'applied', 'cancelled', 'failed', 'undone'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];
export const ImportStatus = StringEnum(IMPORT_STATUSES, {
  description:
    'planned → applying → applied, cancelled or failed; applied (or cancelled, or failed) → undone. Nothing is written while planned.',
});

export const ImportResult = Type.Object({
  ...Counts,
  problems: Type.Array(ImportProblem, { description: 'Objects the apply could not write, and why.' }),
  problemCount: Type.Number(),
});
export type ImportResult = Static<typeof ImportResult>;

export const Import = Type.Object({
  id: Type.Number(),
  status: ImportStatus,
  source: StringEnum(IMPORT_SOURCE_NAMES),
  fileName: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  finishedAt: Type.Union([Type.String(), Type.Null()]),
  plan: ImportPlan,
  progress: Type.Object({
    done: Type.Number({ description: 'Objects of the file the apply has gone through.' }),
    total: Type.Number(),
  }),
  result: Type.Union([ImportResult, Type.Null()], { description: 'What the apply did so far; null while planned.' }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'When failed: why.' }),
  undoUntil: Type.Union([Type.String(), Type.Null()], {
    description: 'Until when POST …/undo may take it back (24 hours after it finished); null when it cannot be.',
  }),
});
export type Import = Static<typeof Import>;

export const ImportList = Type.Array(Import);
export type ImportList = Static<typeof ImportList>;

/** The upload's body, for the OpenAPI document: multipart/form-data. */
export const ImportUpload = Type.Object({
  file: Type.Unsafe<unknown>({
    type: 'string',
    format: 'binary',
    description:
      'The file: a tasklane export (.jsonl.gz), a Trello board (.json), a Todoist project (.csv) or a spreadsheet (.csv).',
  }),
  source: StringEnum(IMPORT_SOURCE_NAMES),
  columns: Type.Optional(
    Type.String({
      description:
        'CSV only, JSON: which column holds which field, e.g. {"title": "Name", "dueDate": "Due"}. Fields: title, description, status, completed, priority, dueDate, assignees, labels, list, ref. A field left out is found by its own name.',
    }),
  ),
});
