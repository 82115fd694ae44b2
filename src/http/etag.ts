/**
 * ETags for conditional requests (CONTRACT.md): a task's or list's ETag is its version,
 * which every change bumps. `If-Match` naming an older version makes a change fail with 412.
 */
import { preconditionFailed } from './errors.js';

export function etagOf(version: number): string {
  return `"v${version}"`;
}

/** Throws 412 unless the If-Match header (if any) names the current version or is `*`. */
export function checkIfMatch(ifMatch: string | undefined, version: number, what: string): void {
  if (ifMatch === undefined) return;
  const current = etagOf(version);
  const tags = ifMatch.split(',').map((tag) => tag.trim().replace(/^W\//, ''));
  if (!tags.some((tag) => tag === '*' || tag === current)) {
    throw preconditionFailed(`The ${what} has changed since you read it. Fetch it again and retry.`);
  }
}
