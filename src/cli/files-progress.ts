/**
 * migrate-data's progress copying attachments' files, on a terminal only (as progress.ts does for
 * tables): one line rewritten in place with the files and bytes done and the bytes per second.
 */
import type { FilesProgress } from '../attachments/copy-files.js';
import type { ProgressStream } from './progress.js';

const CLEAR_LINE = '\r\x1b[2K';
const REDRAW_MS = 100;

const grouped = (n: number) => Math.round(n).toLocaleString('en-US');
const megabytes = (bytes: number) => (bytes / 1_000_000).toFixed(1);

/** A listener for FileCopy's progress, and `done` to call once it has finished or failed (it leaves the last line). */
export function terminalFilesProgress(
  stream: ProgressStream,
  now: () => number = Date.now,
): { onProgress(progress: FilesProgress): void; done(): void } {
  if (!stream.isTTY) return { onProgress: () => {}, done: () => {} };
  let started: number | undefined;
  let drawn = 0;
  let text = '';
  return {
    onProgress(progress) {
      started ??= now();
      const seconds = Math.max((now() - started) / 1000, 0.001);
      text =
        `copying files: ${grouped(progress.files)} of ${grouped(progress.total)} files, ` +
        `${megabytes(progress.bytes)} of ${megabytes(progress.totalBytes)} MB (${megabytes(progress.bytes / seconds)} MB/s)`;
      if (progress.files === progress.total || now() - drawn >= REDRAW_MS) {
        stream.write(`${CLEAR_LINE}${text}`);
        drawn = now();
      }
    },
    done() {
      if (text) stream.write(`${CLEAR_LINE}${text}\n`);
      text = '';
    },
  };
}
