/**
 * ETags for conditional requests (docs/api.md, "Conditional requests"): a task's or list's ETag is its version,
 * which every change bumps. `If-Match` naming an older version makes a change fail with 412.
 *
 * The version compared must be read under the row's lock (a `Locked` row, from the repositories'
 * `find…Locked`), in the transaction that then writes: a second writer holding the same ETag
 * waits for the first to commit, then sees its new version and gets 412, on PostgreSQL as on
 * SQLite. Every route that honours If-Match goes through `checkIfMatch`, so the type keeps it so.
 */
import type { FastifyReply } from 'fastify';
import type { Locked } from '../storage/dialect.js';
import { preconditionFailed } from './errors.js';

export function etagOf(version: number): string {
  return `"v${version}"`;
}

/** Sends the answer's ETag (its version's) with it, for conditional requests; returns the answer. */
export function withEtag<T extends { version: number }>(reply: FastifyReply, answer: T): T {
  reply.header('etag', etagOf(answer.version));
  return answer;
}

/** Throws 412 unless the If-Match header (if any) names the current version or is `*`. */
export function checkIfMatch(ifMatch: string | undefined, current: Locked<{ version: number }>, what: string): void {
  if (ifMatch === undefined) return;
  const tags = ifMatch.split(',').map((tag) => tag.trim().replace(/^W\//, ''));
  if (!tags.some((tag) => tag === '*' || tag === etagOf(current.version))) {
    throw preconditionFailed(`The ${what} has changed since you read it. Fetch it again and retry.`);
  }
}
