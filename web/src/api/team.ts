/** The team's reference data, workflow statuses, labels and members, and their management by owners and admins. */
import { del, get, patch, post } from './client';
import type {
  CreateLabelBody,
  CreateStatusBody,
  Label,
  LabelDeleted,
  Member,
  MemberRemoved,
  StatusDeleted,
  TaskStatus,
  TeamRef,
  UpdateLabelBody,
  UpdateMemberBody,
  UpdateTeamBody,
  UpdateStatusBody,
} from '@contract';
import type { Role } from '@contract/enums';

export const renameTeam = (name: string) => patch<TeamRef>('/v1/team', { name } satisfies UpdateTeamBody);

export const fetchStatuses = () => get<TaskStatus[]>('/v1/task-statuses');
export const createStatus = (body: CreateStatusBody) => post<TaskStatus>('/v1/task-statuses', body);
export const updateStatus = (statusId: number, body: UpdateStatusBody) =>
  patch<TaskStatus>(`/v1/task-statuses/${statusId}`, body);
export const deleteStatus = (statusId: number, moveTo: number) =>
  del<StatusDeleted>(`/v1/task-statuses/${statusId}?moveTo=${moveTo}`);

export const fetchLabels = () => get<Label[]>('/v1/labels');
export const createLabel = (body: CreateLabelBody) => post<Label>('/v1/labels', body);
export const updateLabel = (labelId: number, body: UpdateLabelBody) => patch<Label>(`/v1/labels/${labelId}`, body);
export const deleteLabel = (labelId: number) => del<LabelDeleted>(`/v1/labels/${labelId}`);

export const fetchMembers = () => get<Member[]>('/v1/users');
export const changeRole = (userId: string, role: Role) =>
  patch<Member>(`/v1/members/${encodeURIComponent(userId)}`, { role } satisfies UpdateMemberBody);
export const removeMember = (userId: string) => del<MemberRemoved>(`/v1/members/${encodeURIComponent(userId)}`);
