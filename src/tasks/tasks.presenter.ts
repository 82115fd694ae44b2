/**
 * The API's task shapes (src/contract/tasks.ts), built from the rows the repositories return.
 * The one place outside the repositories that reads task columns; on SQLite, the database
 * writes a page of tasks' JSON itself (task-query.ts, `summaryJson`).
 */
import type { Priority } from '../contract/enums.js';
import type { LabelledTaskSummary, Person, TaskDeleted, TaskDetail, TaskUpdateResult } from '../contract/index.js';
import { byNameThenId } from '../ids.js';
import type { TaskRow } from '../storage/schema.js';
import type { ListRef } from './task-links.repository.js';
import { byLabelName, type Label } from '../labels/labels.repository.js';
import type { DetailParts, DetailRow, ParentRow } from './tasks.repository.js';

/** A page of tasks as PostgreSQL reads it (task-query.ts): its rows, and their parts by task id. */
export interface SummaryRows {
  rows: {
    id: number;
    title: string;
    number: number;
    priority: Priority | null;
    due_date: string | null;
    parent_id: number | null;
    created_at: string;
    updated_at: string;
    status_id: number;
    status_name: string;
    is_completed: number;
  }[];
  assignees: Map<number, Person[]>;
  taskLists: Map<number, ListRef[]>;
  /** Only when the page was asked for them (`include=labels`). */
  labels?: Map<number, Label[]>;
}

export function presentSummaries({ rows, assignees, taskLists, labels }: SummaryRows): LabelledTaskSummary[] {
  return rows.map((r) => ({
    id: r.id,
    title: r.title,
    number: r.number,
    priority: r.priority,
    dueDate: r.due_date,
    parentId: r.parent_id,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    isCompleted: Boolean(r.is_completed),
    status: { id: r.status_id, name: r.status_name },
    assignees: assignees.get(r.id) ?? [],
    taskLists: taskLists.get(r.id) ?? [],
    ...(labels && { labels: labels.get(r.id) ?? [] }),
  }));
}

/** An answer with the task's version: the basis of its ETag, which response schemas leave out. */
export type Versioned<T> = T & { version: number };

/** A task's detail from its row and the parts read (or, for a new task, already known) beside it. */
function toDetail(
  row: TaskRow,
  parts: Pick<
    TaskDetail,
    'status' | 'createdBy' | 'assignees' | 'taskLists' | 'labels' | 'parent' | 'subtaskCount' | 'attachmentCount'
  >,
): Versioned<TaskDetail> {
  return {
    id: row.id,
    number: row.number,
    title: row.title,
    description: row.description,
    priority: row.priority,
    dueDate: row.due_date,
    parentId: row.parent_id,
    parent: parts.parent,
    subtaskCount: parts.subtaskCount,
    attachmentCount: parts.attachmentCount,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    isCompleted: parts.status.isCompleted,
    taskStatusId: row.status_id,
    status: parts.status,
    assignees: parts.assignees,
    taskLists: parts.taskLists,
    createdBy: parts.createdBy,
    labels: parts.labels,
    version: row.version,
  };
}

export function presentDetail(row: DetailRow, parts: DetailParts): Versioned<TaskDetail> {
  return toDetail(row, {
    status: {
      id: row.status_id,
      name: row.status_name,
      color: row.status_color,
      isCompleted: Boolean(row.is_completed),
    },
    createdBy: { id: row.created_by, name: row.creator_name, email: row.creator_email },
    ...parts,
  });
}

/** What a create checked and read on its way, which its answer is made of. */
export interface NewTaskParts {
  status: TaskDetail['status'];
  createdBy: Person;
  assignees: Person[];
  /** The lists' names by id: every one a list the creator is a member of, so all are shown. */
  lists: Map<number, string>;
  labels: Label[];
  parent: ParentRow | null;
}

/** A new task's detail, from what its create already read: nothing is read after the commit. */
export function presentNewTask(row: TaskRow, parts: NewTaskParts): Versioned<TaskDetail> {
  const { status } = parts;
  return toDetail(row, {
    status: { id: status.id, name: status.name, color: status.color, isCompleted: status.isCompleted },
    createdBy: parts.createdBy,
    assignees: parts.assignees.sort(byNameThenId),
    taskLists: [...parts.lists].sort(([a], [b]) => a - b).map(([id, name]) => ({ id, name })),
    labels: parts.labels.sort(byLabelName),
    parent: parts.parent && { id: parts.parent.id, number: parts.parent.number, title: parts.parent.title },
    subtaskCount: 0,
    attachmentCount: 0,
  });
}

export function presentUpdateResult(row: TaskRow): Versioned<TaskUpdateResult> {
  return {
    id: row.id,
    number: row.number,
    title: row.title,
    priority: row.priority,
    dueDate: row.due_date,
    taskStatusId: row.status_id,
    updatedAt: row.updated_at,
    version: row.version,
  };
}

export function presentDeleted(row: TaskRow): TaskDeleted {
  return { id: row.id, number: row.number, deleted: true };
}
