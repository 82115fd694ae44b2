/**
 * migrate-data's progress on a terminal: one line per table, rewritten in place with its rows
 * and rows per second. Anywhere else (a pipe, a log file) it prints nothing, so stderr carries
 * only errors and stdout only the summary.
 */
import type { CopyProgress } from '../storage/copy.js';

/** What progress needs of a stream: process.stderr, or a stand-in in tests. */
export interface ProgressStream {
  isTTY?: boolean;
  write(text: string): unknown;
}

const CLEAR_LINE = '\r\x1b[2K';
/** Redraw at most this often: a terminal need not see every batch. */
const REDRAW_MS = 100;

const grouped = (n: number) => Math.round(n).toLocaleString('en-US');

/**
 * A listener for copyDatabase's progress, and `done` to call once it has finished or failed.
 * Each table's copying line stays on screen once the table is done; the verifying line is
 * rewritten in place from table to table and cleared at the end.
 */
export function terminalProgress(
  stream: ProgressStream,
  now: () => number = Date.now,
): { onProgress(progress: CopyProgress): void; done(): void } {
  if (!stream.isTTY) return { onProgress: () => {}, done: () => {} };
  let current: { table: string; phase: CopyProgress['phase']; started: number; text: string } | undefined;
  let drawn = 0;

  const finish = () => {
    if (current) stream.write(current.phase === 'copying' ? `${CLEAR_LINE}${current.text}\n` : CLEAR_LINE);
    current = undefined;
  };

  return {
    onProgress(progress) {
      if (current?.table !== progress.table || current.phase !== progress.phase) {
        finish();
        current = { table: progress.table, phase: progress.phase, started: now(), text: '' };
        drawn = 0;
      }
      const seconds = Math.max((now() - current.started) / 1000, 0.001);
      current.text =
        `${progress.phase} ${progress.table}: ${grouped(progress.rows)} of ${grouped(progress.total)} rows` +
        ` (${grouped(progress.rows / seconds)} rows/s)`;
      if (progress.rows === progress.total || now() - drawn >= REDRAW_MS) {
        stream.write(`${CLEAR_LINE}${current.text}`);
        drawn = now();
      }
    },
    done: finish,
  };
}
