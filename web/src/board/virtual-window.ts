/**
 * Which rows of a long column are drawn: a column of 500 cards draws the dozen or so in sight
 * and a few either side, every card being one fixed height, so the rest cost no DOM at all.
 */

export interface Range {
  /** First drawn row. */
  start: number;
  /** One past the last drawn row. */
  end: number;
}

/** The rows in sight at `scrollTop` in a window `height` high, plus `overscan` either side. */
export function visibleRange(scrollTop: number, height: number, rowHeight: number, count: number, overscan = 4): Range {
  const first = Math.floor(Math.max(0, scrollTop) / rowHeight);
  const last = Math.ceil((Math.max(0, scrollTop) + Math.max(height, rowHeight)) / rowHeight);
  return { start: Math.max(0, Math.min(count, first - overscan)), end: Math.min(count, last + overscan) };
}

/** The scroll position that shows row `index` whole, moving as little as possible. */
export function scrollToShow(index: number, scrollTop: number, height: number, rowHeight: number): number {
  const top = index * rowHeight;
  if (top < scrollTop) return top;
  if (top + rowHeight > scrollTop + height) return top + rowHeight - height;
  return scrollTop;
}
