/**
 * Which rows of a long column are drawn: a column of 500 cards draws the dozen or so in sight
 * and a few either side, so the rest cost no DOM at all. Cards grow with their content, so each
 * row has its own height: the ones drawn are measured, the others estimated until they are.
 */

export interface Range {
  /** First drawn row. */
  start: number;
  /** One past the last drawn row. */
  end: number;
}

/** Where each row starts, from the rows' heights: `heights.length + 1` offsets, the last the total. */
export function rowOffsets(heights: readonly number[]): number[] {
  const offsets = [0];
  for (const height of heights) offsets.push(offsets[offsets.length - 1]! + height);
  return offsets;
}

/** The row at `y` px from the top (the last one past the end). */
function rowAt(offsets: readonly number[], y: number): number {
  let low = 0;
  let high = offsets.length - 2;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (offsets[middle]! <= y) low = middle;
    else high = middle - 1;
  }
  return Math.max(0, low);
}

/** The rows in sight at `scrollTop` in a window `height` high, plus `overscan` either side. */
export function visibleRange(scrollTop: number, height: number, offsets: readonly number[], overscan = 4): Range {
  const count = offsets.length - 1;
  if (count <= 0) return { start: 0, end: 0 };
  const top = Math.max(0, scrollTop);
  const first = rowAt(offsets, top);
  // At least one row, however short the window (not yet measured).
  const last = Math.max(first + 1, rowAt(offsets, top + Math.max(0, height) - 1) + 1);
  return { start: Math.max(0, first - overscan), end: Math.min(count, last + overscan) };
}

/** The scroll position that shows row `index` whole, moving as little as possible. */
export function scrollToShow(index: number, scrollTop: number, height: number, offsets: readonly number[]): number {
  const top = offsets[index]!;
  const bottom = offsets[index + 1]!;
  if (top < scrollTop) return top;
  if (bottom > scrollTop + height) return bottom - height;
  return scrollTop;
}
