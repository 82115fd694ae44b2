// An s3rver bucket (test/attachments/s3-server.ts) in a child process of its own, for the upload
// experiments: its memory is never counted as the measured process's. Resolves to its
// ATTACHMENTS_S3_URL and a stop().
import { spawn } from 'node:child_process';
import { once } from 'node:events';

const root = new URL('../..', import.meta.url).pathname;

export async function startS3Child() {
  const server = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const { startS3Server } = await import(${JSON.stringify(`${root}/dist/test/attachments/s3-server.js`)});
       const s = await startS3Server(); console.log(s.url);
       process.on('SIGTERM', async () => { await s.close(); process.exit(0); });`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const [line] = await once(server.stdout, 'data');
  return {
    url: line.toString().trim(),
    stop: async () => {
      server.kill('SIGTERM');
      await once(server, 'exit');
    },
  };
}
