/**
 * Attachments in an S3-compatible bucket (ATTACHMENTS_S3_URL, s3-config.ts).
 *
 * put() streams the body through a Transform that counts its bytes and hashes them (SHA-256)
 * into lib-storage's `Upload`: one PutObject for a file smaller than a part, else a multipart
 * upload of PART_SIZE parts, QUEUE_SIZE of them in flight, so a put holds at most about
 * (QUEUE_SIZE + 2) × PART_SIZE in memory whatever the file's size.
 *
 * Past `maxBytes`, or on any error of the body or of S3, the Transform fails the stream, and
 * put() waits until the Upload has settled: lib-storage lets its parts in flight finish and then
 * sends AbortMultipartUpload itself. put() does not call `Upload.abort()`: that settles `done()`
 * at once while parts are still in flight, and a part landing after the abort would leave an
 * incomplete upload behind. After the Upload has settled, put() aborts the multipart upload and
 * deletes the key itself too (both idempotent), so nothing is left whichever step failed.
 *
 * An upload whose process died mid-way is aborted by `abortStaleUploads(before)`, which list()
 * runs before listing (the reconciliation that calls list() thus also clears those); a bucket
 * lifecycle rule (AbortIncompleteMultipartUpload) does the same on AWS, if one is set.
 */
import { createHash } from 'node:crypto';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  NoSuchKey,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { FileMissing, FileTooLarge, type FileStore, type StoredFile } from './file-store.js';
import type { S3Config } from '../../s3-config.js';

/**
 * 5 MiB parts, S3's least (10,000 of them are 48 GiB, far past any attachment), one in flight:
 * lib-storage holds a part being filled, its concatenation and the part in flight, so this is
 * what keeps a 1 GiB upload's peak within 50 MB of idle (8 MiB and 2 in flight: +81 MB), at the
 * same throughput on loopback (BENCHMARKS.md, issue 31).
 */
export const PART_SIZE = 5 * 1024 * 1024;
/** Parts in flight at once. */
export const QUEUE_SIZE = 1;

export interface S3FileStoreOptions {
  /** Overrides PART_SIZE (at least 5 MiB). */
  partSize?: number;
  /** Overrides QUEUE_SIZE. */
  queueSize?: number;
}

/** Counts and hashes what passes; fails with FileTooLarge at the first byte past `maxBytes`. */
class Measure extends Transform {
  /** Not `size`: lib-storage reads a body's `size` as its length in advance (as a Blob's). */
  counted = 0;
  readonly #hash = createHash('sha256');
  constructor(readonly maxBytes: number) {
    super();
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.counted += chunk.length;
    if (this.counted > this.maxBytes) {
      callback(new FileTooLarge(`the file is larger than ${this.maxBytes} bytes`));
      return;
    }
    this.#hash.update(chunk);
    callback(null, chunk);
  }
  digest(): string {
    return this.#hash.digest('hex');
  }
}

const isNotFound = (error: unknown) =>
  error instanceof NoSuchKey ||
  (error instanceof S3ServiceException && (error.name === 'NoSuchKey' || error.$metadata.httpStatusCode === 404));

export class S3FileStore implements FileStore {
  readonly client: S3Client;
  readonly bucket: string;
  readonly prefix: string;
  readonly #partSize: number;
  readonly #queueSize: number;

  constructor(config: S3Config, options: S3FileStoreOptions = {}) {
    this.client = new S3Client({
      endpoint: config.endpoint,
      region: config.region,
      forcePathStyle: config.forcePathStyle,
      credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey },
      // The SDK's default since 2025 adds CRC32 checksums (as aws-chunked trailers on streams),
      // which many S3-compatible servers do not understand; SHA-256 is ours, and S3 checks MD5s.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    this.bucket = config.bucket;
    this.prefix = config.prefix ?? '';
    this.#partSize = options.partSize ?? PART_SIZE;
    this.#queueSize = options.queueSize ?? QUEUE_SIZE;
  }

  #objectKey(key: string): string {
    return `${this.prefix}${key}`;
  }

