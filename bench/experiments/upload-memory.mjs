// Memory and throughput of a large attachment upload (issue 31): starts the built `tasklane serve`
// on a temporary SQLite database, streams one multipart upload of SIZE_MB (default 200) to it,
// and prints the server's resident memory before and at its peak (VmHWM, Linux) and the upload's
// throughput. The file must stream: the peak should stay within 50 MB of the start.
// STORE=s3 stores it in an s3rver bucket (test/attachments/s3-server.ts, in a child process of
// its own, so its memory is not the server's) instead of the disk.
//
//   npx tsc -p tsconfig.json && [SIZE_MB=1024] [STORE=disk|s3] node bench/experiments/upload-memory.mjs
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startS3Child } from './s3-child.mjs';

const root = new URL('../..', import.meta.url).pathname;
const sizeMb = Number(process.env.SIZE_MB ?? 200);
const size = sizeMb * 1024 * 1024;
const dir = mkdtempSync(join(tmpdir(), 'tasklane-upload-bench-'));
const onS3 = process.env.STORE === 's3';

const s3 = onS3 ? await startS3Child() : undefined;

const memory = (pid) => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)[1]);
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
};

// With the Node.js flags `tasklane`'s #! line gives it (bin/tasklane.js), as in production.
const child = spawn(process.execPath, ['--max-semi-space-size=4', join(root, 'bin', 'tasklane.js'), 'serve'], {
  env: {
    ...process.env,
    DATABASE_URL: `sqlite:${join(dir, 'tasklane.db')}`,
    PORT: '0',
    LOG_LEVEL: 'error',
    RATE_LIMIT_PER_MINUTE: '0',
    ATTACHMENTS_MAX_FILE_BYTES: String(size + 1024),
    ...(s3 ? { ATTACHMENTS_S3_URL: s3.url } : {}),
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let out = '';
const { url, key } = await new Promise((resolve) => {
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    out += chunk;
    const listening = /listening on (http:\/\/\S+)/.exec(out);
    const key = /x-api-key:\s*([^\s'"]+)/i.exec(out);
    if (listening && key) resolve({ url: listening[1], key: key[1] });
  });
});

try {
  const task = await globalThis
    .fetch(`${url}/v1/tasks`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Upload benchmark' }),
    })
    .then((r) => r.json());
  // Settle after start-up, then take the baseline.
  await sleep(500);
  const before = memory(child.pid);

  const boundary = 'benchboundary';
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const chunk = Buffer.alloc(1024 * 1024, 0xab);
  const started = process.hrtime.bigint();
  const answer = await new Promise((resolve, reject) => {
    const req = request(`${url}/v1/tasks/${task.id}/attachments`, {
      method: 'POST',
      headers: {
        'x-api-key': key,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + size + tail.length),
      },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode, text }));
    });
    req.on('error', reject);
    req.write(head);
    let sent = 0;
    const pump = () => {
      while (sent < size) {
        sent += chunk.length;
        if (!req.write(chunk)) return req.once('drain', pump);
      }
      req.end(tail);
    };
    pump();
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const after = memory(child.pid);
  console.log(`upload: ${answer.status} ${answer.text.slice(0, 120)}`);
  console.log(`store: ${onS3 ? 's3rver' : 'disk'} (node ${process.version})`);
  console.log(`size: ${sizeMb} MB in ${seconds.toFixed(2)} s = ${(sizeMb / seconds).toFixed(1)} MB/s`);
  console.log(
    `server RSS: ${before.rssMb.toFixed(1)} MB idle before it (start-up's peak ${before.peakMb.toFixed(1)} MB), ` +
      `peak during the upload ${after.peakMb.toFixed(1)} MB: +${(after.peakMb - before.rssMb).toFixed(1)} MB over idle`,
  );
} finally {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  await s3?.stop();
  rmSync(dir, { recursive: true, force: true });
}
