/**
 * Attachments as a team that scales out keeps them: two `tasklane serve` processes on one
 * PostgreSQL database and one S3-compatible bucket (a real s3rver on loopback). A file uploaded
 * through one process is listed and downloaded whole through the other, and deleted through it;
 * uploads racing through both processes never pass the team's quota together, and the bucket
 * holds exactly the files whose rows exist. PostgreSQL only (a *.pg.test file).
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import pg from 'pg';
import { parseS3Url } from '../../src/s3-config.js';
import { Client, expectError, expectStatus, tempDatabase, type TempDatabase } from '../harness.js';
import { killAll, printedKey, serve, TIMEOUT, type Serving } from '../processes.js';
import { startS3Server, type TestS3Server } from './s3-server.js';
import { upload } from './support.js';

const FILE_BYTES = 64 * 1024;
const QUOTA_FILES = 5;
const RACING_UPLOADS = 12;

describe('attachments across two processes on PostgreSQL and S3', { timeout: 4 * TIMEOUT }, () => {
  let database: TempDatabase;
  let s3: TestS3Server;
  let servers: Serving[] = [];
  let clients: [Client, Client];

  before(async () => {
    s3 = await startS3Server();
    database = await tempDatabase();
    const env = {
      RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: 'error',
      ATTACHMENTS_S3_URL: s3.url,
      ATTACHMENTS_TEAM_QUOTA_BYTES: String(QUOTA_FILES * FILE_BYTES),
    };
    // One process first: it bootstraps the workspace and prints the owner's key.
    servers = [await serve(database.url, env)];
    servers.push(await serve(database.url, env));
    const { key } = printedKey(servers[0]!.stdout());
    clients = [new Client(servers[0]!.url, key), new Client(servers[1]!.url, key)];
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    killAll();
    await database?.remove();
    await s3?.close();
  });

  const newTask = async (api: Client) => expectStatus(await api.post('/v1/tasks', { title: 'Shared' }), 201);
  const attachmentBytes = async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query('select sum(attachment_bytes) as bytes from teams');
      return Number(rows[0].bytes);
    } finally {
      await client.end();
    }
  };
  const objectsInBucket = async () => {
    const config = parseS3Url(s3.url, [])!;
    const bucket = new S3Client({
      endpoint: config.endpoint,
      region: config.region,
      forcePathStyle: true,
      credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey },
    });
    try {
      const { Contents = [] } = await bucket.send(new ListObjectsV2Command({ Bucket: s3.bucket }));
      return Contents.map((object) => object.Key!).filter((key) => !key.startsWith('._S3rver'));
    } finally {
      bucket.destroy();
    }
  };

  test('a file uploaded through one process is listed, downloaded whole and deleted through the other', async () => {
    const [first, second] = clients;
    const task = await newTask(first);
    const bytes = randomBytes(FILE_BYTES);
    const attachment = expectStatus(await upload(first, task.id, bytes, 'plan.bin'), 201);
    assert.equal(attachment.sha256, createHash('sha256').update(bytes).digest('hex'));

    const listed = expectStatus(await second.get(`/v1/tasks/${task.id}/attachments`), 200);
    assert.deepEqual(
      listed.map((a: { id: number }) => a.id),
      [attachment.id],
    );
    const download = await fetch(`${servers[1]!.url}/v1/attachments/${attachment.id}/content`, {
      headers: { 'x-api-key': second.key! },
    });
    assert.equal(download.status, 200);
    assert.ok(Buffer.from(await download.arrayBuffer()).equals(bytes), 'the other process serves the same bytes');

    expectStatus(await second.delete(`/v1/attachments/${attachment.id}`), 200);
    expectError(await first.get(`/v1/attachments/${attachment.id}/content`), 404);
    assert.deepEqual(await objectsInBucket(), [], 'the bucket no longer holds it');
  });

  test('uploads racing through both processes never pass the team quota together, and the bucket holds exactly the kept files', async () => {
    const task = await newTask(clients[0]);
    const results = await Promise.all(
      Array.from({ length: RACING_UPLOADS }, (_, i) =>
        upload(clients[i % 2]!, task.id, randomBytes(FILE_BYTES), `race-${i}.bin`),
      ),
    );
    const kept = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status !== 201);
    assert.equal(kept.length, QUOTA_FILES, 'exactly as many as the quota holds are kept');
    for (const res of refused) expectError(res, 413);

    assert.equal(await attachmentBytes(), QUOTA_FILES * FILE_BYTES, "the team's counted bytes are the kept files'");
    const listed = expectStatus(await clients[1].get(`/v1/tasks/${task.id}/attachments`), 200);
    assert.equal(listed.length, QUOTA_FILES);
    assert.equal((await objectsInBucket()).length, QUOTA_FILES, 'no refused upload left an object behind');
  });
});
