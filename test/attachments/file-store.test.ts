/**
 * One contract for every attachment backend (FileStore): each case runs against each factory in
 * BACKENDS, the disk (a temp folder) and S3. S3 runs against a real s3rver on loopback
 * (s3-server.ts), so it needs nothing outside npm and runs wherever `npm test` does.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ListMultipartUploadsCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DiskFileStore } from '../../src/attachments/storage/disk-store.js';
import { FileMissing, FileTooLarge, type FileStore } from '../../src/attachments/storage/file-store.js';
import { parseS3Url } from '../../src/s3-config.js';
import { S3FileStore } from '../../src/attachments/storage/s3-store.js';
import { startS3Server } from './s3-server.js';

const MiB = 1024 * 1024;

/** The key of each name, made as the server makes keys (a UUID), the same for the same name. */
const keys = new Map<string, string>();
const key = (name: string): string => keys.get(name) ?? keys.set(name, randomUUID()).get(name)!;

interface Backend {
  store: FileStore;
  /** Everything the backend holds by its own means, not through the FileStore: objects, uploads in progress. */
  leftovers(): Promise<string[]>;
  close(): Promise<void>;
}

const BACKENDS: { name: string; start(): Promise<Backend> }[] = [
  {
    name: 's3',
    async start() {
      const server = await startS3Server();
      const problems: string[] = [];
      const config = parseS3Url(server.url, problems);
      assert.deepEqual(problems, []);
      // 5 MiB parts (S3's least), so that a 20 MB file is a multipart upload of 4 parts.
      const store = new S3FileStore(config!, { partSize: 5 * MiB });
      return {
        store,
        async leftovers() {
          const objects = await store.client.send(new ListObjectsV2Command({ Bucket: server.bucket }));
          const uploads = await store.client.send(new ListMultipartUploadsCommand({ Bucket: server.bucket }));
          const held = await server.uploadsInProgress();
          return [
            ...(objects.Contents ?? []).map((o) => `object ${o.Key}`),
            ...(uploads.Uploads ?? []).map((u) => `upload ${u.Key}`),
            ...held.map((u) => `upload folder ${u.key}`),
          ];
        },
        async close() {
          store.client.destroy();
          await server.close();
        },
      };
    },
  },
  {
    name: 'disk',
    async start() {
      const dir = await mkdtemp(join(tmpdir(), 'tasklane-files-'));
      const files = async (): Promise<string[]> =>
        (await readdir(dir, { recursive: true, withFileTypes: true }))
          .filter((entry) => entry.isFile())
          .map((entry) => `file ${entry.name}`);
      return {
        store: new DiskFileStore(dir),
        leftovers: files,
        close: () => rm(dir, { recursive: true, force: true }),
      };
    },
  },
];

/** `size` bytes, not all alike, in 1 MiB chunks made as they are read; `sha256` once it has ended. */
function generated(size: number): { body: Readable; sha256: () => string } {
  const block = randomBytes(MiB);
  const hash = createHash('sha256');
  let sent = 0;
  const body = new Readable({
    read() {
      if (sent >= size) {
        this.push(null);
        return;
      }
      const chunk = Buffer.from(block.subarray(0, Math.min(MiB, size - sent)));
      if (chunk.length >= 4) chunk.writeUInt32BE(sent / MiB, 0); // each chunk unlike the others
      sent += chunk.length;
      hash.update(chunk);
      this.push(chunk);
    },
  });
  let digest: string | undefined;
  return { body, sha256: () => (digest ??= hash.digest('hex')) };
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The SHA-256 and size of a stream, read through without keeping it. */
async function digestOf(stream: Readable): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of stream) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { size, sha256: hash.digest('hex') };
}

async function listed(store: FileStore, before: Date): Promise<string[]> {
  const keys: string[] = [];
  for await (const key of store.list(before)) keys.push(key);
  return keys.sort();
}

const soon = () => new Date(Date.now() + 60_000);

