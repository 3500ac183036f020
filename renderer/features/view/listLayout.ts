/**
 * Where a virtual list stands, as an anchor on a row rather than a pixel offset: "row 41 231's top
 * is 12 px above the viewport top", "row 999 999's bottom is at the viewport bottom". Measuring rows
 * changes the offsets of everything below them; an anchor keeps the row the user looks at (or the
 * row a command scrolled to) where it is. Pure functions over RowHeights: see listLayout.test.ts.
 */
import type { RowHeights } from './rowHeights';

export type Align = 'start' | 'center' | 'end' | 'auto';

/**
 * The scroll offset is `offsetOf(row) + at × (sizeOf(row) − viewport) + delta`: `at` 0 puts the
 * row's top at the viewport top, 1 its bottom at the viewport bottom, 0.5 its middle in the middle;
 * `delta` shifts that by pixels (a user scroll anchors the top row with at 0 and delta ≥ 0).
 */
export interface Anchor {
  row: number;
  at: number;
  delta: number;
}

export interface RowRange {
  /** Rows intersecting the viewport: `[visibleStart, visibleEnd)`. */
  visibleStart: number;
  visibleEnd: number;
  /** Rows to render (the visible ones and some overscan): `[start, end)`. */
  start: number;
  end: number;
}

export const TOP: Anchor = { row: 0, at: 0, delta: 0 };

/** The anchor that keeps the last row's bottom at the viewport bottom. */
export function bottomAnchor(heights: RowHeights): Anchor {
  return { row: Math.max(0, heights.count - 1), at: 1, delta: 0 };
}

/** The largest scroll offset: content height minus viewport height. */
export function maxOffset(heights: RowHeights, viewport: number): number {
  return Math.max(0, heights.total - viewport);
}

/** The scroll offset `anchor` stands for, within `[0, maxOffset]`. */
export function anchorOffset(anchor: Anchor, heights: RowHeights, viewport: number): number {
  if (heights.count === 0) return 0;
  const row = Math.max(0, Math.min(anchor.row, heights.count - 1));
  const offset = heights.offsetOf(row) + anchor.at * (heights.sizeOf(row) - viewport) + anchor.delta;
  return Math.max(0, Math.min(offset, maxOffset(heights, viewport)));
}

/** The anchor of scroll offset `offset`: the row at the viewport top and how far it is scrolled past. */
export function anchorAt(offset: number, heights: RowHeights): Anchor {
  const row = heights.indexAt(offset);
  return { row, at: 0, delta: Math.max(0, offset - heights.offsetOf(row)) };
}

/**
 * The anchor that brings `row` into view with `align`; for `auto`, null when the row is already
 * wholly visible at `offset` (else the nearer edge: `start` for a row above, `end` below).
 */
export function anchorForRow(row: number, align: Align, offset: number, viewport: number, heights: RowHeights): Anchor | null {
  const r = Math.max(0, Math.min(row, heights.count - 1));
  let a = align;
  if (a === 'auto') {
    const top = heights.offsetOf(r);
    const bottom = top + heights.sizeOf(r);
    if (top >= offset && bottom <= offset + viewport) return null;
    // A row taller than the viewport shows its top.
    a = top < offset || heights.sizeOf(r) > viewport ? 'start' : 'end';
  }
  return { row: r, at: a === 'start' ? 0 : a === 'end' ? 1 : 0.5, delta: 0 };
}

/**
 * The rows of a viewport `viewport` px tall at scroll offset `offset`, and the ones to render:
 * `overscan` more on each side, never more than `maxRendered` in all.
 */
export function rowRange(offset: number, viewport: number, heights: RowHeights, overscan: number, maxRendered: number): RowRange {
  const n = heights.count;
  if (n === 0) return { visibleStart: 0, visibleEnd: 0, start: 0, end: 0 };
  const visibleStart = heights.indexAt(offset);
  let visibleEnd = visibleStart + 1;
  const bottom = offset + viewport;
  let top = heights.offsetOf(visibleEnd);
  const limit = Math.max(1, maxRendered - 2 * overscan);
  while (visibleEnd < n && top < bottom && visibleEnd - visibleStart < limit) {
    top += heights.sizeOf(visibleEnd);
    visibleEnd++;
  }
  return {
    visibleStart,
    visibleEnd,
    start: Math.max(0, visibleStart - overscan),
    end: Math.min(n, visibleEnd + overscan),
  };
}

export function sameRange(a: RowRange, b: RowRange): boolean {
  return a.start === b.start && a.end === b.end && a.visibleStart === b.visibleStart && a.visibleEnd === b.visibleEnd;
}
