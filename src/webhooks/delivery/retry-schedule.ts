/**
 * When a failed delivery is tried again: after `retryFirstDelayMs`, then twice as long each
 * time up to `retryMaxDelayMs`, each delay spread by ±20% of jitter so that the deliveries of an
 * endpoint that went down together do not all come back at the same instant; never later than
 * `retryForMs` after the first attempt. With the defaults (30 s, 12 h, 3 days): 30 s, 1, 2, 4,
 * 8, 16, 32 minutes, about 1, 2, 4 and 8.5 hours, then every 12 hours until 3 days have passed:
 * 16 attempts in all.
 */
import type { WebhookConfig } from '../../config.js';

export type RetryPolicy = Pick<WebhookConfig, 'retryFirstDelayMs' | 'retryMaxDelayMs' | 'retryForMs'>;

/**
 * The time (ms) of the next attempt after the `attempts`-th one failed at `now`, or null when
 * the delivery has run out of time and fails for good.
 */
export function nextAttemptAt(
  policy: RetryPolicy,
  attempts: number,
  firstAttemptAt: number,
  now: number,
  random: () => number = Math.random,
): number | null {
  const doublings = Math.min(Math.max(attempts - 1, 0), 40);
  const delay = Math.min(policy.retryFirstDelayMs * 2 ** doublings, policy.retryMaxDelayMs);
  const at = now + Math.round(delay * (0.8 + 0.4 * random()));
  return at - firstAttemptAt > policy.retryForMs ? null : at;
}
