/**
 * A real S3-compatible server on loopback (the `s3rver` package, a dev dependency), for the
 * attachment suites: a bucket on a temporary folder, silent, on a free port. `url` is an
 * ATTACHMENTS_S3_URL for it (s3rver's fixed keys, S3RVER:S3RVER, which it checks signatures with).
 *
 * s3rver 3.7 speaks objects, listings and multipart uploads (create, upload part, complete),
 * but not two calls tasklane makes: AbortMultipartUpload and ListMultipartUploads (it answers
 * 405 and 501). Both are added here, over s3rver's own folder of uploads in progress
 * (`<bucket>/._S3rver_uploads/<uploadId>/`, with the key in a file `key`), in front of its
 * routes; `uploadsInProgress()` reads that folder directly, so a test can see what is left
 * without going through either.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

export interface TestS3Server {
  url: string;
  bucket: string;
  /** The multipart uploads s3rver holds, read from its folder (initiated: when its `key` file was written). */
  uploadsInProgress(): Promise<{ key: string; uploadId: string; initiated: Date }[]>;
  close(): Promise<void>;
}

const escapeXml = (text: string) =>
  text.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);

export async function startS3Server({ bucket = 'attachments' } = {}): Promise<TestS3Server> {
  const directory = mkdtempSync(join(tmpdir(), 'tasklane-s3-'));
  const uploadsDir = join(directory, bucket, '._S3rver_uploads');

  async function uploadsInProgress() {
    const ids = await readdir(uploadsDir).catch(() => [] as string[]);
    const uploads = await Promise.all(
      ids.map(async (uploadId) => {
        try {
          const key = await readFile(join(uploadsDir, uploadId, 'key'), 'utf8');
          return { key, uploadId, initiated: (await stat(join(uploadsDir, uploadId, 'key'))).mtime };
        } catch {
          return undefined; // completed or aborted meanwhile
        }
      }),
    );
    return uploads.filter((upload) => upload !== undefined);
  }

  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  server.middleware.unshift(async (ctx, next) => {
    const [, pathBucket, ...keyParts] = ctx.path.split('/');
    const key = decodeURIComponent(keyParts.join('/'));
    // AbortMultipartUpload: DELETE /bucket/key?uploadId=…
    if (ctx.method === 'DELETE' && pathBucket === bucket && key && typeof ctx.query.uploadId === 'string') {
      const uploadDir = join(uploadsDir, ctx.query.uploadId.replace(/[^0-9a-f]/g, ''));
      const held = await readFile(join(uploadDir, 'key'), 'utf8').catch(() => undefined);
      if (held !== key) {
        ctx.status = 404;
        ctx.type = 'application/xml';
        ctx.body = '<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchUpload</Code></Error>';
        return;
      }
      await rm(uploadDir, { recursive: true, force: true });
      ctx.status = 204;
      return;
    }
    // ListMultipartUploads: GET /bucket?uploads[&prefix=…], in one page.
    if (ctx.method === 'GET' && pathBucket === bucket && !key && 'uploads' in ctx.query) {
      const prefix = typeof ctx.query.prefix === 'string' ? ctx.query.prefix : '';
      const uploads = (await uploadsInProgress()).filter((upload) => upload.key.startsWith(prefix));
      ctx.status = 200;
      ctx.type = 'application/xml';
      ctx.body =
        '<?xml version="1.0" encoding="UTF-8"?>' +
        `<ListMultipartUploadsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Bucket>${bucket}</Bucket>` +
        `<Prefix>${escapeXml(prefix)}</Prefix><IsTruncated>false</IsTruncated>` +
        uploads
          .map(
            (upload) =>
              `<Upload><Key>${escapeXml(upload.key)}</Key><UploadId>${upload.uploadId}</UploadId>` +
              `<Initiated>${upload.initiated.toISOString()}</Initiated><StorageClass>STANDARD</StorageClass></Upload>`,
          )
          .join('') +
        '</ListMultipartUploadsResult>';
      return;
    }
    await next();
  });
  const address = await server.run();
  return {
    url: `http://S3RVER:S3RVER@127.0.0.1:${address.port}/${bucket}?region=us-east-1`,
    bucket,
    uploadsInProgress,
    async close() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
