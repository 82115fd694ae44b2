/** Sign-in and account endpoints of the web session (outside /v1). */
import { get, patch, post } from './client';
import type { SessionInfo } from './types';

export const fetchSession = () => get<SessionInfo>('/auth/session');
export const signIn = (email: string, password: string) => post<SessionInfo>('/auth/sign-in', { email, password });
export const signOut = () => post<{ signedOut: boolean }>('/auth/sign-out');
export const switchTeam = (teamId: string) => post<SessionInfo>('/auth/team', { teamId });
export const updateProfile = (name: string) => patch<SessionInfo>('/auth/profile', { name });
export const changePassword = (currentPassword: string, newPassword: string) =>
  post<{ changed: boolean }>('/auth/password', { currentPassword, newPassword });
