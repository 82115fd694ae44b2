/** Helpers of the export suites (issue 32): waiting for an export, and reading its file back. */
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import type { Db } from '../../src/storage/schema.js';
import { expectStatus, type Client } from '../harness.js';

/** Polls GET /v1/exports/{id} until it is no longer pending or running; fails past the deadline. */
export async function waitForExport(api: Client, id: number, deadlineMs = 30_000): Promise<any> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const shown = expectStatus(await api.get(`/v1/exports/${id}`), 200);
    if (shown.status !== 'pending' && shown.status !== 'running') return shown;
    assert.ok(Date.now() < deadline, `export ${id} still ${shown.status} after ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Starts an export and waits until it is ready; returns what GET /v1/exports/{id} answered. */
export async function readyExport(api: Client): Promise<any> {
  const started = expectStatus(await api.post('/v1/exports'), 202);
  const shown = await waitForExport(api, started.id);
  assert.equal(shown.status, 'ready', JSON.stringify(shown));
  return shown;
}

/** The export's file, downloaded. */
export async function downloadExport(api: Client, id: number): Promise<{ bytes: Buffer; headers: Headers }> {
  const headers: Record<string, string> = api.key === undefined ? {} : { 'x-api-key': api.key };
  const response = await fetch(`${api.baseUrl}/v1/exports/${id}/file`, { headers });
  assert.equal(response.status, 200, await response.clone().text());
  return { bytes: Buffer.from(await response.arrayBuffer()), headers: response.headers };
}

/** The file's lines, parsed: each JSON Lines line one object. */
export function parseExport(gzipped: Buffer): any[] {
  const text = gunzipSync(gzipped).toString('utf8');
  assert.ok(text.endsWith('\n'), 'the file ends with a newline');
  return text
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line));
}

/** The lines of one type. */
export const linesOf = (lines: any[], type: string): any[] => lines.filter((line) => line.type === type);

/** A line without the fields named (its `type` by default): the API's shape, to compare with an answer. */
export function shapeOf(line: Record<string, unknown>, ...fields: string[]): Record<string, unknown> {
  const shape = { ...line };
  for (const field of fields.length > 0 ? fields : ['type']) delete shape[field];
  return shape;
}

/**
 * Waits until no export is pending or running: an accepted export writes its row again in the
 * background, which a suite comparing the database before and after a request must not see.
 */
export async function exportsSettled(db: Db, deadlineMs = 30_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const busy = await db.selectFrom('exports').select('id').where('status', 'in', ['pending', 'running']).execute();
    if (busy.length === 0) return;
    assert.ok(
      Date.now() < deadline,
      `exports ${busy.map((b) => b.id).join(', ')} still unfinished after ${deadlineMs} ms`,
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
