/** The physical ↔ virtual scroll map of lists taller than the browser can scroll. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_SCROLL_PX, follow, isScaled, physicalHeight, scrollExtents, toPhysical, toVirtual } from './scrollScale';

const VIEWPORT = 729;
const ROW = 72;

/** Extents of `rows` rows of ROW px in a VIEWPORT px viewport. */
const extentsOf = (rows: number) => scrollExtents(rows * ROW, VIEWPORT);

/** Heights from a few rows to far beyond the cap (10 million rows of 72 px: 48× scaled). */
const virtualHeight = fc.oneof(fc.integer({ min: 0, max: 2 * VIEWPORT }), fc.integer({ min: 0, max: 10_000_000 * ROW }));

describe('scrollScale', () => {
  it('caps the scroller height and scales only above the cap', () => {
    expect(physicalHeight(1000)).toBe(1000);
    expect(physicalHeight(10 * MAX_SCROLL_PX)).toBe(MAX_SCROLL_PX);
    expect(isScaled(scrollExtents(MAX_SCROLL_PX, VIEWPORT))).toBe(false);
    expect(isScaled(scrollExtents(MAX_SCROLL_PX + 1, VIEWPORT))).toBe(true);
    // Chromium cannot lay out more than ~33.5M px: the cap stays well under it.
    expect(MAX_SCROLL_PX).toBeLessThan(33_000_000);
  });

  it('is the identity below the cap', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_SCROLL_PX }), fc.double({ min: 0, max: 1, noNaN: true }), (height, t) => {
        const e = scrollExtents(height, VIEWPORT);
        const p = t * e.physicalMax;
        expect(toVirtual(p, e)).toBe(p);
        expect(toPhysical(p, e)).toBe(p);
        expect(follow({ physical: p / 2, virtual: p / 2 }, p, e)).toBeCloseTo(p, 6);
      }),
    );
  });

  it('maps the ends to the ends: the scrollbar bottom is the last row, its top the first', () => {
    fc.assert(
      fc.property(virtualHeight, (height) => {
        const e = scrollExtents(height, VIEWPORT);
        expect(toVirtual(0, e)).toBe(0);
        expect(toVirtual(e.physicalMax, e)).toBe(e.virtualMax);
        expect(toPhysical(0, e)).toBe(0);
        expect(toPhysical(e.virtualMax, e)).toBe(e.physicalMax);
      }),
    );
  });

  it('is monotonic both ways', () => {
    fc.assert(
      fc.property(virtualHeight, fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (height, a, b) => {
        const e = scrollExtents(height, VIEWPORT);
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        expect(toVirtual(lo * e.physicalMax, e)).toBeLessThanOrEqual(toVirtual(hi * e.physicalMax, e));
        expect(toPhysical(lo * e.virtualMax, e)).toBeLessThanOrEqual(toPhysical(hi * e.virtualMax, e));
      }),
    );
  });

  it('round-trips an offset through the physical scrollTop (rounded to a pixel) within half a scale step', () => {
    fc.assert(
      fc.property(virtualHeight, fc.double({ min: 0, max: 1, noNaN: true }), (height, t) => {
        const e = scrollExtents(height, VIEWPORT);
        const v = t * e.virtualMax;
        const scale = e.physicalMax > 0 ? e.virtualMax / e.physicalMax : 1;
        expect(Math.abs(toVirtual(toPhysical(v, e), e) - v)).toBeLessThanOrEqual(1e-6 * Math.max(1, e.virtualMax));
        expect(Math.abs(toVirtual(Math.round(toPhysical(v, e)), e) - v)).toBeLessThanOrEqual(scale / 2 + 1e-6 * Math.max(1, e.virtualMax));
      }),
    );
  });

  it.each([1, 12, 1000, 100_000, 1_000_000, 2_000_000, 10_000_000])('round-trips every row index of %i rows of 72 px: index → offset → scrollTop → offset → index', (rows) => {
    const e = extentsOf(rows);
    const lastTop = Math.max(0, Math.floor(e.virtualMax / ROW));
    const sample = rows <= 1000 ? Array.from({ length: rows }, (_, i) => i) : [0, 1, 2, 3, rows >> 2, rows >> 1, rows - 13, lastTop - 1, lastTop];
    for (const index of sample.filter((i) => i >= 0 && i < rows && i * ROW <= e.virtualMax)) {
      // The row's middle at the viewport top: the rounding of scrollTop moves it by less than half a row.
      const v = Math.min(e.virtualMax, index * ROW + ROW / 2);
      const back = toVirtual(Math.round(toPhysical(v, e)), e);
      expect(Math.floor(back / ROW)).toBe(Math.floor(v / ROW));
    }
  });

  it('reaches the last row at the largest scrollTop of a million rows', () => {
    const rows = 1_000_000;
    const e = extentsOf(rows);
    expect(isScaled(e)).toBe(true);
    const v = toVirtual(e.physicalMax, e);
    // The viewport's bottom is the list's bottom: the last row is wholly in view.
    expect(v + VIEWPORT).toBe(rows * ROW);
    expect(Math.floor((v + VIEWPORT - 1) / ROW)).toBe(rows - 1);
  });

  it('follows a user scroll from a drifted pair without a jump, monotonic, exact at the ends', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000_000 }),
        // Strictly inside: at either end the list is anchored to that end, never drifted.
        fc.double({ min: 0.001, max: 0.999, noNaN: true }),
        fc.double({ min: -0.05, max: 0.05, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (rows, t, drift, a, b) => {
          const e = extentsOf(rows);
          const p0 = t * e.physicalMax;
          const from = { physical: p0, virtual: Math.max(0, Math.min(e.virtualMax, toVirtual(p0, e) + drift * e.virtualMax)) };
          // No jump: not moving keeps the offset.
          expect(follow(from, p0, e)).toBeCloseTo(from.virtual, 3);
          // Ends.
          expect(follow(from, 0, e)).toBe(0);
          expect(follow(from, e.physicalMax, e)).toBe(e.virtualMax);
          // Monotonic.
          const [lo, hi] = a <= b ? [a, b] : [b, a];
          expect(follow(from, lo * e.physicalMax, e)).toBeLessThanOrEqual(follow(from, hi * e.physicalMax, e) + 1e-6);
        },
      ),
    );
  });

  it('follows the line exactly when the pair is on it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (rows, t, u) => {
        const e = extentsOf(rows);
        const p0 = t * e.physicalMax;
        const to = u * e.physicalMax;
        expect(follow({ physical: p0, virtual: toVirtual(p0, e) }, to, e)).toBeCloseTo(toVirtual(to, e), 3);
      }),
    );
  });
});
