/** migrate-data's progress: drawn in place on a terminal, and nothing at all anywhere else. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { terminalProgress } from './progress.js';

/** A stand-in for stderr that keeps what was written, and a clock the test moves. */
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

test('on a terminal each copied table keeps one line with its rows and rows per second, and verifying is cleared at the end', () => {
  const t = terminal(true);
  const progress = terminalProgress(t.stream, t.clock);
  progress.onProgress({ table: 'teams', phase: 'copying', rows: 0, total: 2 });
  t.advance(500);
  progress.onProgress({ table: 'teams', phase: 'copying', rows: 2, total: 2 });
  progress.onProgress({ table: 'tasks', phase: 'copying', rows: 0, total: 1500 });
  t.advance(1000);
  progress.onProgress({ table: 'tasks', phase: 'copying', rows: 500, total: 1500 });
  assert.deepEqual(screen(t.written), [
    'copying teams: 2 of 2 rows (4 rows/s)',
    'copying tasks: 500 of 1,500 rows (500 rows/s)',
  ]);
  progress.onProgress({ table: 'tasks', phase: 'copying', rows: 1000, total: 1500 }); // no time passed: not redrawn
  assert.equal(screen(t.written)[1], 'copying tasks: 500 of 1,500 rows (500 rows/s)');
  t.advance(1000);
  progress.onProgress({ table: 'tasks', phase: 'copying', rows: 1500, total: 1500 });
  progress.onProgress({ table: 'teams', phase: 'verifying', rows: 2, total: 2 });
  assert.equal(screen(t.written)[2], 'verifying teams: 2 of 2 rows (2,000 rows/s)');
  progress.done();
  assert.deepEqual(screen(t.written), [
    'copying teams: 2 of 2 rows (4 rows/s)',
    'copying tasks: 1,500 of 1,500 rows (750 rows/s)',
    '',
  ]);
});

test('anywhere but a terminal progress prints nothing', () => {
  const t = terminal(false);
  const progress = terminalProgress(t.stream, t.clock);
  progress.onProgress({ table: 'teams', phase: 'copying', rows: 2, total: 2 });
  progress.onProgress({ table: 'teams', phase: 'verifying', rows: 2, total: 2 });
  progress.done();
  assert.deepEqual(t.written, []);
});
