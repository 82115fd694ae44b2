/**
 * What an import file says, whatever product wrote it (issue 32): each reader in this folder turns
 * its format into these items, streamed, in the order they can be written: statuses, labels,
 * lists, tasks (a parent before its subtasks), comments, attachments. A reader decides nothing
 * about the team it goes into: matching, the plan and the writes are plan.ts's and apply.ts's.
 *
 * `ref` is the object's identity in its source, stable across exports of the same data (a
 * Trello card's id, a tasklane export's team and task id): the same ref applied again updates
 * what it made the first time instead of making another. `line` is where a person finds the
 * object in the file: a line of JSON Lines or CSV (1-based; a CSV's header is line 1), or for
 * a file that is one JSON document (Trello), the object's position among its kind.
 */

export const IMPORT_SOURCES = ['tasklane', 'trello', 'todoist', 'csv'] as const;
export type ImportSourceName = (typeof IMPORT_SOURCES)[number];

/** A person as the file names them: matched to a member by email only (never invented). */
export interface SourcePerson {
  email: string | null;
  /** For the plan's list of unknown people: how the file names them. */
  name: string | null;
}

interface Located {
  ref: string;
  line: number;
}

export interface SourceStatus extends Located {
  kind: 'status';
  name: string;
  /** '#RRGGBB', or null. */
  color: string | null;
  isCompleted: boolean;
}

export interface SourceLabel extends Located {
  kind: 'label';
  name: string;
  /** One of LIST_COLORS (contract/enums.ts), or null for the team's default. */
  color: string | null;
}

export interface SourceList extends Located {
  kind: 'list';
  name: string;
  /** One of LIST_COLORS, or null for the default. */
  color: string | null;
  isArchived: boolean;
  /** The list's members, besides the person importing (who is always one). */
  members: SourcePerson[];
}

export interface SourceTask extends Located {
  kind: 'task';
  /** As the file has it: plan.ts reports (and shortens) one over MAX_TITLE_LENGTH. */
  title: string;
  description: string | null;
  /**
   * The task's status by name: one of the file's own statuses, or a name the team may have.
   * null: the team's default status, or with `completed` its first completed one.
   */
  statusName: string | null;
  completed: boolean;
  /** 'low' | 'medium' | 'high' | 'urgent', or null. */
  priority: string | null;
  /** YYYY-MM-DD, or null. */
  dueDate: string | null;
  /** Refs of SourceList items of the same file. */
  listRefs: string[];
  assignees: SourcePerson[];
  /** Label names: the file's own labels, or names the team may have. */
  labelNames: string[];
  /** Ref of an earlier SourceTask of the same file, or null. */
  parentRef: string | null;
}

export interface SourceComment extends Located {
  kind: 'comment';
  /** Ref of an earlier SourceTask of the same file. */
  taskRef: string;
  author: SourcePerson | null;
  body: string;
}

/** Something of the file that will not be imported as it is, and why, for the plan. */
export interface SourceProblem {
  kind: 'problem';
  line: number;
  message: string;
}

export type SourceItem = SourceStatus | SourceLabel | SourceList | SourceTask | SourceComment | SourceProblem;

/** A file's bytes did not have the source's format at all: the import is refused (400) with this. */
export class UnreadableFile extends Error {}

/** What a reader is given besides the bytes. */
export interface ReadOptions {
  /** The uploaded file's name, if the client sent one: a reader may name the list it makes after it. */
  fileName: string | null;
  /** CSV only: which column holds which field (csv.ts). */
  columns?: Record<string, string>;
}

/** A reader: the file's bytes in, items out, one at a time (memory does not grow with the file). */
export type SourceReader = (bytes: AsyncIterable<Buffer>, options: ReadOptions) => AsyncIterable<SourceItem>;
