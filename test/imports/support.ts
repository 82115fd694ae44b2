/** Helpers of the import suites (issue 32): uploading a file, and waiting for an apply. */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { applyImportBatch } from '../../src/imports/apply.js';
import { findImport } from '../../src/imports/imports.repository.js';
import type { Store } from '../../src/storage/database.js';
import { expectStatus, type Client, type Response } from '../harness.js';

/** POST /v1/imports: the fields, then the file (or the file first, with `fileFirst`). */
export function uploadImport(
  api: Client,
  bytes: Buffer | string,
  fields: Record<string, string>,
  options: { fileName?: string; fileFirst?: boolean; fileField?: string } = {},
): Promise<Response> {
  const boundary = `----tasklane${randomUUID()}`;
  const fieldParts = Object.entries(fields).map(([name, value]) =>
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
  );
  const filePart = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${options.fileField ?? 'file'}"; filename="${options.fileName ?? 'import.bin'}"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    ),
    Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes),
    Buffer.from('\r\n'),
  ]);
  const parts = options.fileFirst ? [filePart, ...fieldParts] : [...fieldParts, filePart];
  return api.request('POST', '/v1/imports', {
    rawBody: Buffer.concat([...parts, Buffer.from(`--${boundary}--\r\n`)]),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  });
}

/** Polls GET /v1/imports/{id} until it is no longer applying; fails past the deadline. */
export async function waitForImport(api: Client, id: number, deadlineMs = 60_000): Promise<any> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const shown = expectStatus(await api.get(`/v1/imports/${id}`), 200);
    if (shown.status !== 'applying') return shown;
    assert.ok(
      Date.now() < deadline,
      `import ${id} still applying after ${deadlineMs} ms: ${JSON.stringify(shown.progress)}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Uploads, applies and waits: the import as it ended. */
export async function importFile(
  api: Client,
  bytes: Buffer | string,
  fields: Record<string, string>,
  fileName?: string,
): Promise<any> {
  const planned = expectStatus(await uploadImport(api, bytes, fields, { fileName }), 201);
  expectStatus(await api.post(`/v1/imports/${planned.id}/apply`), 200);
  const ended = await waitForImport(api, planned.id);
  assert.equal(ended.status, 'applied', JSON.stringify(ended));
  return ended;
}

/** A spreadsheet's CSV from rows of cells (quoted where needed). */
export function csvOf(rows: string[][]): string {
  const cell = (value: string) => (/[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);
  return rows.map((row) => row.map(cell).join(',')).join('\r\n') + '\r\n';
}

/**
 * Runs an applying import's batches here, one transaction each, as the scheduled jobs would: for a
 * server whose scheduled jobs are off (SCHEDULED_JOBS=off), so nothing happens in its background.
 */
export async function applyNow(store: Store, teamId: string, importId: number): Promise<void> {
  for (let batch = 0; (await findImport(store.db, teamId, importId))?.status === 'applying'; batch++) {
    assert.ok(batch < 1000, `import ${importId} never ended`);
    const job = {
      id: 0,
      kind: 'import.apply',
      teamId,
      taskId: null,
      userId: null,
      data: { importId },
      runAt: '',
      attempts: 0,
    };
    await store.transaction((trx) => applyImportBatch(trx, job, { now: new Date(), late: false }));
  }
}
