/** Sign-in and account endpoints of the web session (outside /v1). */
import { get, patch, post } from './client';
import type {
  EmailChangeBody,
  PasswordChanged,
  PasswordChangeBody,
  ProfileBody,
  SessionInfo,
  SetupBody,
  SignedOut,
  SignInBody,
  SwitchTeamBody,
} from '@contract';
import type { Static } from 'typebox';

export const fetchSession = () => get<SessionInfo>('/auth/session');
export const signIn = (email: string, password: string) =>
  post<SessionInfo>('/auth/sign-in', { email, password } satisfies SignInBody);
export const signOut = () => post<Static<typeof SignedOut>>('/auth/sign-out');
export const switchTeam = (teamId: string) =>
  post<SessionInfo>('/auth/team', { teamId } satisfies Static<typeof SwitchTeamBody>);
export const updateProfile = (name: string) =>
  patch<SessionInfo>('/auth/profile', { name } satisfies Static<typeof ProfileBody>);
export const changePassword = (currentPassword: string, newPassword: string) =>
  post<Static<typeof PasswordChanged>>('/auth/password', { currentPassword, newPassword } satisfies PasswordChangeBody);
export const changeEmail = (email: string, currentPassword: string) =>
  post<SessionInfo>('/auth/email', { email, currentPassword } satisfies EmailChangeBody);
/** The first start's set-up, once, by its team's owner (SessionInfo.setupRequired). */
export const setUpTeam = (body: SetupBody) => post<SessionInfo>('/auth/setup', body);
