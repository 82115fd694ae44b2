/** The signed-in user's API keys (session only). */
import { del, get, post } from './client';
import type { ApiKey } from './types';

export const fetchKeys = () => get<ApiKey[]>('/v1/api-keys');
export const createKey = (name: string) => post<ApiKey & { key: string }>('/v1/api-keys', { name });
export const revokeKey = (keyId: string) => del<{ revoked: boolean }>(`/v1/api-keys/${encodeURIComponent(keyId)}`);