  /**
   * Whether an object of the bucket is one of this store's: its keys sit right under the prefix
   * (server-made, no `/`). Deeper keys belong to another store sharing the bucket, such as the
   * exports' `tasklane-exports/` (exports/export-files.ts), which list() and abortStaleUploads()
   * must never offer to the reconciliation.
   */
  #ownKey(objectKey: string): boolean {
    return objectKey.startsWith(this.prefix) && !objectKey.slice(this.prefix.length).includes('/');
  }

  async put(key: string, body: Readable, maxBytes: number): Promise<StoredFile> {
    const measure = new Measure(maxBytes);
    // Any error of the body fails `measure` (which the Upload reads), and the reverse.
    const piped = pipeline(body, measure).then(
      () => undefined,
      (error: unknown) => error,
    );
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: this.#objectKey(key), Body: measure },
      partSize: this.#partSize,
      queueSize: this.#queueSize,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
      const streamError = await piped;
      if (streamError) throw streamError;
    } catch (error) {
      // The cause that matters: too large, or the body's own error, before what S3 made of it.
      const cause: unknown = measure.errored ?? body.errored ?? error;
      measure.destroy(); // an S3 failure leaves the streams half read: release the body
      await piped;
      await this.#removeUpload(key, upload.uploadId);
      throw cause;
    }
    return { size: measure.counted, sha256: measure.digest() };
  }

  /** After a failed put: no multipart upload, no object. Each step idempotent. */
  async #removeUpload(key: string, uploadId: string | undefined): Promise<void> {
    const Key = this.#objectKey(key);
    if (uploadId) {
      await this.client
        .send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key, UploadId: uploadId }))
        .catch((error: unknown) => {
          if (!isNotFound(error)) throw error;
        });
    }
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key }));
  }

  async get(key: string): Promise<Readable> {
    try {
      const response = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.#objectKey(key) }));
      if (!(response.Body instanceof Readable)) throw new Error('S3 answered GetObject without a readable body');
      return response.Body;
    } catch (error) {
      if (isNotFound(error)) throw new FileMissing(`no file ${key}`);
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    // DeleteObject answers 204 for a key that is not there too.
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.#objectKey(key) }));
  }

  /** Aborts stale multipart uploads first (abortStaleUploads), then lists the keys. */
  async *list(before: Date): AsyncIterable<string> {
    await this.abortStaleUploads(before);
    let ContinuationToken: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          ...(this.prefix ? { Prefix: this.prefix } : {}),
          ...(ContinuationToken ? { ContinuationToken } : {}),
        }),
      );
      for (const object of page.Contents ?? []) {
        if (object.Key && this.#ownKey(object.Key) && object.LastModified && object.LastModified < before) {
          yield object.Key.slice(this.prefix.length);
        }
      }
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
  }

  /**
   * Aborts every multipart upload under the prefix initiated before `before`: those of a process
   * that died during a put. Give a `before` well behind now (the reconciliation's own margin), so
   * that no upload still running is cut off. Returns how many it aborted.
   */
  async abortStaleUploads(before: Date): Promise<number> {
    let aborted = 0;
    let KeyMarker: string | undefined;
    let UploadIdMarker: string | undefined;
    do {
      const page = await this.client.send(
        new ListMultipartUploadsCommand({
          Bucket: this.bucket,
          ...(this.prefix ? { Prefix: this.prefix } : {}),
          ...(KeyMarker ? { KeyMarker } : {}),
          ...(UploadIdMarker ? { UploadIdMarker } : {}),
        }),
      );
      for (const upload of page.Uploads ?? []) {
        if (
          upload.Key &&
          this.#ownKey(upload.Key) &&
          upload.UploadId &&
          upload.Initiated &&
          upload.Initiated < before
        ) {
          await this.client
            .send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: upload.Key, UploadId: upload.UploadId }))
            .catch((error: unknown) => {
              if (!isNotFound(error)) throw error;
            });
          aborted += 1;
        }
      }
      const more = page.IsTruncated === true;
      KeyMarker = more ? page.NextKeyMarker : undefined;
      UploadIdMarker = more ? page.NextUploadIdMarker : undefined;
    } while (KeyMarker);
    return aborted;
  }
}
