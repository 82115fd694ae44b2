/** Which rows of a long column the board draws (virtual-window.ts), and how it scrolls one into sight. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rowOffsets, scrollToShow, visibleRange } from './virtual-window';

const uniform = (count: number, height = 120) => rowOffsets(Array.from({ length: count }, () => height));

describe('the rows a long column draws', () => {
  test('a long column draws the rows in sight and a few either side, never past its ends', () => {
    // 500 rows of 120 px in a window 600 px high.
    assert.deepEqual(visibleRange(0, 600, uniform(500)), { start: 0, end: 9 });
    assert.deepEqual(visibleRange(1200, 600, uniform(500)), { start: 6, end: 19 });
    assert.deepEqual(visibleRange(59_400, 600, uniform(500)), { start: 491, end: 500 });
    assert.deepEqual(visibleRange(0, 600, uniform(3)), { start: 0, end: 3 });
    assert.deepEqual(visibleRange(0, 600, uniform(0)), { start: 0, end: 0 });
    assert.deepEqual(visibleRange(-50, 0, uniform(500), 0), { start: 0, end: 1 }, 'not yet measured');
  });

  test('rows of their own heights: the ones in sight are those the window overlaps', () => {
    // A card of 300 px (a long title) between cards of 100.
    const offsets = rowOffsets([100, 300, 100, 100, 100, 100]);
    assert.deepEqual(offsets, [0, 100, 400, 500, 600, 700, 800]);
    assert.deepEqual(visibleRange(0, 350, offsets, 0), { start: 0, end: 2 });
    assert.deepEqual(visibleRange(420, 100, offsets, 0), { start: 2, end: 4 }, 'the foot of one, the top of the next');
    assert.deepEqual(visibleRange(390, 120, offsets, 1), { start: 0, end: 5 });
  });

  test('bringing a row into sight scrolls as little as it can', () => {
    assert.equal(scrollToShow(3, 0, 600, uniform(500)), 0, 'already in sight');
    assert.equal(scrollToShow(10, 0, 600, uniform(500)), 720, 'below: its foot at the window’s');
    assert.equal(scrollToShow(2, 1200, 600, uniform(500)), 240, 'above: its top at the window’s');
    assert.equal(scrollToShow(499, 0, 600, uniform(500)), 59_400);
    assert.equal(scrollToShow(1, 0, 350, rowOffsets([100, 300, 100])), 50, 'a tall row: its foot in sight');
  });
});
