/** Which rows of a long column the board draws (virtual-window.ts), and how it scrolls one into sight. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { scrollToShow, visibleRange } from './virtual-window';

describe('the rows a long column draws', () => {
  test('a long column draws the rows in sight and a few either side, never past its ends', () => {
    // 500 rows of 120 px in a window 600 px high.
    assert.deepEqual(visibleRange(0, 600, 120, 500), { start: 0, end: 9 });
    assert.deepEqual(visibleRange(1200, 600, 120, 500), { start: 6, end: 19 });
    assert.deepEqual(visibleRange(59_400, 600, 120, 500), { start: 491, end: 500 });
    assert.deepEqual(visibleRange(0, 600, 120, 3), { start: 0, end: 3 });
    assert.deepEqual(visibleRange(0, 600, 120, 0), { start: 0, end: 0 });
    assert.deepEqual(visibleRange(-50, 0, 120, 500, 0), { start: 0, end: 1 }, 'not yet measured');
  });

  test('bringing a row into sight scrolls as little as it can', () => {
    assert.equal(scrollToShow(3, 0, 600, 120), 0, 'already in sight');
    assert.equal(scrollToShow(10, 0, 600, 120), 720, 'below: its foot at the window’s');
    assert.equal(scrollToShow(2, 1200, 600, 120), 240, 'above: its top at the window’s');
    assert.equal(scrollToShow(499, 0, 600, 120), 59_400);
  });
});
