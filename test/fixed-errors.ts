/**
 * The 400s whose body the spec fixes (`Invalid input.` on POST /v1/lists, GET /v1/lists/{listId},
 * POST /v1/tasks and DELETE /v1/tasks/{taskId}; `listId must be a number.` on archive and
 * unarchive): the body stays the spec's text and the reason is in the Error-Detail header.
 */
import assert from 'node:assert/strict';
import { expectError, show, type Response } from './harness.js';

/** The bodies the spec fixes for every 400 of some routes. */
export const FIXED_TEXTS: ReadonlySet<string> = new Set(['Invalid input.', 'listId must be a number.']);

/** Asserts a 400 with the spec's fixed `body` and the reason `detail` in Error-Detail. */
export function expectFixedError(response: Response, body: string, detail: string | RegExp): void {
  expectError(response, 400, body);
  const sent = response.headers.get('error-detail');
  const context = `Error-Detail: ${sent}; ${show(response)}`;
  assert.ok(sent !== null, `no Error-Detail header: ${context}`);
  if (typeof detail === 'string') assert.equal(sent, detail, context);
  else assert.match(sent, detail, context);
}
