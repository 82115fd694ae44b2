/**
 * The URL this server is reached at, as links and OAuth metadata name it: PUBLIC_URL when set,
 * else the request's own origin (its scheme and Host, or X-Forwarded-Proto/-Host behind a
 * trusted proxy: TRUST_PROXY). Set PUBLIC_URL behind a proxy you do not trust with those headers.
 */
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';

export function publicUrlOf(config: Pick<Config, 'publicUrl'>, request: FastifyRequest): string {
  return config.publicUrl ?? `${request.protocol}://${request.host}`;
}

/** Where the MCP endpoint's protected-resource metadata is (RFC 9728 §3.1: the well-known path, then the resource's path). */
export const resourceMetadataUrl = (base: string): string => `${base}/.well-known/oauth-protected-resource/mcp`;
