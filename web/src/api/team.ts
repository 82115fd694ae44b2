/** The team's reference data: workflow statuses and members. */
import { get } from './client';
import type { Member, TaskStatus } from '@contract';

export const fetchStatuses = () => get<TaskStatus[]>('/v1/task-statuses');
export const fetchMembers = () => get<Member[]>('/v1/users');
