// Issue 31: what an attachment's trip to S3 costs in memory and time. S3FileStore.put of a
// generated file (SIZE_MB, default 1024; made as it is read, 1 MiB at a time, never held) into
// s3rver, then get() read back through a SHA-256; prints the RSS before, the peak RSS during each
// (sampled every 10 ms, and the process's own maximum), and MB/s. s3rver runs in a child process
// on loopback (test/attachments/s3-server.ts), so its memory is not counted here; it writes to
// the temporary folder's disk, so MB/s is that disk's and the loopback's as much as ours.
//
//   npx tsc -p tsconfig.json && [SIZE_MB=1024] [PART_MB=5] [QUEUE=1] node bench/experiments/upload-memory-s3.mjs
import { Buffer } from 'node:buffer';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { clearInterval, setInterval } from 'node:timers';
import { startS3Child } from './s3-child.mjs';

const root = new URL('../..', import.meta.url).pathname;
const { PART_SIZE, QUEUE_SIZE, S3FileStore } = await import(`${root}/dist/src/attachments/storage/s3-store.js`);
const { parseS3Url } = await import(`${root}/dist/src/s3-config.js`);

const MiB = 1024 * 1024;
const size = Number(process.env.SIZE_MB ?? 1024) * MiB;
const partSize = process.env.PART_MB ? Number(process.env.PART_MB) * MiB : PART_SIZE;
const queueSize = process.env.QUEUE ? Number(process.env.QUEUE) : QUEUE_SIZE;

const s3 = await startS3Child();
const store = new S3FileStore(parseS3Url(s3.url, []), { partSize, queueSize });

function generated() {
  const block = randomBytes(MiB);
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= size) return this.push(null);
      const chunk = Buffer.from(block);
      chunk.writeUInt32BE(sent / MiB, 0);
      sent += MiB;
      this.push(chunk);
    },
  });
}

async function measured(what) {
  globalThis.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  const started = process.hrtime.bigint();
  const result = await what();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  clearInterval(sampler);
  return { result, seconds, before, peak };
}

const mb = (bytes) => (bytes / MiB).toFixed(0);
const put = await measured(() => store.put('bench', generated(), size));
console.log(
  `put ${mb(size)} MiB in ${partSize / MiB} MiB parts, ${queueSize} in flight: ${put.seconds.toFixed(1)} s, ` +
    `${(size / MiB / put.seconds).toFixed(0)} MiB/s; RSS ${mb(put.before)} MiB before, peak ${mb(put.peak)} MiB ` +
    `(+${mb(put.peak - put.before)})`,
);
const get = await measured(async () => {
  const hash = createHash('sha256');
  for await (const chunk of await store.get('bench')) hash.update(chunk);
  return hash.digest('hex');
});
if (get.result !== put.result.sha256) throw new Error('the file read back differs from the one stored');
console.log(
  `get ${mb(size)} MiB through SHA-256: ${get.seconds.toFixed(1)} s, ${(size / MiB / get.seconds).toFixed(0)} MiB/s; ` +
    `RSS ${mb(get.before)} MiB before, peak ${mb(get.peak)} MiB (+${mb(get.peak - get.before)})`,
);
console.log(`process max RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB (node ${process.version})`);
await store.delete('bench');
store.client.destroy();
await s3.stop();
