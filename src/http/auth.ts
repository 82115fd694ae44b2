/**
 * `x-api-key` → caller. Runs first on every /v1 request, so an unauthenticated request is a 401
 * whatever else is wrong with it. Nothing is cached: a revoked key or a removed member is
 * refused on the very next request.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../caller.js';
import { findLiveKeyOwner, hashKey, touchKey } from '../keys/keys.repository.js';
import type { Store } from '../storage/database.js';
import { AppError, unauthorized } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
  }
  interface FastifyContextConfig {
    /** GET /v1/me answers a former member itself (404, as the spec says); other routes refuse them. */
    allowFormerMember?: boolean;
  }
}

/** last_used_at is written at most this often per key, to keep reads free of writes. */
const TOUCH_INTERVAL_MS = 60_000;

/**
 * Counts failed authentications per client address in one-minute windows: guessing keys
 * gets a much smaller budget than using one.
 */
export class FailedAuthBudget {
  private windowStart = Date.now();
  private failures = new Map<string, number>();
  constructor(private readonly perMinute: number) {}

  /** Seconds until the address may try again, or 0 when it still has budget. */
  retryAfter(address: string): number {
    this.roll();
    if (this.perMinute === 0) return 0;
    return (this.failures.get(address) ?? 0) >= this.perMinute
      ? Math.ceil((this.windowStart + 60_000 - Date.now()) / 1000)
      : 0;
  }

  recordFailure(address: string): void {
    this.roll();
    this.failures.set(address, (this.failures.get(address) ?? 0) + 1);
  }

  private roll(): void {
    if (Date.now() - this.windowStart >= 60_000) {
      this.windowStart = Date.now();
      this.failures.clear();
    }
  }
}

export function authenticate(store: Store, budget: FailedAuthBudget) {
  return async function authenticateRequest(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const header = request.headers['x-api-key'];
    const key = Array.isArray(header) ? header[0] : header;
    const owner = key ? await findLiveKeyOwner(store.db, hashKey(key)) : undefined;
    if (!owner) {
      // Only failures spend the address's budget: a valid key behind the same address
      // (a NAT, a proxy) is never locked out by someone else's guessing.
      const wait = budget.retryAfter(request.ip);
      if (wait > 0) {
        throw new AppError('rateLimited', 'Too many failed authentication attempts. Try again later.', {
          'retry-after': String(wait),
        });
      }
      budget.recordFailure(request.ip);
      throw unauthorized(
        key
          ? 'Invalid API key: it is unknown or has been revoked.'
          : 'Missing API key. Send your key in the x-api-key header.',
      );
    }
    if (owner.role === null && !request.routeOptions.config.allowFormerMember) {
      throw unauthorized("This API key's user is no longer a member of its team.");
    }
    const now = Date.now();
    if (!owner.lastUsedAt || now - Date.parse(owner.lastUsedAt) > TOUCH_INTERVAL_MS) {
      await touchKey(store.db, owner.keyId, new Date(now).toISOString());
    }
    request.caller = { userId: owner.userId, teamId: owner.teamId, role: owner.role, keyId: owner.keyId };
  };
}
