/** The signed-in user's API keys (session only), and the team's agents' access (owners and admins). */
import { del, get, post } from './client';
import type { AgentKey, ApiKey, CreateKeyBody, CreatedKey, KeyRevoked } from '@contract';
import type { Static } from 'typebox';

export const fetchKeys = () => get<ApiKey[]>('/v1/api-keys');
export const createKey = (body: CreateKeyBody) => post<CreatedKey>('/v1/api-keys', body);
export const revokeKey = (keyId: string) => del<Static<typeof KeyRevoked>>(`/v1/api-keys/${encodeURIComponent(keyId)}`);

export const fetchAgentAccess = () => get<AgentKey[]>('/v1/agent-access');
export const revokeAgentAccess = (keyId: string) =>
  del<Static<typeof KeyRevoked>>(`/v1/agent-access/${encodeURIComponent(keyId)}`);
