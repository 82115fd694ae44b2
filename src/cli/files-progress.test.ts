/** migrate-data's progress copying files: one line drawn in place on a terminal, nothing anywhere else. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { terminalFilesProgress } from './files-progress.js';

function terminal(isTTY: boolean) {
  const written: string[] = [];
  let now = 0;
  return {
    stream: { isTTY, write: (text: string) => written.push(text) },
    written,
    clock: () => now,
    advance: (ms: number) => (now += ms),
  };
}

/** What a person sees: each \r starts the line over, \x1b[2K clears it. */
function screen(written: string[]): string[] {
  const lines = [''];
  for (const char of written.join('').replaceAll('\x1b[2K', '')) {
    if (char === '\r') lines[lines.length - 1] = '';
    else if (char === '\n') lines.push('');
    else lines[lines.length - 1] += char;
  }
  return lines;
}

test('on a terminal the files copied, their megabytes and the rate are one line, kept once done', () => {
  const t = terminal(true);
  const progress = terminalFilesProgress(t.stream, t.clock);
  progress.onProgress({ files: 0, total: 3, bytes: 0, totalBytes: 30_000_000 });
  t.advance(2000);
  progress.onProgress({ files: 1, total: 3, bytes: 10_000_000, totalBytes: 30_000_000 });
  assert.deepEqual(screen(t.written), ['copying files: 1 of 3 files, 10.0 of 30.0 MB (5.0 MB/s)']);
  progress.onProgress({ files: 2, total: 3, bytes: 20_000_000, totalBytes: 30_000_000 }); // no time passed: not redrawn
  assert.deepEqual(screen(t.written), ['copying files: 1 of 3 files, 10.0 of 30.0 MB (5.0 MB/s)']);
  progress.onProgress({ files: 3, total: 3, bytes: 30_000_000, totalBytes: 30_000_000 }); // the last: always drawn
  progress.done();
  assert.deepEqual(screen(t.written), ['copying files: 3 of 3 files, 30.0 of 30.0 MB (15.0 MB/s)', '']);
});

test('anywhere but a terminal files progress prints nothing', () => {
  const t = terminal(false);
  const progress = terminalFilesProgress(t.stream, t.clock);
  progress.onProgress({ files: 1, total: 1, bytes: 5, totalBytes: 5 });
  progress.done();
  assert.deepEqual(t.written, []);
});
