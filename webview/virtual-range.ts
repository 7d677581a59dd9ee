// Virtualisation math of the task table: which rows to render for a scroll position. Pure
// (no DOM), so that it is unit-tested; the table (views/task-table.ts) positions a pool of
// row elements over this range.
//
// Invariants: 0 <= start <= end <= count; [start, end) covers every row that intersects the
// viewport, plus `overscan` rows on each side (clamped); offset = start * rowHeight.

export interface RowRange {
  start: number;
  end: number;
  /** Pixel offset of row `start`. */
  offset: number;
  /** Total height of all rows. */
  total: number;
}

export function visibleRange(
  scrollTop: number,
  viewportHeight: number,
  rowHeight: number,
  count: number,
  overscan = 8,
): RowRange {
  const total = Math.max(0, count) * rowHeight;
  if (count <= 0 || rowHeight <= 0) return { start: 0, end: 0, offset: 0, total: 0 };
  const maxScroll = Math.max(0, total - viewportHeight);
  const top = Math.min(Math.max(0, scrollTop), maxScroll);
  const first = Math.floor(top / rowHeight);
  const last = Math.ceil((top + Math.max(0, viewportHeight)) / rowHeight);
  const start = Math.max(0, first - overscan);
  const end = Math.min(count, Math.max(last, first + 1) + overscan);
  return { start, end, offset: start * rowHeight, total };
}

/** The scrollTop that brings row `index` into view (unchanged if it is already visible). */
export function scrollToRow(index: number, scrollTop: number, viewportHeight: number, rowHeight: number): number {
  const top = index * rowHeight;
  const bottom = top + rowHeight;
  if (top < scrollTop) return top;
  if (bottom > scrollTop + viewportHeight) return Math.max(0, bottom - viewportHeight);
  return scrollTop;
}
