/** Shapes of the API's JSON, as docs/api.md describes them. */

export interface Person {
  id: string;
  name: string;
  email: string;
}

export type Role = 'owner' | 'admin' | 'member';

export interface Member extends Person {
  role: Role;
}

export interface TeamRef {
  id: string;
  name: string;
}

export interface SessionInfo {
  user: Person;
  team: TeamRef;
  role: Role;
  teams: Array<TeamRef & { role: Role }>;
  csrfToken: string;
}

export const LIST_COLORS = [
  'Gray',
  'Red',
  'Orange',
  'Yellow',
  'Amber',
  'Lime',
  'Green',
  'Teal',
  'Sky',
  'Blue',
  'Purple',
  'Pink',
] as const;
export type ListColor = (typeof LIST_COLORS)[number];

export interface TaskList {
  id: number;
  name: string;
  color: string;
  isArchived: boolean;
}

export interface TaskStatus {
  id: number;
  name: string;
  color: string | null;
  isDefault: boolean;
  isCompleted: boolean;
  order: number;
}

export const PRIORITIES = ['low', 'medium', 'high', 'urgent'] as const;
export type Priority = (typeof PRIORITIES)[number];

export interface TaskSummary {
  id: number;
  number: number;
  title: string;
  priority: Priority | null;
  dueDate: string | null;
  parentId: number | null;
  createdAt: string;
  updatedAt: string;
  isCompleted: boolean;
  status: { id: number; name: string };
  assignees: Person[];
  taskLists: Array<{ id: number; name: string }>;
}

export interface TaskDetail extends TaskSummary {
  description: string | null;
  taskStatusId: number;
  status: { id: number; name: string; color: string | null; isCompleted: boolean };
  parent: { id: number; number: number; title: string } | null;
  subtaskCount: number;
  createdBy: Person;
}

/** The fields PATCH /v1/tasks/{id} accepts. */
export interface TaskChange {
  title?: string;
  description?: string | null;
  priority?: Priority | null;
  dueDate?: string | null;
  taskStatusId?: number;
  assigneeIds?: string[];
  taskListIds?: number[];
}

export interface NewTask {
  title: string;
  taskListIds?: number[];
  assigneeIds?: string[];
  parentId?: number;
}

export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
}
