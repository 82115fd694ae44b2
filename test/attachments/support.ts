/** Helpers of the attachment suites (issue 31). */
import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Actor } from '../factories.js';
import type { Client, Response } from '../harness.js';

/** A PNG's first bytes (signature and IHDR), enough for sniffing. */
export const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000000000500010d0a2db40000000049454e44ae426082',
  'hex',
);

/** A multipart/form-data body with one file part. */
export function multipartBody(
  bytes: Buffer,
  filename: string,
  options: { field?: string; type?: string; boundary?: string } = {},
): { body: Buffer; contentType: string } {
  const boundary = options.boundary ?? `----tasklane${randomUUID()}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${options.field ?? 'file'}"; filename="${filename}"\r\n` +
      `Content-Type: ${options.type ?? 'application/octet-stream'}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { body: Buffer.concat([head, bytes, tail]), contentType: `multipart/form-data; boundary=${boundary}` };
}

export function upload(
  api: Client,
  taskId: number,
  bytes: Buffer,
  filename = 'file.bin',
  options: { field?: string; type?: string } = {},
): Promise<Response> {
  const { body, contentType } = multipartBody(bytes, filename, options);
  return api.request('POST', `/v1/tasks/${taskId}/attachments`, {
    rawBody: body,
    headers: { 'content-type': contentType },
  });
}

export async function newTask(actor: Actor, body: Record<string, unknown> = {}): Promise<{ id: number }> {
  const res = await actor.api.post('/v1/tasks', { title: 'A task', ...body });
  if (res.status !== 201) throw new Error(`task not created: ${res.status} ${res.text}`);
  return res.body;
}

/** Every file (and temporary file) in a disk store's folder. */
export function storedFiles(dir: string): string[] {
  let shards: string[];
  try {
    shards = readdirSync(dir);
  } catch {
    return [];
  }
  return shards.flatMap((shard) => readdirSync(join(dir, shard)).map((name) => `${shard}/${name}`));
}

export const ATTACHMENT_KEYS = ['contentType', 'createdAt', 'id', 'name', 'sha256', 'size', 'taskId', 'uploadedBy'];