for (const { name, start } of BACKENDS) {
  describe(`FileStore contract: ${name}`, () => {
    let backend: Backend;
    let store: FileStore;
    before(async () => {
      backend = await start();
      store = backend.store;
    });
    after(() => backend?.close());

    test('put then get returns the same bytes, and put reports their size and SHA-256', async () => {
      const bytes = Buffer.concat([randomBytes(1000), Buffer.from('é\u0000\r\n')]);
      const reference = createHash('sha256').update(bytes).digest('hex');
      const stored = await store.put(
        key('round-trip'),
        Readable.from([bytes.subarray(0, 10), bytes.subarray(10)]),
        2000,
      );
      assert.deepEqual(stored, { size: bytes.length, sha256: reference });
      const read = await readAll(await store.get(key('round-trip')));
      assert.ok(read.equals(bytes));
      await store.delete(key('round-trip'));
    });

    test('an empty file, and a file of exactly maxBytes, are stored', async () => {
      assert.deepEqual(await store.put(key('empty'), Readable.from([]), 10), {
        size: 0,
        sha256: createHash('sha256').digest('hex'),
      });
      assert.equal((await readAll(await store.get(key('empty')))).length, 0);
      const bytes = randomBytes(4096);
      const stored = await store.put(key('exact'), Readable.from([bytes]), 4096);
      assert.equal(stored.size, 4096);
      assert.ok((await readAll(await store.get(key('exact')))).equals(bytes));
      await store.delete(key('empty'));
      await store.delete(key('exact'));
    });

    test('a 20 MB file goes up in parts and comes back whole', async () => {
      const file = generated(20 * 1000 * 1000);
      const stored = await store.put(key('twenty'), file.body, 25 * MiB);
      assert.deepEqual(stored, { size: 20 * 1000 * 1000, sha256: file.sha256() });
      assert.deepEqual(await digestOf(await store.get(key('twenty'))), stored);
      await store.delete(key('twenty'));
    });

    test('a 100 MiB file streams through without being held in memory', async () => {
      const size = 100 * MiB;
      const file = generated(size);
      global.gc?.();
      const baseline = process.memoryUsage().rss;
      let peak = baseline;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
      try {
        const stored = await store.put(key('fifty'), file.body, size);
        assert.deepEqual(stored, { size, sha256: file.sha256() });
        assert.deepEqual(await digestOf(await store.get(key('fifty'))), stored);
      } finally {
        clearInterval(sampler);
      }
      // A sanity bound only (the benchmark measures: bench/experiments/upload-memory-s3.mjs). RSS
      // grew by 23 to 48 MiB in runs of this test (parts in flight, s3rver's own buffers, heap
      // the GC keeps), whatever the file's size; a put or get that held the file would add 100.
      const growth = (peak - baseline) / MiB;
      assert.ok(growth < 80, `RSS grew by ${growth.toFixed(0)} MiB during a 100 MiB put and get`);
      await store.delete(key('fifty'));
    });

    for (const [label, maxBytes] of [
      ['a small file', 1000],
      ['a file of several parts', 12 * MiB],
    ] as const) {
      test(`${label} one byte past maxBytes is refused with FileTooLarge and leaves nothing`, async () => {
        const file = generated(maxBytes + 1);
        await assert.rejects(store.put(key('too-large'), file.body, maxBytes), FileTooLarge);
        assert.ok(file.body.destroyed, 'the body is released');
        assert.deepEqual(await listed(store, soon()), []);
        assert.deepEqual(await backend.leftovers(), []);
        await assert.rejects(store.get(key('too-large')), FileMissing);
      });
    }

    test("a body's own error fails put and leaves nothing", async () => {
      const body = new Readable({ read() {} });
      body.push(randomBytes(6 * MiB));
      const put = store.put(key('broken'), body, 100 * MiB);
      await sleep(50);
      body.destroy(new Error('the client went away'));
      await assert.rejects(put, /the client went away/);
      assert.deepEqual(await backend.leftovers(), []);
    });

    test('get of a key that is not there rejects with FileMissing', async () => {
      await assert.rejects(store.get(key('never-stored')), FileMissing);
    });

    test('delete is idempotent: a deleted key, and one never stored, delete without error', async () => {
      await store.put(key('to-delete'), Readable.from([Buffer.from('x')]), 10);
      await store.delete(key('to-delete'));
      await store.delete(key('to-delete'));
      await store.delete(key('never-stored'));
      await assert.rejects(store.get(key('to-delete')), FileMissing);
      assert.deepEqual(await listed(store, soon()), []);
    });

    test('list(before) yields the keys stored before that time, and only those', async () => {
      await store.put(key('older'), Readable.from([Buffer.from('a')]), 10);
      await sleep(20);
      const between = new Date();
      // Past the next whole second: a backend may keep times to the second.
      await sleep(1100);
      await store.put(key('newer'), Readable.from([Buffer.from('b')]), 10);
      assert.deepEqual(await listed(store, new Date(between.getTime() - 60_000)), []);
      assert.deepEqual(await listed(store, between), [key('older')]);
      assert.deepEqual(await listed(store, soon()), [key('newer'), key('older')].sort());
      await store.delete(key('older'));
      await store.delete(key('newer'));
    });
  });
}

