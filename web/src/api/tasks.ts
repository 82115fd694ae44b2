/** Tasks: the filtered collection, one task with its ETag, and changes. */
import { del, get, post, request, type ApiResponse } from './client';
import type { CreateTaskBody, TaskDeleted, TaskDetail, TaskSummary, TaskUpdateResult, UpdateTaskBody } from '@contract';

/** What a view gives every task made in it besides the title: its list, parent or assignee. */
export type NewTaskDefaults = Omit<CreateTaskBody, 'title'>;

export const fetchTasks = (query: URLSearchParams) => get<TaskSummary[]>('/v1/tasks', query);
export const fetchSubtasks = (parentId: number) =>
  get<TaskSummary[]>('/v1/tasks', new URLSearchParams({ parentId: String(parentId) }));
export const fetchTask = (taskId: number): Promise<ApiResponse<TaskDetail>> =>
  request<TaskDetail>('GET', `/v1/tasks/${taskId}`);
export const createTask = (task: CreateTaskBody) => post<TaskDetail>('/v1/tasks', task);

/** With `ifMatch`, the server refuses (412) a change to a task that changed since that version. */
export const updateTask = (taskId: number, change: UpdateTaskBody, ifMatch?: string) =>
  request<TaskUpdateResult>('PATCH', `/v1/tasks/${taskId}`, { body: change, ifMatch });

export const deleteTask = (taskId: number) => del<TaskDeleted>(`/v1/tasks/${taskId}`);
