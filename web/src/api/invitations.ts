/**
 * Invitations: owners and admins make and revoke them (/v1/invitations); the link's page reads
 * one and accepts it without a session (/auth/invitation, /auth/accept-invitation).
 */
import { del, get, post } from './client';
import type {
  AcceptInvitationBody,
  CreatedInvitation,
  CreateInvitationBody,
  Invitation,
  InvitationPreview,
  InvitationRevoked,
  InvitationTokenBody,
  SessionInfo,
} from '@contract';

export const fetchInvitations = () => get<Invitation[]>('/v1/invitations');
export const createInvitation = (body: CreateInvitationBody) => post<CreatedInvitation>('/v1/invitations', body);
export const revokeInvitation = (invitationId: string) =>
  del<InvitationRevoked>(`/v1/invitations/${encodeURIComponent(invitationId)}`);

export const previewInvitation = (token: string) =>
  post<InvitationPreview>('/auth/invitation', { token } satisfies InvitationTokenBody);
/** A newcomer sends a name (a new account); without one it is an existing account's sign-in. */
export const acceptInvitation = (body: AcceptInvitationBody) => post<SessionInfo>('/auth/accept-invitation', body);
