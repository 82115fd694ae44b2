/**
 * Compact shapes for agents: what a person would glance at, names rather than nested objects.
 * Built from the API's own presented shapes (the services' answers), so nothing is shown here
 * that the API would not show the same caller.
 */
import type { ActivityEntry, Comment, LabelledTaskSummary, TaskDetail } from '../contract/index.js';

type Versioned<T> = T & { version: number };

/** One line of a task list. */
export function taskLine(task: LabelledTaskSummary) {
  return {
    id: task.id,
    number: task.number,
    title: task.title,
    status: task.status.name,
    isCompleted: task.isCompleted,
    priority: task.priority,
    dueDate: task.dueDate,
    assignees: task.assignees.map((person) => person.name),
    lists: task.taskLists.map((list) => list.name),
  };
}

/** `#12 Title [Status, due 2026-12-01]` */
export function taskText(task: { number: number; title: string; status: string; dueDate: string | null }): string {
  return `#${task.number} ${task.title} [${task.status}${task.dueDate ? `, due ${task.dueDate}` : ''}]`;
}

/** A task in full, with the `version` an update of its description must name. */
export function taskDetail(task: Versioned<TaskDetail>) {
  return {
    id: task.id,
    number: task.number,
    title: task.title,
    description: task.description,
    version: task.version,
    status: task.status.name,
    taskStatusId: task.taskStatusId,
    isCompleted: task.isCompleted,
    priority: task.priority,
    dueDate: task.dueDate,
    assignees: task.assignees.map(({ id, name }) => ({ id, name })),
    lists: task.taskLists,
    labels: task.labels.map((label) => label.name),
    parent: task.parent,
    createdBy: task.createdBy.name,
    createdAt: task.createdAt,
    updatedAt: task.updatedAt,
  };
}

export function commentLine(comment: Comment) {
  return { id: comment.id, author: comment.author.name, body: comment.body, createdAt: comment.createdAt };
}

/** An activity entry: who, what, when, which fields changed, and whether an agent made it. */
export function activityLine(entry: ActivityEntry) {
  return {
    id: entry.id,
    kind: entry.kind,
    actor: entry.actor?.name ?? null,
    fields: Object.keys(entry.changes),
    createdAt: entry.createdAt,
    ...(entry.via && { via: entry.via }),
  };
}
