/**
 * Attachments over HTTP with ATTACHMENTS_S3_URL: the server stores files in an S3-compatible
 * bucket (a real s3rver on loopback), on the store under test. Upload, read back byte for byte,
 * delete: the bucket holds the object exactly while its row exists, and a file past the limit
 * leaves nothing there.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { parseS3Url } from '../../src/s3-config.js';
import { createTestTeam } from '../factories.js';
import { expectError, expectStatus, startTestServer, TEST_STORE, type TestServer } from '../harness.js';
import { startS3Server, type TestS3Server } from './s3-server.js';
import { newTask, upload } from './support.js';

let s3: TestS3Server;
let server: TestServer;
let bucket: S3Client;
before(async () => {
  s3 = await startS3Server();
  server = await startTestServer({ ATTACHMENTS_S3_URL: s3.url, ATTACHMENTS_MAX_FILE_BYTES: String(3 * 1024 * 1024) });
  const config = parseS3Url(s3.url, [])!;
  bucket = new S3Client({
    endpoint: config.endpoint,
    region: config.region,
    forcePathStyle: true,
    credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey },
  });
});
after(async () => {
  bucket.destroy();
  await server.close();
  await s3.close();
});

const objects = async () =>
  ((await bucket.send(new ListObjectsV2Command({ Bucket: s3.bucket }))).Contents ?? [])
    .map((object) => object.Key!)
    .filter((key) => !key.startsWith('._S3rver'));

test(`with ATTACHMENTS_S3_URL a file is kept in the bucket, read back whole, and deleted with its row (${TEST_STORE})`, async () => {
  const team = await createTestTeam(server);
  const task = await newTask(team.owner);
  const bytes = randomBytes(2 * 1024 * 1024 + 17);
  const attachment = expectStatus(await upload(team.owner.api, task.id, bytes, 'data.bin'), 201);
  assert.equal(attachment.size, bytes.length);
  assert.equal(attachment.sha256, createHash('sha256').update(bytes).digest('hex'));
  assert.equal((await objects()).length, 1, 'one object in the bucket');

  const download = await fetch(`${server.url}/v1/attachments/${attachment.id}/content`, {
    headers: { 'x-api-key': team.owner.key },
  });
  assert.equal(download.status, 200);
  assert.ok(Buffer.from(await download.arrayBuffer()).equals(bytes), 'the same bytes come back');

  expectError(await upload(team.owner.api, task.id, randomBytes(3 * 1024 * 1024 + 1), 'big.bin'), 413);
  assert.equal((await objects()).length, 1, 'a refused upload leaves nothing in the bucket');

  expectStatus(await team.owner.api.delete(`/v1/attachments/${attachment.id}`), 200);
  assert.deepEqual(await objects(), [], 'deleted with its row');
});
