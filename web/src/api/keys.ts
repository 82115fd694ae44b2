/** The signed-in user's API keys (session only). */
import { del, get, post } from './client';
import type { ApiKey, CreateKeyBody, CreatedKey, KeyRevoked } from '@contract';
import type { Static } from 'typebox';

export const fetchKeys = () => get<ApiKey[]>('/v1/api-keys');
export const createKey = (name: string) => post<CreatedKey>('/v1/api-keys', { name } satisfies CreateKeyBody);
export const revokeKey = (keyId: string) => del<Static<typeof KeyRevoked>>(`/v1/api-keys/${encodeURIComponent(keyId)}`);
