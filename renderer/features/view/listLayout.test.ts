/** Anchors and row ranges over measured heights. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Align } from './listLayout';
import { anchorAt, anchorForRow, anchorOffset, bottomAnchor, maxOffset, rowRange } from './listLayout';
import { RowHeights } from './rowHeights';

const VIEWPORT = 700;

/** A list of `count` rows, rows of `measured` measured at 20–400 px (a deterministic mix). */
function list(count: number, estimate = 72, measured: Iterable<number> = []): RowHeights {
  const heights = new RowHeights(count, estimate);
  for (const row of measured) heights.set(row, 20 + ((row * 37) % 381));
  return heights;
}

const range = (a: number, b: number) => Array.from({ length: Math.max(0, b - a) }, (_, k) => a + k);

describe('listLayout', () => {
  it('puts a row at the top, the bottom or the middle of the viewport, exactly', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5000 }), fc.nat(), fc.constantFrom<Align>('start', 'end', 'center'), (count, pick, align) => {
        const heights = list(count, 72, range(0, count).filter((i) => i % 3 !== 0));
        const row = pick % count;
        const anchor = anchorForRow(row, align, 0, VIEWPORT, heights);
        if (!anchor) throw new Error('an explicit alignment always scrolls');
        const offset = anchorOffset(anchor, heights, VIEWPORT);
        const top = heights.offsetOf(row) - offset;
        const bottom = top + heights.sizeOf(row);
        const max = maxOffset(heights, VIEWPORT);
        // Exact unless the list's own ends stop it.
        if (offset > 0 && offset < max) {
          if (align === 'start') expect(top).toBe(0);
          if (align === 'end') expect(bottom).toBe(VIEWPORT);
          if (align === 'center') expect((top + bottom) / 2).toBeCloseTo(VIEWPORT / 2, 6);
        }
        // Whatever happens, a row no taller than the viewport is wholly in view.
        if (heights.sizeOf(row) <= VIEWPORT) {
          expect(top).toBeGreaterThanOrEqual(0);
          expect(bottom).toBeLessThanOrEqual(VIEWPORT);
        }
      }),
    );
  });

  it('auto: leaves a visible row alone, brings one above to the top and one below to the bottom', () => {
    const heights = list(100, 50);
    const offset = 1020; // rows 20 (in part) to 34 (in part) in view
    expect(anchorForRow(25, 'auto', offset, VIEWPORT, heights)).toBeNull();
    expect(anchorForRow(5, 'auto', offset, VIEWPORT, heights)).toEqual({ row: 5, at: 0, delta: 0 });
    expect(anchorForRow(60, 'auto', offset, VIEWPORT, heights)).toEqual({ row: 60, at: 1, delta: 0 });
    // In part visible at an edge: scrolled to that edge.
    expect(anchorForRow(20, 'auto', offset, VIEWPORT, heights)).toEqual({ row: 20, at: 0, delta: 0 });
    expect(anchorForRow(34, 'auto', offset, VIEWPORT, heights)).toEqual({ row: 34, at: 1, delta: 0 });
  });

  it('keeps the anchored row where it is when rows above it and in view are measured', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1000, max: 100_000 }), fc.nat(), fc.integer({ min: 0, max: 70 }), (count, pick, delta) => {
        const heights = list(count);
        const row = 200 + (pick % (count - 400));
        const anchor = { row, at: 0, delta };
        const before = heights.offsetOf(row) - anchorOffset(anchor, heights, VIEWPORT);
        // Rows above it, and the rows in view, get their real heights.
        for (const r of [...range(row - 200, row), ...range(row, row + 12)]) heights.set(r, 20 + ((r * 37) % 381));
        const after = heights.offsetOf(row) - anchorOffset(anchor, heights, VIEWPORT);
        expect(after).toBe(before);
      }),
    );
  });

  it('anchors a scroll offset on the row at the viewport top', () => {
    const heights = list(1000, 50, range(0, 1000));
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), (t) => {
        const offset = t * maxOffset(heights, VIEWPORT);
        const anchor = anchorAt(offset, heights);
        expect(anchorOffset(anchor, heights, VIEWPORT)).toBeCloseTo(offset, 6);
        expect(anchor.delta).toBeGreaterThanOrEqual(0);
        expect(anchor.delta).toBeLessThan(heights.sizeOf(anchor.row));
      }),
    );
  });

  it('holds the last row at the bottom with the bottom anchor, however the rows measure', () => {
    const heights = list(1_000_000);
    const bottom = bottomAnchor(heights);
    const lastBottom = () => heights.total - anchorOffset(bottom, heights, VIEWPORT);
    expect(lastBottom()).toBe(VIEWPORT);
    for (const r of range(999_980, 1_000_000)) heights.set(r, 20 + ((r * 37) % 381));
    expect(lastBottom()).toBe(VIEWPORT);
    const { visibleEnd, end } = rowRange(anchorOffset(bottom, heights, VIEWPORT), VIEWPORT, heights, 4, 120);
    expect(visibleEnd).toBe(1_000_000);
    expect(end).toBe(1_000_000);
  });

  it('renders the rows that cover the viewport, the overscan, and never more than the cap', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5000 }), fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 1, max: 200 }), (count, t, estimate) => {
        const heights = list(count, estimate, range(0, count).filter((i) => i % 2 === 0));
        const offset = t * maxOffset(heights, VIEWPORT);
        const r = rowRange(offset, VIEWPORT, heights, 4, 120);
        expect(r.end - r.start).toBeLessThanOrEqual(120);
        expect(r.start).toBe(Math.max(0, r.visibleStart - 4));
        expect(r.end).toBe(Math.min(count, r.visibleEnd + 4));
        // The first visible row holds the viewport top …
        expect(heights.offsetOf(r.visibleStart)).toBeLessThanOrEqual(offset);
        expect(heights.offsetOf(r.visibleStart + 1)).toBeGreaterThan(offset);
        // … and the visible rows reach its bottom (or the list's end, or the cap).
        const reached = heights.offsetOf(r.visibleEnd) >= offset + VIEWPORT || r.visibleEnd === count || r.visibleEnd - r.visibleStart === 120 - 8;
        expect(reached).toBe(true);
        // No row past the bottom is "visible".
        expect(heights.offsetOf(r.visibleEnd - 1)).toBeLessThan(Math.max(offset + VIEWPORT, heights.offsetOf(r.visibleStart) + 1));
      }),
    );
  });

  it('caps the rendered rows even when rows are tiny', () => {
    const heights = new RowHeights(10_000, 1);
    const r = rowRange(0, VIEWPORT, heights, 4, 120);
    expect(r.end - r.start).toBeLessThanOrEqual(120);
  });
});
