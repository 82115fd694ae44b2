/**
 * The export file's format, version 1 (docs/export-format.md): gzip'd JSON Lines, one object per
 * line, each with its `type`. The objects are the API's own shapes (its presenters), so the API's
 * reference documents their fields.
 */
import type {
  Attachment,
  Comment,
  ExportScope,
  TaskDetail,
  TaskList,
  TaskStatus,
  ActivityEntry,
} from '../contract/index.js';
import type { Label } from '../labels/labels.repository.js';
import type { ExportedMember } from './export-source.repository.js';

export const FORMAT_TYPE = 'tasklane.export';
export const FORMAT_VERSION = 1;
/** Raw bytes per `attachmentData` line (base64 makes them a third larger). */
export const ATTACHMENT_CHUNK_BYTES = 256 * 1024;

/** The kinds of line, in the order a file holds them (`header` first, `end` last). */
export const LINE_TYPES = [
  'member',
  'status',
  'label',
  'list',
  'task',
  'comment',
  'activity',
  'attachment',
  'attachmentData',
] as const;
export type CountedType = (typeof LINE_TYPES)[number];
export type Counts = Record<CountedType, number>;

export interface HeaderLine {
  type: typeof FORMAT_TYPE;
  version: typeof FORMAT_VERSION;
  exportedAt: string;
  scope: ExportScope;
  team: { id: string; name: string };
  /** Null: the operator's export (`tasklane admin export`). */
  exportedBy: { id: string; name: string; email: string } | null;
}

export type ExportLine =
  | HeaderLine
  | ({ type: 'member' } & ExportedMember)
  | ({ type: 'status' } & TaskStatus)
  | ({ type: 'label' } & Label)
  | ({ type: 'list' } & TaskList & { memberIds: string[] })
  | ({ type: 'task' } & TaskDetail)
  | ({ type: 'comment' } & Comment)
  | ({ type: 'activity' } & ActivityEntry)
  | ({ type: 'attachment' } & Attachment)
  | { type: 'attachmentData'; attachmentId: number; seq: number; data: string }
  | { type: 'end'; counts: Counts };

export const noCounts = (): Counts => Object.fromEntries(LINE_TYPES.map((type) => [type, 0])) as Counts;

/** A date for the file's name: `tasklane-export-2026-11-29.jsonl.gz`. */
export const exportFileName = (createdAt: string): string => `tasklane-export-${createdAt.slice(0, 10)}.jsonl.gz`;
