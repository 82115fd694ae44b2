/** Team exports (issue 32): /v1/exports and /v1/exports/{exportId}… ; the file's format is docs/export-format.md. */
import { Type, type Static } from 'typebox';

export const ExportParams = Type.Object({
  exportId: Type.String({ pattern: '^\\d+$', errorMessage: 'exportId must be a number.' }),
});

export const ExportScope = Type.Union([Type.Literal('team'), Type.Literal('readable')], {
  description:
    "team: the whole team (owners and admins); readable: what the requester may read (a member): the tasks GET /v1/tasks/{id} lets them read, and those tasks' comments, activity and attachments.",
});
export type ExportScope = Static<typeof ExportScope>;

export const ExportStatus = Type.Union(
  [Type.Literal('pending'), Type.Literal('running'), Type.Literal('ready'), Type.Literal('failed')],
  { description: 'pending → running → ready or failed. An export whose process stopped reads as failed.' },
);
export type ExportStatus = Static<typeof ExportStatus>;

export const Export = Type.Object({
  id: Type.Number(),
  status: ExportStatus,
  scope: ExportScope,
  createdAt: Type.String(),
  finishedAt: Type.Optional(Type.String()),
  size: Type.Optional(Type.Number({ description: "When ready: the file's bytes (gzip'd)." })),
  sha256: Type.Optional(Type.String({ description: "When ready: the file's SHA-256, in hex." })),
  counts: Type.Optional(
    Type.Record(Type.String(), Type.Number(), {
      description: 'When ready: lines of each type, as the file\'s "end" line counts them.',
    }),
  ),
  expiresAt: Type.Optional(Type.String({ description: 'When ready: the file is deleted after this time.' })),
  error: Type.Optional(Type.String({ description: 'When failed: why.' })),
});
export type Export = Static<typeof Export>;

/** The caller's own exports, newest first: at most MAX_LISTED_EXPORTS. */
export const ExportList = Type.Array(Export);
export type ExportList = Static<typeof ExportList>;
