/** API keys as the API shows them: never the hash, and the secret only in the answer that creates it. */
import type { AgentKey, ApiKey, CreatedKey } from '../contract/keys.js';
import type { AgentKeyRecord, KeyRecord } from './keys.repository.js';

export function presentKey(key: KeyRecord): ApiKey {
  const { id, name, prefix, createdAt, lastUsedAt, expiresAt, scopes, listIds } = key;
  return { id, name, prefix, createdAt, lastUsedAt, expiresAt, scopes, listIds };
}

export function presentCreatedKey(key: KeyRecord, secret: string): CreatedKey {
  return { ...presentKey(key), key: secret };
}

export function presentAgentKey(key: AgentKeyRecord): AgentKey {
  const { owner } = key;
  return { ...presentKey(key), owner: { id: owner.id, name: owner.name, email: owner.email } };
}