describe('S3FileStore beyond the contract', () => {
  test('abortStaleUploads aborts a multipart upload left by a put that never finished', async () => {
    const server = await startS3Server();
    const store = new S3FileStore(parseS3Url(server.url, [])!, { partSize: 5 * MiB });
    try {
      // A put whose process "dies": its body never ends, so its upload stays open.
      const body = new Readable({ read() {} });
      body.push(randomBytes(11 * MiB));
      const put = store.put('orphan', body, 100 * MiB);
      put.catch(() => {});
      while ((await server.uploadsInProgress()).length === 0) await sleep(20);
      assert.equal(await store.abortStaleUploads(new Date(Date.now() - 60_000)), 0, 'a recent upload is left alone');
      assert.equal(await store.abortStaleUploads(soon()), 1);
      assert.deepEqual(await server.uploadsInProgress(), []);
      body.destroy(new Error('gone'));
      await assert.rejects(put);
    } finally {
      store.client.destroy();
      await server.close();
    }
  });

  test("another store's keys deeper in the bucket (the exports' tasklane-exports/) are never listed nor aborted", async () => {
    const server = await startS3Server();
    const store = new S3FileStore(parseS3Url(server.url, [])!, { partSize: 5 * MiB });
    const exportsStore = new S3FileStore(
      { ...parseS3Url(server.url, [])!, prefix: 'tasklane-exports/' },
      { partSize: 5 * MiB },
    );
    try {
      await store.put('mine', Readable.from([Buffer.from('1')]), 10);
      await exportsStore.put('theirs', Readable.from([Buffer.from('2')]), 10);
      assert.deepEqual(await listed(store, soon()), ['mine']);
      // An unfinished multipart upload of the other store is not this store's to abort.
      const body = new Readable({ read() {} });
      body.push(randomBytes(6 * MiB));
      const put = exportsStore.put('big', body, 100 * MiB);
      put.catch(() => {});
      while ((await server.uploadsInProgress()).length === 0) await sleep(20);
      assert.equal(await store.abortStaleUploads(soon()), 0);
      body.destroy(new Error('gone'));
      await assert.rejects(put);
    } finally {
      store.client.destroy();
      exportsStore.client.destroy();
      await server.close();
    }
  });

  test('a key prefix in the URL keeps every key under it', async () => {
    const server = await startS3Server();
    const url = server.url.replace('/attachments?', '/attachments/tasklane/files?');
    const store = new S3FileStore(parseS3Url(url, [])!);
    try {
      await store.put('a', Readable.from([Buffer.from('1')]), 10);
      const raw = await store.client.send(new ListObjectsV2Command({ Bucket: server.bucket }));
      assert.deepEqual(
        raw.Contents?.map((o) => o.Key),
        ['tasklane/files/a'],
      );
      assert.deepEqual(await listed(store, soon()), ['a']);
    } finally {
      store.client.destroy();
      await server.close();
    }
  });
});
