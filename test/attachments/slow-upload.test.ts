/**
 * An upload over a slow link (issue 31): once its caller may attach to the task, an upload's body
 * has ATTACHMENTS_UPLOAD_TIMEOUT_MS to arrive, not REQUEST_TIMEOUT_MS; nobody else's request gets
 * longer (a refused upload keeps the short deadline), and an upload still trickling at its own
 * deadline is cut with 408 and leaves nothing behind. Short bounds, over raw connections.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { createTestTeam, type Actor } from '../factories.js';
import { expectStatus, startTestServer, type TestServer } from '../harness.js';
import { parseAnswer, rawExchange } from '../raw-exchange.js';
import { newTask, storedFiles } from './support.js';

const REQUEST_MS = 800;
const UPLOAD_MS = 2_500;
/** Room for Node's timers and a busy machine; each bound is still far from the other. */
const SLACK_MS = 700;
const BOUNDARY = 'slowboundary';
const PART_HEAD =
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="slow.txt"\r\n` +
  'Content-Type: text/plain\r\n\r\n';
const PART_TAIL = `\r\n--${BOUNDARY}--\r\n`;

/** The request's head: a chunked multipart upload to `taskId` with `key`. */
const uploadHead = (taskId: number, key: string) =>
  `POST /v1/tasks/${taskId}/attachments HTTP/1.1\r\nHost: tasklane.test\r\nx-api-key: ${key}\r\n` +
  `content-type: multipart/form-data; boundary=${BOUNDARY}\r\ntransfer-encoding: chunked\r\n\r\n`;
const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;

/** Sends `line` as a chunk every `everyMs` until `forMs` have passed (forever if undefined), then the end. */
async function trickle(socket: net.Socket, line: string, everyMs: number, forMs?: number): Promise<void> {
  const started = Date.now();
  while (!socket.destroyed && (forMs === undefined || Date.now() - started < forMs)) {
    socket.write(chunk(line));
    await sleep(everyMs);
  }
}

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

describe('uploads over slow links', () => {
  let server: TestServer;
  let owner: Actor;
  before(async () => {
    server = await startTestServer({
      HEADERS_TIMEOUT_MS: '400',
      REQUEST_TIMEOUT_MS: String(REQUEST_MS),
      CONNECTION_TIMEOUT_MS: '1500',
      EVENTS_HEARTBEAT_SECONDS: '1',
      ATTACHMENTS_UPLOAD_TIMEOUT_MS: String(UPLOAD_MS),
    });
    owner = (await createTestTeam(server)).owner;
  });
  after(() => server?.close());

  test('an allowed upload may take longer than REQUEST_TIMEOUT_MS while its bytes keep coming, and arrives whole', async () => {
    const task = await newTask(owner);
    const line = 'a line of a slowly sent file\n';
    let sent = '';
    const result = await rawExchange(
      server.url,
      async (socket) => {
        socket.write(uploadHead(task.id, owner.key) + chunk(PART_HEAD));
        const started = Date.now();
        while (Date.now() - started < 2 * REQUEST_MS) {
          socket.write(chunk(line));
          sent += line;
          await sleep(50);
        }
        socket.write(chunk(PART_TAIL) + '0\r\n\r\n');
      },
      UPLOAD_MS + SLACK_MS,
    );
    const answer = parseAnswer(result.text);
    assert.equal(answer.status, 201, result.text);
    const attachment = answer.body as { id: number; size: number; sha256: string };
    assert.equal(attachment.size, Buffer.byteLength(sent));
    assert.equal(attachment.sha256, createHash('sha256').update(sent).digest('hex'));
    const stored = await owner.api.request('GET', `/v1/attachments/${attachment.id}/content`);
    assert.equal(stored.text, sent);
  });

  test('a refused upload keeps REQUEST_TIMEOUT_MS: a body trickling after its 401 is cut', async () => {
    const task = await newTask(owner);
    const result = await rawExchange(
      server.url,
      (socket) => {
        socket.write(uploadHead(task.id, 'tl_not_a_key') + chunk(PART_HEAD));
        void trickle(socket, 'x', 50);
      },
      UPLOAD_MS + SLACK_MS,
    );
    assert.equal(parseAnswer(result.text).status, 401, result.text);
    assert.notEqual(result.closedAfterMs, null, 'still open');
    assert.ok(result.closedAfterMs! <= REQUEST_MS + SLACK_MS, `closed after ${result.closedAfterMs} ms`);
  });

  test('an upload still trickling at ATTACHMENTS_UPLOAD_TIMEOUT_MS gets 408 {"error"} and leaves no row and no file', async () => {
    const task = await newTask(owner);
    const filesBefore = storedFiles(server.attachmentsDir).length;
    const result = await rawExchange(
      server.url,
      (socket) => {
        socket.write(uploadHead(task.id, owner.key) + chunk(PART_HEAD));
        void trickle(socket, 'never ending\n', 50);
      },
      UPLOAD_MS + 3 * SLACK_MS,
    );
    assert.notEqual(result.closedAfterMs, null, 'still open');
    assert.ok(result.closedAfterMs! >= UPLOAD_MS - 50, `closed too early (${result.closedAfterMs} ms)`);
    assert.ok(result.closedAfterMs! <= UPLOAD_MS + SLACK_MS, `closed after ${result.closedAfterMs} ms`);
    assert.deepEqual(parseAnswer(result.text), {
      status: 408,
      body: { error: 'The request took too long to arrive; send the headers and body without pausing.' },
    });
    assert.deepEqual(expectStatus(await owner.api.get(`/v1/tasks/${task.id}/attachments`), 200), []);
    // The cut upload's file is removed as its put fails, just after the connection closes.
    await until(() => storedFiles(server.attachmentsDir).length === filesBefore, 'the partial file to go');
  });
});
